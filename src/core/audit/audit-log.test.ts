import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store, UnitOfWork } from '../store/index.ts';
import { AuditKey } from './audit-key.ts';
import { AuditLog, observeCheckpoints } from './audit-log.ts';
import { GENESIS_HASH, hashAuditEvent } from './chain-hash.ts';
import type { AuditCheckpoint } from './checkpoints.ts';

// The sealer on a real SQLite store, with a clock the test moves and a seal delay long enough that
// only the test seals (except where the background sealer itself is the subject).
const stores: Store[] = [];
const logs: AuditLog[] = [];
afterEach(async () => {
  for (const log of logs.splice(0)) await log.close();
  for (const store of stores.splice(0)) await store.close();
});

async function sealer(options: { sealDelayMs?: number; checkpointEveryEvents?: number; checkpointEveryMs?: number } = {}) {
  const store = await openStore({ sqlitePath: ':memory:', databaseUrl: '', auditKey: '' });
  stores.push(store);
  const clock = { ms: Date.parse('2026-11-27T08:00:00.000Z') };
  const audit = new AuditLog(store, () => new Date(clock.ms), { sealDelayMs: 3_600_000, ...options });
  logs.push(audit);
  return { store, clock, audit };
}

const warning = (n: number, sessionId: string | null = null) => ({ sessionId, type: 'warning', actor: 'system', payload: { n } });

