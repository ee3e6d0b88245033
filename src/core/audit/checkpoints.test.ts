import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../store/index.ts';
import { AuditKey } from './audit-key.ts';
import {
  type AuditCheckpoint,
  appendCheckpointFile,
  checkpointLines,
  checkpointSignatureHolds,
  insertCheckpoint,
  lastStoredCheckpoint,
  parseCheckpointLines,
  readCheckpointFile,
  signCheckpoint,
  storedCheckpoints,
  storeLabel,
} from './checkpoints.ts';

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

  it('skips blank and whitespace-only lines; a line without JSON is unreadable even when it ends in a number', () => {
    const text = `   \n\t\n-- MARK -- 7\n${checkpointLines('sqlite:/d/opsgate.db', [checkpoint])}\n`;
    expect(parseCheckpointLines(text, 'sqlite:/d/opsgate.db')).toEqual({ checkpoints: [checkpoint], unreadable: 1 });
  });
});

describe('signed checkpoints', () => {
  const key = new AuditKey(Buffer.alloc(32, 7), 'test');
  const head = {
    seq: 2,
    hash: '4f50d0b47c94b24a88601315b8c7237cbbfac2659471727acab2108f8b5cb805',
    at: '2026-11-24T10:00:02.000Z',
    macsFrom: 1,
  };

  it('a checkpoint signed by an earlier opsgate still verifies (the durable format, computed outside opsgate)', () => {
    // HMAC-SHA256 (base64url) of the JSON array ["opsgate-audit-checkpoint-v1", seq, hash, at, keyId,
    // macsFrom], computed with Python's hmac module: a change to the signed form turns this red.
    const signed = signCheckpoint(key, head);
    expect(signed).toEqual({ ...head, keyId: 'c91086c218da6151', signature: 'ThKkrL9JTrqZy9rxA0sKX-xlt9C2zSIiX4Im1uWHACM' });
    expect(checkpointSignatureHolds(key, signed)).toBe(true);
  });

  it('an edited field, a signature of another key or a key id claimed falsely does not hold', () => {
    const signed = signCheckpoint(key, head);
    for (const edit of [{ seq: 3 }, { hash: 'f'.repeat(64) }, { at: '2026-11-24T10:00:03.000Z' }, { macsFrom: 2 }, { keyId: 'another' }])
      expect(checkpointSignatureHolds(key, { ...signed, ...edit })).toBe(false);
    const other = new AuditKey(Buffer.alloc(32, 8), 'other');
    expect(checkpointSignatureHolds(other, signed)).toBe(false);
    expect(checkpointSignatureHolds(key, { ...signCheckpoint(other, head), keyId: key.id })).toBe(false);
  });

  it('are kept in the store once per head, and read back oldest first and newest alone', async () => {
    const store = await openStore({ sqlitePath: ':memory:', databaseUrl: '', auditKey: '' });
    try {
      expect(await lastStoredCheckpoint(store.db)).toBeUndefined();
      const early = signCheckpoint(key, { ...head, seq: 1 });
      const late = signCheckpoint(key, head);
      await insertCheckpoint(store.db, late);
      await insertCheckpoint(store.db, early);
      // Another sealer anchoring the same head: the first one stays.
      await insertCheckpoint(store.db, signCheckpoint(key, { ...head, at: '2026-11-24T10:00:09.000Z' }));
      expect(await storedCheckpoints(store.db)).toEqual([early, late]);
      expect(await lastStoredCheckpoint(store.db)).toEqual(late);
    } finally {
      await store.close();
    }
  });
});

describe('the checkpoint file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'opsgate-checkpoints-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is created 0600 in a 0700 folder on the first checkpoint, appended to after, and read back per store', () => {
    const file = join(dir, 'anchors', 'audit-checkpoints.jsonl');
    appendCheckpointFile(file, 'sqlite:/a.db', []);
    expect(existsSync(file)).toBe(false);
    expect(readCheckpointFile(file, 'sqlite:/a.db')).toEqual({ checkpoints: [], unreadable: 0 });
    appendCheckpointFile(file, 'sqlite:/a.db', [checkpoint]);
    appendCheckpointFile(file, 'sqlite:/b.db', [{ ...checkpoint, seq: 20 }]);
    appendCheckpointFile(file, 'sqlite:/a.db', [{ ...checkpoint, seq: 30 }]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'anchors')).mode & 0o777).toBe(0o700);
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
    expect(readCheckpointFile(file, 'sqlite:/a.db')).toEqual({ checkpoints: [checkpoint, { ...checkpoint, seq: 30 }], unreadable: 0 });
  });

  it('takes several checkpoints in one append, a line each', () => {
    const file = join(dir, 'several', 'audit-checkpoints.jsonl');
    appendCheckpointFile(file, 'sqlite:/a.db', [checkpoint, { ...checkpoint, seq: 30 }]);
    // Exactly one JSON object a line: the reader would forgive text before a line's JSON (a prefix an anchor adds), not this writer.
    expect(readFileSync(file, 'utf8').split('\n')).toEqual([
      JSON.stringify({ store: 'sqlite:/a.db', ...checkpoint }),
      JSON.stringify({ store: 'sqlite:/a.db', ...checkpoint, seq: 30 }),
      '',
    ]);
  });

  it.each(['seq', 'hash', 'at', 'keyId', 'macsFrom', 'signature'])('a line whose %s has the wrong type is unreadable', (field) => {
    const line = JSON.stringify({ store: 'sqlite:/a.db', ...checkpoint, [field]: field === 'seq' || field === 'macsFrom' ? '1' : 1 });
    expect(parseCheckpointLines(line, 'sqlite:/a.db')).toEqual({ checkpoints: [], unreadable: 1 });
  });
});

describe('store labels in checkpoint lines', () => {
  it('name the SQLite file, or the PostgreSQL server and database without the credentials', () => {
    expect(storeLabel({ dialect: 'sqlite', location: '/var/lib/opsgate/opsgate.db' })).toBe('sqlite:/var/lib/opsgate/opsgate.db');
    expect(storeLabel({ dialect: 'postgres', location: 'postgres://opsgate:s3cret@db.internal:5432/opsgate?sslmode=require' })).toBe(
      'postgres:db.internal:5432/opsgate',
    );
    expect(storeLabel({ dialect: 'postgres', location: 'not a url' })).toBe('postgres:not a url');
  });
});
