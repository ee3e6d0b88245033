import { describe, expect, it } from 'vitest';
import { type AuditCheckpoint, checkpointLines, parseCheckpointLines } from './checkpoints.ts';

const checkpoint: AuditCheckpoint = {
  seq: 10,
  hash: 'h'.repeat(64),
  at: '2026-11-27T05:00:00.000Z',
  keyId: 'k1',
  macsFrom: 1,
  signature: 's',
};

describe('checkpoint lines (the file and the external anchor)', () => {
  it("reads back this store's checkpoints, also behind a syslog prefix, and skips other stores' lines", () => {
    const line = checkpointLines('postgres:db:5432/opsgate', [checkpoint]);
    const text = [
      line.trim(),
      `Nov 27 05:00:01 loghost opsgate-audit[812]: ${line.trim()}`,
      checkpointLines('postgres:other:5432/opsgate', [{ ...checkpoint, seq: 99 }]).trim(),
    ].join('\n');
    expect(parseCheckpointLines(text, 'postgres:db:5432/opsgate')).toEqual({ checkpoints: [checkpoint, checkpoint], unreadable: 0 });
  });

  it('counts lines that hold no checkpoint as unreadable instead of failing on them', () => {
    const text = `-- MARK --\n{"store":"sqlite:/d/opsgate.db","seq":"ten"}\n${checkpointLines('sqlite:/d/opsgate.db', [checkpoint])}`;
    expect(parseCheckpointLines(text, 'sqlite:/d/opsgate.db')).toEqual({ checkpoints: [checkpoint], unreadable: 2 });
  });
});