describe('the audit log', () => {
  it('seals journaled events into a chain from the genesis hash: numbered from 1, each hashed over the one before', async () => {
    const { audit, clock } = await sealer();
    await audit.append({ type: 'tool_approved', actor: 'user:alice', payload: { callId: 'c1', approver: 'alice' } });
    clock.ms += 1000;
    await audit.append(warning(2, 's1'));
    expect(await audit.seal()).toBe(2);
    const [first, second] = await audit.list();
    expect(first).toEqual({
      seq: 1,
      sessionId: null,
      type: 'tool_approved',
      actor: 'user:alice',
      payload: { callId: 'c1', approver: 'alice' },
      prevHash: GENESIS_HASH,
      hash: hashAuditEvent(GENESIS_HASH, {
        seq: 1,
        sessionId: null,
        type: 'tool_approved',
        actor: 'user:alice',
        // Canonical: keys sorted, so equal payloads always hash alike.
        payload: '{"approver":"alice","callId":"c1"}',
        createdAt: '2026-11-27T08:00:00.000Z',
      }),
      createdAt: '2026-11-27T08:00:00.000Z',
    });
    expect(second).toMatchObject({ seq: 2, sessionId: 's1', prevHash: first!.hash, createdAt: '2026-11-27T08:00:01.000Z' });
    expect(await audit.seal()).toBe(0);
    expect((await audit.verify()).ok).toBe(true);
  });

  it('lists by session, actor, type, time and position, oldest first, as many as asked', async () => {
    const { audit, clock } = await sealer();
    for (let n = 1; n <= 6; n += 1) {
      await audit.append({
        sessionId: n % 2 ? 'odd' : 'even',
        type: n < 4 ? 'warning' : 'tool_failed',
        actor: `user:u${n % 3}`,
        payload: { n },
      });
      clock.ms += 1000;
    }
    const ns = async (filter: Parameters<AuditLog['list']>[0]) => (await audit.list(filter)).map((event) => event.payload.n);
    expect(await ns({})).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await ns({ sessionId: 'odd' })).toEqual([1, 3, 5]);
    expect(await ns({ actor: 'user:u1' })).toEqual([1, 4]);
    expect(await ns({ type: 'tool_failed' })).toEqual([4, 5, 6]);
    expect(await ns({ since: '2026-11-27T08:00:02.000Z' })).toEqual([3, 4, 5, 6]);
    expect(await ns({ until: '2026-11-27T08:00:02.000Z' })).toEqual([1, 2, 3]);
    expect(await ns({ afterSeq: 4 })).toEqual([5, 6]);
    expect(await ns({ limit: 2 })).toEqual([1, 2]);
    expect(await ns({ sessionId: 'even', type: 'tool_failed', afterSeq: 4 })).toEqual([6]);
  });

  it('seals more than one batch in one call and exports every event as JSON lines, page after page', async () => {
    const { store, audit } = await sealer();
    const uow = new UnitOfWork();
    for (let n = 1; n <= 2_050; n += 1) audit.record(uow, warning(n, n % 2 ? 'odd' : 'even'));
    await uow.commit(store);
    expect(await audit.seal()).toBe(2_050);
    const lines: string[] = [];
    for await (const line of audit.exportJsonLines()) lines.push(line);
    expect(lines).toHaveLength(2_050);
    expect(lines.every((line) => line.endsWith('}\n'))).toBe(true);
    expect(lines.map((line) => (JSON.parse(line) as { seq: number }).seq)).toEqual(Array.from({ length: 2_050 }, (_, at) => at + 1));
    const odd: string[] = [];
    for await (const line of audit.exportJsonLines({ sessionId: 'odd' })) odd.push(line);
    expect(odd).toHaveLength(1_025);
    expect((await audit.verify()).checked).toBe(2_050);
  });

  it('a seal asked while one runs joins it: both answer what that seal chained', async () => {
    const { audit } = await sealer();
    await audit.append(warning(1));
    await audit.append(warning(2));
    const running = audit.seal();
    const asked = audit.seal();
    expect(await running).toBe(2);
    expect(await asked).toBe(2);
    expect((await audit.list()).map((event) => event.payload.n)).toEqual([1, 2]);
  });

  it('the background sealer chains a journaled event on its own after the seal delay', async () => {
    const { store, audit } = await sealer({ sealDelayMs: 1 });
    await audit.append(warning(1));
    await expect.poll(async () => (await store.db.selectFrom('audit_events').select('seq').execute()).length, { timeout: 20_000 }).toBe(1);
    expect(await store.db.selectFrom('audit_pending').selectAll().execute()).toEqual([]);
  });

  it('a journaled event waiting for the background sealer does not keep the process alive', async () => {
    const { audit } = await sealer();
    const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
    const before = timers();
    await audit.append(warning(1));
    expect(timers()).toBe(before);
  });

  it('tells how long each sealed event waited in the journal, never less than zero', async () => {
    const { audit, clock } = await sealer();
    const waited: number[] = [];
    audit.observeAppends((ms) => waited.push(ms));
    // The test's clock is behind the machine's: these events waited; then one from a clock ahead.
    clock.ms = Date.now() - 60_000;
    await audit.append(warning(1));
    await audit.append(warning(2));
    await audit.seal();
    expect(waited).toHaveLength(2);
    expect(waited.every((ms) => ms >= 60_000)).toBe(true);
    clock.ms = Date.now() + 60_000;
    await audit.append(warning(3));
    await audit.seal();
    expect(waited.slice(2)).toEqual([0]);
  });

  it('signs a checkpoint of the head every so many events or once the interval passed, and tells whoever observes', async () => {
    const { store, audit, clock } = await sealer({ checkpointEveryEvents: 5, checkpointEveryMs: 60_000 });
    const heard: AuditCheckpoint[] = [];
    const stop = observeCheckpoints(store, (checkpoint) => heard.push(checkpoint));
    const sealEvents = async (count: number) => {
      for (let i = 0; i < count; i += 1) await audit.append(warning(i));
      await audit.seal();
    };
    await sealEvents(1); // the first seal anchors the chain at once
    await sealEvents(4); // 4 since: not yet
    await sealEvents(1); // 5 since
    clock.ms += 59_999;
    await sealEvents(1); // 1 since, a moment short of the interval
    clock.ms += 1;
    await sealEvents(1); // the interval since the last one
    expect(heard.map((checkpoint) => checkpoint.seq)).toEqual([1, 6, 8]);
    expect(heard[2]).toMatchObject({ at: new Date(clock.ms).toISOString(), macsFrom: 1 });
    const stored = await store.db.selectFrom('audit_checkpoints').select('seq').orderBy('seq').execute();
    expect(stored.map((row) => Number(row.seq))).toEqual([1, 6, 8]);

    // On demand: only when the head moved since the last one; a stopped observer hears no more.
    expect(await audit.checkpoint()).toBeUndefined();
    await audit.append(warning(9));
    stop();
    expect(await audit.checkpoint()).toMatchObject({ seq: 9 });
    expect(heard).toHaveLength(3);
  });

  it('seals a journal row without a valid MAC, or repeating another in its batch, as a forgery record and never as what it claims', async () => {
    const { store, audit } = await sealer();
    await audit.append(warning(1, 's1'));
    const [genuine] = await store.db.selectFrom('audit_pending').selectAll().execute();
    const claimed = {
      session_id: 's1',
      type: 'tool_approved',
      actor: 'user:mallory',
      payload: '{"callId":"c9"}',
      created_at: '2026-11-27T07:00:00.000Z',
    };
    await store.db
      .insertInto('audit_pending')
      .values({ ...claimed, mac: null })
      .execute();
    const { id: _id, ...copy } = genuine!;
    await store.db.insertInto('audit_pending').values(copy).execute();
    await audit.seal();
    const events = await audit.list();
    expect(events.map((event) => [event.type, event.actor, event.sessionId])).toEqual([
      ['warning', 'system', 's1'],
      ['audit_journal_forgery', 'system', 's1'],
      ['audit_journal_forgery', 'system', 's1'],
    ]);
    expect(events[1]!.payload).toEqual({
      journalId: Number(genuine!.id) + 1,
      reason: `journal row ${Number(genuine!.id) + 1}: it carries no MAC; it was not written by opsgate with this store's audit key`,
      claimed: { type: 'tool_approved', actor: 'user:mallory', createdAt: '2026-11-27T07:00:00.000Z' },
      payloadSha256: createHash('sha256').update('{"callId":"c9"}').digest('hex'),
    });
    expect(events[2]!.payload.reason).toBe(
      `journal row ${Number(genuine!.id) + 2}: it repeats another row of the same batch; it was not written by opsgate with this store's audit key`,
    );
    expect(await audit.verify()).toMatchObject({ ok: false, firstBrokenSeq: 2 });
  });
});

describe('the audit log at its edges: the key, a seal asked during a seal, a cut chain, MACs without a checkpoint, close', () => {
  it('accepts its own key on a fresh store and after its own checkpoint; another key is named with the file to put back', async () => {
    const { store, audit } = await sealer();
    await expect(audit.assertKey()).resolves.toBeUndefined();
    await audit.append(warning(1));
    await audit.checkpoint();
    await expect(audit.assertKey()).resolves.toBeUndefined();
    const stranger = new AuditLog(store, undefined, { key: new AuditKey(randomBytes(32), 'a stranger key') });
    // An in-memory store has no key file: the message names where one would be.
    await expect(stranger.assertKey()).rejects.toMatchObject({
      code: 'AUDIT_KEY_MISMATCH',
      message: expect.stringContaining('or the file <data dir>/audit.key) on every replica'),
    });

    const dataDir = mkdtempSync(join(tmpdir(), 'opsgate-audit-key-'));
    try {
      const onDisk = await openStore({ dataDir, databaseUrl: '', auditKey: '', auditCheckpointFile: '' });
      stores.push(onDisk);
      const owner = new AuditLog(onDisk);
      logs.push(owner);
      await owner.append(warning(1));
      await owner.checkpoint();
      const impostor = new AuditLog(onDisk, undefined, { key: new AuditKey(randomBytes(32), 'a stranger key') });
      await expect(impostor.assertKey()).rejects.toMatchObject({
        code: 'AUDIT_KEY_MISMATCH',
        message: expect.stringContaining(`or the file ${join(dataDir, 'audit.key')}) on every replica`),
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a seal asked while one runs, for events journaled after that seal read the journal, seals them before either answers', async () => {
    const { audit } = await sealer();
    await audit.append(warning(1));
    let journaled: Promise<void> | undefined;
    let asked: Promise<number> | undefined;
    audit.observeAppends(() => {
      if (asked) return;
      // The running seal has chained event 1 and is about to answer: a second event and a seal come now.
      journaled = audit.append(warning(2));
      asked = audit.seal();
    });
    const running = audit.seal();
    expect(await running).toBe(2);
    expect(await asked).toBe(2);
    await journaled;
  });

  it('never signs a head behind or at its last checkpoint: a chain cut below it stays cut, and verify says so', async () => {
    const { store, audit, clock } = await sealer({ checkpointEveryEvents: 1 });
    const heard: number[] = [];
    observeCheckpoints(store, (checkpoint) => heard.push(checkpoint.seq));
    for (let n = 1; n <= 3; n += 1) await audit.append(warning(n));
    await audit.seal();
    expect(heard).toEqual([3]);
    await store.db.deleteFrom('audit_events').where('seq', '>=', 2).execute();
    // Long past the checkpoint interval: only the cut keeps the sealer from signing.
    clock.ms += 3_600_000;
    await audit.append(warning(4));
    expect(await audit.seal()).toBe(1);
    await audit.append(warning(5));
    expect(await audit.seal()).toBe(1);
    expect(heard).toEqual([3]);
    expect(await audit.verify()).toMatchObject({ ok: false });
  });

  it('a log that finds no checkpoint signs where MACs began, not where it took over', async () => {
    const { store, audit } = await sealer();
    for (let n = 1; n <= 3; n += 1) await audit.append(warning(n));
    await audit.checkpoint();
    await store.db.deleteFrom('audit_checkpoints').execute();
    const next = new AuditLog(store, undefined, { sealDelayMs: 3_600_000 });
    logs.push(next);
    const heard: AuditCheckpoint[] = [];
    observeCheckpoints(store, (checkpoint) => heard.push(checkpoint));
    await next.append(warning(4));
    await next.seal();
    expect(heard).toMatchObject([{ seq: 4, macsFrom: 1 }]);
  });

  it('close() keeps the store closable when an anchor fails, but names a key it cannot read', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'opsgate-audit-close-'));
    try {
      const unwritable = await openStore({
        sqlitePath: ':memory:',
        databaseUrl: '',
        auditKey: randomBytes(32).toString('base64'),
        auditCheckpointFile: join(dataDir, 'not-a-directory', 'checkpoints.jsonl'),
      });
      stores.push(unwritable);
      writeFileSync(join(dataDir, 'not-a-directory'), 'a file where the directory should be');
      const fileLog = new AuditLog(unwritable);
      await fileLog.append(warning(1));
      // The error names the file and the system's short reason (the errno code, not its whole message):
      // the folder the file needs cannot be made where a file stands.
      await expect(fileLog.checkpoint()).rejects.toMatchObject({
        code: 'AUDIT_CHECKPOINT_FILE_UNWRITABLE',
        fields: { file: join(dataDir, 'not-a-directory', 'checkpoints.jsonl'), detail: 'EEXIST' },
      });
      await fileLog.append(warning(2));
      await expect(fileLog.close()).resolves.toBeUndefined();

      const unreachable = await openStore({ sqlitePath: ':memory:', databaseUrl: '', auditKey: '', auditAnchorCommand: 'exit 3' });
      stores.push(unreachable);
      const anchorLog = new AuditLog(unreachable);
      await anchorLog.append(warning(1));
      await expect(anchorLog.close()).resolves.toBeUndefined();

      const keyDir = join(dataDir, 'garbled');
      const garbled = await openStore({ dataDir: keyDir, databaseUrl: '', auditKey: '', auditCheckpointFile: '' });
      stores.push(garbled);
      writeFileSync(join(keyDir, 'audit.key'), 'too short\n');
      await expect(new AuditLog(garbled).close()).rejects.toMatchObject({ code: 'AUDIT_KEY_UNREADABLE' });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
