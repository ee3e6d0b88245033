import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { auditCommand } from '../../src/cli/commands/audit.ts';
import { AuditKey } from '../../src/core/audit/audit-key.ts';
import { type AuditCheckpoint, AuditLog, hashAuditEvent, observeCheckpoints } from '../../src/core/audit/index.ts';
import { createRuntime } from '../../src/core/runtime/index.ts';
import { openStore, runMigrations, type Store } from '../../src/core/store/index.ts';
import { coreInitialMigration } from '../../src/core/store/migrations/core-001-initial.ts';
import { runnerLeasesMigration } from '../../src/core/store/migrations/core-002-runner-leases.ts';
import { auditJournalMigration } from '../../src/core/store/migrations/core-003-audit-journal.ts';
import { openSqlite } from '../../src/core/store/node-sqlite-dialect.ts';
import { createLedgerAgent, createLedgerModel, type LedgerRecorder, postgresTestStore, testDatabaseUrl } from '../../src/testing/index.ts';

/** A store with its own data directory (audit key and checkpoint file), as `opsgate serve` opens it. */
interface Fixture {
  readonly store: Store;
  readonly dataDir: string;
  readonly env: Record<string, string>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function openFixture(dialect: 'sqlite' | 'postgres'): Promise<Fixture> {
  const dataDir = mkdtempSync(join(tmpdir(), 'opsgate-audit-'));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  let databaseUrl = '';
  if (dialect === 'postgres') {
    const database = await postgresTestStore.create();
    cleanups.push(() => database.dispose());
    databaseUrl = database.url!;
  }
  const env = { OPSGATE_DATA_DIR: dataDir, OPSGATE_DATABASE_URL: databaseUrl };
  const store = await openStore({ dataDir, databaseUrl, auditKey: '', auditCheckpointFile: '', poolSize: 2 });
  cleanups.push(() => store.close());
  return { store, dataDir, env };
}

/** `count` events sealed by a log that signs a checkpoint every 10 events, then closed (which anchors the head). */
async function sealedChain(fixture: Fixture, count = 100): Promise<void> {
  const audit = new AuditLog(fixture.store, undefined, { checkpointEveryEvents: 10 });
  for (let i = 1; i <= count; i += 1) {
    await audit.append({
      sessionId: `s${i % 7}`,
      type: 'tool_approved',
      actor: 'user:john_doe',
      payload: { callId: `c${i}`, approver: 'john_doe' },
    });
    if (i % 10 === 0) await audit.seal();
  }
  await audit.close();
}

/** `opsgate audit verify` as a separate handle on the store, the way an operator runs it. */
async function cliVerify(fixture: Fixture): Promise<{ code: number; stdout: string; stderr: string }> {
  await fixture.store.flush();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => (out += chunk));
  stderr.on('data', (chunk) => (err += chunk));
  const code = await auditCommand.run(['verify'], { stdout, stderr, stdin: new PassThrough(), env: fixture.env });
  return { code, stdout: out, stderr: err };
}

/** What the review did: changes stored events and recomputes every later hash with the exported function. */
async function rehashChain(store: Store, fromSeq: number): Promise<void> {
  const rows = await store.db.selectFrom('audit_events').selectAll().orderBy('seq').execute();
  let prev = rows.find((r) => Number(r.seq) === fromSeq - 1)?.hash ?? '0'.repeat(64);
  for (const row of rows.filter((r) => Number(r.seq) >= fromSeq)) {
    const hash = hashAuditEvent(prev, {
      seq: Number(row.seq),
      sessionId: row.session_id,
      type: row.type,
      actor: row.actor,
      payload: row.payload,
      createdAt: row.created_at,
    });
    await store.db.updateTable('audit_events').set({ prev_hash: prev, hash }).where('seq', '=', row.seq).execute();
    prev = hash;
  }
}

const dialects: Array<'sqlite' | 'postgres'> = testDatabaseUrl ? ['sqlite', 'postgres'] : ['sqlite'];

describe.each(dialects)('audit integrity (%s)', (dialect) => {
  it('a clean chain verifies against its signed checkpoints, in the store and in a 0600 file outside it', async () => {
    const fixture = await openFixture(dialect);
    const heard: AuditCheckpoint[] = [];
    const stop = observeCheckpoints(fixture.store, (checkpoint) => heard.push(checkpoint));
    await sealedChain(fixture);
    stop();
    expect(heard.at(-1)).toMatchObject({ seq: 100, macsFrom: 1 });
    const result = await new AuditLog(fixture.store).verify();
    // PostgreSQL without an external anchor says what it cannot detect (test/core/audit-anchor.test.ts has one).
    const unanchored = dialect === 'postgres' ? [expect.stringContaining('no external checkpoint anchor was read')] : [];
    expect(result).toMatchObject({ ok: true, checked: 100, notices: unanchored });
    expect(result.checkpoints).toBeGreaterThanOrEqual(10);
    const file = join(fixture.dataDir, 'audit-checkpoints.jsonl');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(fixture.dataDir, 'audit.key')).mode & 0o777).toBe(0o600);
    const last = JSON.parse(readFileSync(file, 'utf8').trim().split('\n').at(-1)!) as { seq: number; signature: string };
    expect(last.seq).toBe(100);
    // The key never reaches the store: no table holds its bytes.
    const key = readFileSync(join(fixture.dataDir, 'audit.key'), 'utf8').trim();
    const dump = JSON.stringify([
      await fixture.store.db.selectFrom('audit_events').selectAll().execute(),
      await fixture.store.db.selectFrom('audit_checkpoints').selectAll().execute(),
    ]);
    expect(dump).not.toContain(key);
    expect(dump).not.toContain(Buffer.from(key, 'base64').toString('hex'));
    const cli = await cliVerify(fixture);
    expect(cli).toMatchObject({ code: 0, stderr: dialect === 'postgres' ? expect.stringContaining('no external checkpoint anchor') : '' });
    expect(cli.stdout).toMatch(/^audit chain OK: 100 events verified against \d+ signed checkpoint\(s\)/);
  });

  it('tail truncation: the chain is shorter than its last checkpoint, even with the store checkpoints deleted too', async () => {
    const fixture = await openFixture(dialect);
    await sealedChain(fixture);
    await fixture.store.db.deleteFrom('audit_events').where('seq', '>', 90).execute();
    const result = await new AuditLog(fixture.store).verify();
    expect(result).toMatchObject({ ok: false, checked: 90 });
    expect(result.reason).toMatch(/ends at event 90, but the checkpoint .* covers 100 events: the last 10 were deleted/);
    await fixture.store.db.deleteFrom('audit_checkpoints').execute();
    const cli = await cliVerify(fixture);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toMatch(/^audit chain BROKEN at event 91: the chain ends at event 90, .*audit-checkpoints\.jsonl.*deleted.*\n$/);
    expect(cli.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('checkpoints gone from the store and the file, tail deleted: events sealed with MACs and no checkpoint is a failure (review M2-new)', async () => {
    const fixture = await openFixture(dialect);
    await sealedChain(fixture);
    await fixture.store.db.deleteFrom('audit_events').where('seq', '>', 70).execute();
    await fixture.store.db.deleteFrom('audit_checkpoints').execute();
    unlinkSync(join(fixture.dataDir, 'audit-checkpoints.jsonl'));
    const result = await new AuditLog(fixture.store).verify();
    expect(result).toMatchObject({ ok: false, firstBrokenSeq: 1 });
    expect(result.reason).toMatch(/event 1 carries a journal MAC, .* but no signed checkpoint was found .*: they were deleted/);
    const cli = await cliVerify(fixture);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toMatch(/^audit chain BROKEN at event 1: /);
  });

  it('the store keeps its checkpoints but the checkpoint file beside it is gone: a failure, not a notice (review M2-new)', async () => {
    const fixture = await openFixture(dialect);
    await sealedChain(fixture);
    unlinkSync(join(fixture.dataDir, 'audit-checkpoints.jsonl'));
    const result = await new AuditLog(fixture.store).verify();
    if (dialect === 'sqlite') {
      expect(result.ok).toBe(false);
      expect(result.reason).toMatch(/audit-checkpoints\.jsonl.* holds none of this store's \d+ checkpoint\(s\)/);
    } else {
      // A replica that never held the sealers' lock has no file of its own: the store's checkpoints stand, said as a notice.
      expect(result.ok).toBe(true);
      expect(result.notices?.join('\n')).toMatch(/audit-checkpoints\.jsonl/);
    }
  });

  it('a wiped table: no events while signed checkpoints exist', async () => {
    const fixture = await openFixture(dialect);
    await sealedChain(fixture);
    await fixture.store.db.deleteFrom('audit_events').execute();
    await fixture.store.db.deleteFrom('audit_checkpoints').execute();
    const result = await new AuditLog(fixture.store).verify();
    expect(result.ok).toBe(false);
    expect(result.reason).toMatch(
      /the audit log is empty, but \d+ signed checkpoint\(s\) exist \(the last at event 100, .*\): its events were deleted/,
    );
    expect((await cliVerify(fixture)).code).toBe(1);
  });

  it('journal forgery: a row no opsgate transaction wrote is sealed as audit_journal_forgery, never as what it claims', async () => {
    const fixture = await openFixture(dialect);
    await sealedChain(fixture);
    await sql`insert into audit_pending (session_id, type, actor, payload, created_at) values (${'s1'}, ${'tool_approved'}, ${'user:alice'}, ${'{"approver":"alice","callId":"c5"}'}, ${new Date().toISOString()})`.execute(
      fixture.store.db,
    );
    const cli = await cliVerify(fixture);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toMatch(
      /^audit chain BROKEN at event 101: event 101 records a forged journal row: journal row \d+: it carries no MAC; it was not written by opsgate with this store's audit key/,
    );
    const audit = new AuditLog(fixture.store);
    expect(await audit.list({ actor: 'user:alice' })).toEqual([]);
    const [forgery] = await audit.list({ type: 'audit_journal_forgery' });
    expect(forgery?.payload).toMatchObject({ claimed: { type: 'tool_approved', actor: 'user:alice' } });
  });

  it('journal forgery with a made-up MAC, and a copied row replayed with its genuine MAC', async () => {
    const fixture = await openFixture(dialect);
    await sealedChain(fixture, 20);
    const [sample] = await fixture.store.db.selectFrom('audit_events').selectAll().where('seq', '=', 5).execute();
    const [keyId, nonce] = sample!.mac!.split('.');
    await fixture.store.db
      .insertInto('audit_pending')
      .values({
        session_id: 's1',
        type: 'tool_approved',
        actor: 'user:alice',
        payload: '{}',
        created_at: sample!.created_at,
        mac: `${keyId}.${nonce}x.AAAA`,
      })
      .execute();
    const forged = await new AuditLog(fixture.store).verify();
    expect(forged).toMatchObject({ ok: false, firstBrokenSeq: 21 });
    expect(forged.reason).toMatch(/forged journal row: journal row \d+: its MAC does not match its content; it was not written/);

    const replayFixture = await openFixture(dialect);
    await sealedChain(replayFixture, 20);
    const [original] = await replayFixture.store.db.selectFrom('audit_events').selectAll().where('seq', '=', 5).execute();
    const { session_id, type, actor, payload, created_at, mac } = original!;
    await replayFixture.store.db.insertInto('audit_pending').values({ session_id, type, actor, payload, created_at, mac }).execute();
    const replayed = await new AuditLog(replayFixture.store).verify();
    expect(replayed).toMatchObject({ ok: false, firstBrokenSeq: 21 });
    expect(replayed.reason).toBe('event 21 repeats the journal row of event 5 (a copied row)');
  });

  it('re-hashing: an edited event with every later hash recomputed fails its MAC', async () => {
    const fixture = await openFixture(dialect);
    await sealedChain(fixture);
    await fixture.store.db
      .updateTable('audit_events')
      .set({ payload: '{"approver":"alice","callId":"c6"}' })
      .where('seq', '=', 6)
      .execute();
    await rehashChain(fixture.store, 6);
    const result = await new AuditLog(fixture.store).verify();
    expect(result).toMatchObject({ ok: false, firstBrokenSeq: 6 });
    expect(result.reason).toBe('event 6 does not verify: its MAC does not match its content (edited and re-hashed without the key)');
    // Dropping the MACs does not help: every event since the first checkpointed one must carry one.
    await fixture.store.db.updateTable('audit_events').set({ mac: null }).execute();
    const stripped = await new AuditLog(fixture.store).verify();
    expect(stripped.reason).toMatch(/^event 1 carries no MAC although every event from 1 on was sealed with one$/);
    expect((await cliVerify(fixture)).code).toBe(1);
  });

  it('re-hashing: an event deleted and the rest renumbered keeps valid MACs but no longer matches the signed checkpoints', async () => {
    const fixture = await openFixture(dialect);
    await sealedChain(fixture);
    // The first checkpoint past the deleted event is where the rewrite shows: every 10 events, or
    // earlier when the background sealer happened to sign one first.
    const checkpointed = await fixture.store.db
      .selectFrom('audit_checkpoints')
      .select('seq')
      .where('seq', '>=', 6)
      .orderBy('seq')
      .execute();
    const firstCheckpoint = Number(checkpointed[0]!.seq);
    expect(firstCheckpoint).toBeLessThanOrEqual(10);
    await fixture.store.db.deleteFrom('audit_events').where('seq', '=', 6).execute();
    for (let seq = 7; seq <= 100; seq += 1)
      await fixture.store.db
        .updateTable('audit_events')
        .set({ seq: seq - 1 })
        .where('seq', '=', seq)
        .execute();
    await rehashChain(fixture.store, 6);
    const result = await new AuditLog(fixture.store).verify();
    expect(result).toMatchObject({ ok: false, firstBrokenSeq: firstCheckpoint });
    expect(result.reason).toMatch(
      new RegExp(`^event ${firstCheckpoint} differs from the checkpoint signed at .*: the chain was rewritten and re-hashed$`),
    );
    // Rewriting the stored checkpoints to match needs the key: their signatures fail.
    const rows = await fixture.store.db.selectFrom('audit_events').select(['seq', 'hash']).execute();
    for (const row of rows)
      await fixture.store.db.updateTable('audit_checkpoints').set({ hash: row.hash }).where('seq', '=', row.seq).execute();
    const resigned = await new AuditLog(fixture.store).verify();
    expect(resigned.reason).toMatch(
      /^the checkpoint at event \d+ \(in the store\) has an invalid signature: it was forged or edited without the audit key$/,
    );
  });

  it('cross-checks tool calls: an approved and executed call verifies; a call marked executed without its events does not', async () => {
    const fixture = await openFixture(dialect);
    const recorder: LedgerRecorder = { reads: 0, transfers: [] };
    const runtime = await createRuntime({ store: fixture.store, agents: [createLedgerAgent(recorder)], model: () => createLedgerModel() });
    cleanups.push(() => runtime.close());
    const bob = { userId: 2, username: 'bob', roles: ['user'] };
    const alice = { userId: 1, username: 'alice', roles: ['approver'] };
    const paid = await runtime.startSession({ agent: 'ledger', identity: bob });
    const first = await runtime.send(paid.id, 'pay bob 30', bob);
    await runtime.decide(paid.id, { type: 'approve', callId: first.interrupt!.callId }, alice);
    const refused = await runtime.startSession({ agent: 'ledger', identity: bob });
    const second = await runtime.send(refused.id, 'pay bob 40', bob);
    await runtime.decide(refused.id, { type: 'reject', callId: second.interrupt!.callId, reason: 'no' }, alice);
    const audit = new AuditLog(fixture.store);
    const clean = await audit.verify();
    expect(clean).toMatchObject({ ok: true });
    expect(clean.callsChecked).toBeGreaterThanOrEqual(3);

    await fixture.store.db
      .updateTable('tool_calls')
      .set({ status: 'executed', approved_by: 'alice', started_at: new Date().toISOString(), finished_at: new Date().toISOString() })
      .where('id', '=', second.interrupt!.callId)
      .execute();
    const result = await audit.verify();
    expect(result.ok).toBe(false);
    expect(result.reason).toBe(
      `1 tool call(s) lack their audit events: transfer call ${second.interrupt!.callId} (executed) has no tool_approved/tool_auto_approved, tool_executing, tool_executed event`,
    );
    const cli = await cliVerify(fixture);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toMatch(/^audit chain BROKEN: 1 tool call\(s\) lack their audit events/);
  });

  it('a missing or replaced key is named with what to do; the sealer refuses to extend a chain signed by another key', async () => {
    const fixture = await openFixture(dialect);
    await sealedChain(fixture, 20);
    const keyFile = join(fixture.dataDir, 'audit.key');
    const original = readFileSync(keyFile, 'utf8');
    unlinkSync(keyFile);
    const missing = await cliVerify(fixture);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(
      /signed checkpoints exist \(in the store\) but no audit key was found: restore the key that signed them \(OPSGATE_AUDIT_KEY or .*audit\.key\)/,
    );
    expect(existsSync(keyFile)).toBe(false);

    writeFileSync(keyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
    const rotated = await cliVerify(fixture);
    expect(rotated.stdout).toMatch(
      /was signed with audit key [0-9a-f]{16}, but the key loaded from .*audit\.key is [0-9a-f]{16}: restore the original key/,
    );
    const writer = new AuditLog(fixture.store);
    await expect(writer.assertKey()).rejects.toMatchObject({ code: 'AUDIT_KEY_MISMATCH' });
    await writer.append({ type: 'warning', actor: 'system', payload: {} });
    await expect(writer.seal()).rejects.toThrow(
      /Put the original key back \(OPSGATE_AUDIT_KEY, or the file .*audit\.key\) on every replica/,
    );
    // Closing still lets the store go (the event stays journaled; the next start names the key).
    await expect(writer.close()).resolves.toBeUndefined();

    // The original key back (here through the environment): the chain verifies up to the row the
    // wrong key wrote, which cannot be told from a forger's and is sealed as a forgery.
    unlinkSync(keyFile);
    const restored = { ...fixture, env: { ...fixture.env, OPSGATE_AUDIT_KEY: original.trim() } };
    const cli = await cliVerify(restored);
    expect(cli.stdout).toMatch(
      /^audit chain BROKEN at event 21: event 21 records a forged journal row: journal row \d+: its MAC was made with another audit key \(id [0-9a-f]{16}; this key is [0-9a-f]{16}\); it was not written by opsgate with this store's audit key \(20 events before it verified\)\n$/,
    );
  });
});

/** What the earlier sealer stored: `count` hashed events without MACs. */
async function legacyChain(fixture: Fixture, count: number): Promise<void> {
  let prev = '0'.repeat(64);
  for (let seq = 1; seq <= count; seq += 1) {
    const event = { seq, sessionId: null, type: 'warning', actor: 'system', payload: `{"n":${seq}}`, createdAt: new Date().toISOString() };
    const hash = hashAuditEvent(prev, event);
    await fixture.store.db
      .insertInto('audit_events')
      .values({
        seq,
        session_id: null,
        type: event.type,
        actor: event.actor,
        payload: event.payload,
        prev_hash: prev,
        hash,
        created_at: event.createdAt,
        mac: null,
      })
      .execute();
    prev = hash;
  }
}

describe('audit integrity with a chain sealed before the anchors existed', () => {
  it('CORE-AUDIT an edited event sealed before MACs existed is caught by its hash alone', async () => {
    const fixture = await openFixture('sqlite');
    await legacyChain(fixture, 5);
    await fixture.store.db.updateTable('audit_events').set({ payload: '{"n":"edited"}' }).where('seq', '=', 3).execute();
    const verdict = await new AuditLog(fixture.store).verify();
    expect(verdict).toMatchObject({ ok: false, firstBrokenSeq: 3 });
    expect(verdict.reason).toBe('event 3 was changed after it was written');
  });

  it('verifies with a notice, without a key or checkpoints; new events are anchored from then on', async () => {
    const fixture = await openFixture('sqlite');
    await legacyChain(fixture, 5);
    const legacy = await new AuditLog(fixture.store).verify();
    expect(legacy).toMatchObject({ ok: true, checked: 5 });
    expect(legacy.notices).toEqual([
      expect.stringMatching(
        /^no audit key \(OPSGATE_AUDIT_KEY or .*audit\.key\): journal MACs and checkpoint signatures cannot be checked$/,
      ),
      'no signed checkpoint yet: tail truncation and a wiped table cannot be detected before the first one',
      '5 event(s) were sealed before journal MACs existed: only their hash chain is checked',
    ]);
    const cli = await cliVerify(fixture);
    expect(cli.code).toBe(0);
    expect(cli.stderr).toMatch(/^notice: no audit key/);

    await sealedChain(fixture, 10);
    const anchored = await new AuditLog(fixture.store).verify();
    expect(anchored).toMatchObject({
      ok: true,
      checked: 15,
      notices: ['5 event(s) were sealed before journal MACs existed: only their hash chain is checked'],
    });
    const [checkpoint] = await fixture.store.db.selectFrom('audit_checkpoints').selectAll().orderBy('seq').limit(1).execute();
    expect(Number(checkpoint!.macs_from)).toBe(6);
  });

  it('the upgrade seals events journaled (without MACs) by the earlier version, so the journal holds only authenticated rows', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'opsgate-audit-upgrade-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const sqlite = openSqlite(join(dataDir, 'opsgate.db'));
    const earlier = new Kysely<unknown>({ dialect: sqlite.dialect });
    await runMigrations(earlier, 'sqlite', [coreInitialMigration, runnerLeasesMigration, auditJournalMigration]);
    for (const n of [1, 2, 3])
      await sql`insert into audit_pending (session_id, type, actor, payload, created_at) values (null, 'warning', 'system', ${`{"n":${n}}`}, ${new Date().toISOString()})`.execute(
        earlier,
      );
    await earlier.destroy();
    const store = await openStore({ dataDir, databaseUrl: '', auditKey: '', auditCheckpointFile: '' });
    cleanups.push(() => store.close());
    expect(await store.db.selectFrom('audit_pending').selectAll().execute()).toEqual([]);
    const audit = new AuditLog(store);
    await audit.append({ type: 'warning', actor: 'system', payload: { n: 4 } });
    await audit.close();
    const result = await audit.verify();
    expect(result).toMatchObject({
      ok: true,
      checked: 4,
      notices: ['3 event(s) were sealed before journal MACs existed: only their hash chain is checked'],
    });
    expect((await audit.list()).map((event) => event.type)).toEqual(['warning', 'warning', 'warning', 'warning']);
  });
});

describe('audit checkpoint file', () => {
  it('an unwritable checkpoint file is named with what to do; the events stay sealed and anchored in the store', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'opsgate-audit-file-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    // A directory where the file should be: appending fails whoever runs the test (root included).
    const store = await openStore({ dataDir, databaseUrl: '', auditKey: '', auditCheckpointFile: dataDir });
    cleanups.push(() => store.close());
    const audit = new AuditLog(store);
    await audit.append({ type: 'warning', actor: 'system', payload: {} });
    await expect(audit.seal()).rejects.toMatchObject({ code: 'AUDIT_CHECKPOINT_FILE_UNWRITABLE' });
    expect(await store.db.selectFrom('audit_checkpoints').select('seq').execute()).toEqual([{ seq: 1 }]);
    expect((await audit.list()).map((event) => event.type)).toEqual(['warning']);
    await expect(audit.close()).resolves.toBeUndefined();
  });
});

// Each check of `audit verify` with the others out of the way: pre-MAC events (only the hash chain
// guards them), a checkpoint file with junk in it, forged call rows, a store without anchors.
describe('audit verify against an external anchor (any dialect; here SQLite)', () => {
  async function anchored(): Promise<{ store: Store; anchorFile: string }> {
    const dataDir = mkdtempSync(join(tmpdir(), 'opsgate-audit-anchor-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const anchorFile = join(dataDir, 'anchor.jsonl');
    writeFileSync(anchorFile, '');
    const store = await openStore({
      dataDir,
      databaseUrl: '',
      auditKey: '',
      auditCheckpointFile: '',
      auditAnchorCommand: `cat >> '${anchorFile}'`,
      auditAnchorReadCommand: `cat '${anchorFile}'`,
    });
    cleanups.push(() => store.close());
    return { store, anchorFile };
  }

  it('an anchor still empty before the first checkpoint is no failure; lines that hold no checkpoint are skipped with a notice', async () => {
    const { store, anchorFile } = await anchored();
    await legacyChain({ store, dataDir: '', env: {} }, 3);
    expect(await new AuditLog(store).verify()).toMatchObject({ ok: true, checked: 3, checkpoints: 0 });
    const audit = new AuditLog(store);
    await audit.append({ type: 'warning', actor: 'system', payload: { n: 4 } });
    await audit.close();
    const clean = await new AuditLog(store).verify();
    expect((clean.notices ?? []).filter((notice) => notice.includes('held no checkpoint'))).toEqual([]);
    appendFileSync(anchorFile, 'loghost: -- MARK --\n');
    const verdict = await new AuditLog(store).verify();
    expect(verdict).toMatchObject({ ok: true, checked: 4 });
    expect(verdict.notices).toContain(
      '1 line(s) of the external anchor (OPSGATE_AUDIT_ANCHOR_READ_COMMAND) held no checkpoint and were skipped',
    );
  });

  it('a --checkpoints copy that does not exist, and a checkpoint table that cannot be read, are failures that say what to do', async () => {
    const { store, anchorFile } = await anchored();
    await sealedChain({ store, dataDir: '', env: {} }, 10);
    const missing = join(anchorFile, '..', 'no-such-copy.jsonl');
    expect(await new AuditLog(store).verify({ checkpointsFile: missing })).toMatchObject({
      ok: false,
      reason: `${missing} (--checkpoints) does not exist: name the copy of the external anchor to verify against`,
    });
    await store.db.schema.dropTable('audit_checkpoints').execute();
    const verdict = await new AuditLog(store).verify();
    expect(verdict).toMatchObject({ ok: false, checked: 0 });
    expect(verdict.reason).toMatch(/^the store's checkpoint table \(audit_checkpoints\) cannot be read \(.+\): it was dropped or damaged$/);
  });
});

describe('audit verify names each break on its own', () => {
  it('an event missing from the middle of the chain is named as missing', async () => {
    const fixture = await openFixture('sqlite');
    await legacyChain(fixture, 5);
    await fixture.store.db.deleteFrom('audit_events').where('seq', '=', 3).execute();
    expect(await new AuditLog(fixture.store).verify()).toMatchObject({
      ok: false,
      checked: 2,
      firstBrokenSeq: 3,
      reason: 'event 3 is missing (next stored is 4)',
    });
  });

  it('an event whose stored link to the previous one was edited is named, though its own hash still holds', async () => {
    const fixture = await openFixture('sqlite');
    await legacyChain(fixture, 5);
    await fixture.store.db
      .updateTable('audit_events')
      .set({ prev_hash: 'f'.repeat(64) })
      .where('seq', '=', 3)
      .execute();
    expect(await new AuditLog(fixture.store).verify()).toMatchObject({
      ok: false,
      firstBrokenSeq: 3,
      reason: "event 3 does not link to the previous event's hash",
    });
  });

  it.each(['Bad type', 'bad Type!'])('an event re-hashed with the invalid type %j is named', async (type) => {
    const fixture = await openFixture('sqlite');
    await legacyChain(fixture, 3);
    await fixture.store.db.updateTable('audit_events').set({ type }).where('seq', '=', 2).execute();
    await rehashChain(fixture.store, 2);
    expect(await new AuditLog(fixture.store).verify()).toMatchObject({
      ok: false,
      firstBrokenSeq: 2,
      reason: 'event 2 has an invalid type',
    });
  });

  it("an agent's own event type (lower case, digits, _ and .) verifies", async () => {
    const fixture = await openFixture('sqlite');
    await legacyChain(fixture, 3);
    await fixture.store.db.updateTable('audit_events').set({ type: 'helm.plan_2' }).where('seq', '=', 2).execute();
    await rehashChain(fixture.store, 2);
    expect(await new AuditLog(fixture.store).verify()).toMatchObject({ ok: true, checked: 3 });
  });

  it('skips unreadable lines of the checkpoint file with a notice, and checks against the rest', async () => {
    const fixture = await openFixture('sqlite');
    await sealedChain(fixture, 20);
    const file = join(fixture.dataDir, 'audit-checkpoints.jsonl');
    appendFileSync(file, 'not a checkpoint\n');
    expect(await new AuditLog(fixture.store).verify()).toMatchObject({
      ok: true,
      checked: 20,
      notices: [`1 unreadable line(s) in ${file} were skipped`],
    });
  });

  it('names both places it looked when MAC-carrying events have no checkpoint anywhere', async () => {
    const fixture = await openFixture('sqlite');
    await sealedChain(fixture, 20);
    const file = join(fixture.dataDir, 'audit-checkpoints.jsonl');
    await fixture.store.db.deleteFrom('audit_checkpoints').execute();
    writeFileSync(file, '');
    expect((await new AuditLog(fixture.store).verify()).reason).toBe(
      `event 1 carries a journal MAC, so the sealer that wrote it signed a checkpoint with it, but no signed checkpoint was found in the store or ${file}: they were deleted; restore them from a backup or an off-host copy`,
    );
  });

  it('an in-memory store (no data directory) verifies with its throwaway key, so no notice asks for a key', async () => {
    const store = await openStore({ sqlitePath: ':memory:', databaseUrl: '', auditKey: '' });
    cleanups.push(() => store.close());
    expect(store.auditAnchors).toBeUndefined();
    await new AuditLog(store).append({ sessionId: null, type: 'warning', actor: 'system', payload: { n: 1 } });
    expect(await new AuditLog(store).verify()).toMatchObject({ ok: true, checked: 1, notices: [] });
  });

  it('a call row forged into approved, executing, failed or unknown without its audit events is named; a deleted call row is not an error', async () => {
    const fixture = await openFixture('sqlite');
    const recorder: LedgerRecorder = { reads: 0, transfers: [] };
    const runtime = await createRuntime({ store: fixture.store, agents: [createLedgerAgent(recorder)], model: () => createLedgerModel() });
    cleanups.push(() => runtime.close());
    const bob = { userId: 2, username: 'bob', roles: ['user'] };
    const alice = { userId: 1, username: 'alice', roles: ['approver'] };
    const paid = await runtime.startSession({ agent: 'ledger', identity: bob });
    const first = await runtime.send(paid.id, 'pay bob 30', bob);
    await runtime.decide(paid.id, { type: 'approve', callId: first.interrupt!.callId }, alice);
    const refused = await runtime.startSession({ agent: 'ledger', identity: bob });
    const second = await runtime.send(refused.id, 'pay bob 40', bob);
    const callId = second.interrupt!.callId;
    await runtime.decide(refused.id, { type: 'reject', callId, reason: 'no' }, alice);
    const audit = new AuditLog(fixture.store);
    const forge = async (status: string, approvedBy: string | null) => {
      await fixture.store.db
        .updateTable('tool_calls')
        .set({ status, approved_by: approvedBy, started_at: null })
        .where('id', '=', callId)
        .execute();
      return (await audit.verify()).reason;
    };
    const gap = (status: string, events: string) =>
      `1 tool call(s) lack their audit events: transfer call ${callId} (${status}) has no ${events} event`;
    // Each gap closes once the event it names is in the chain: every type of it counts as evidence.
    const recorded = async (type: string) => {
      await audit.append({ sessionId: refused.id, type, actor: 'system', payload: { callId } });
      return (await audit.verify()).reason;
    };
    expect(await forge('approved', 'mallory')).toBe(gap('approved', 'tool_approved/tool_auto_approved'));
    expect(await recorded('tool_auto_approved')).toBeUndefined();
    expect(await forge('executing', null)).toBe(gap('executing', 'tool_executing'));
    expect(await recorded('tool_executing')).toBeUndefined();
    expect(await forge('failed', null)).toBe(gap('failed', 'tool_failed'));
    expect(await recorded('tool_failed')).toBeUndefined();
    expect(await forge('unknown', null)).toBe(gap('unknown', 'tool_unknown'));
    expect(await recorded('tool_unknown')).toBeUndefined();
    await fixture.store.db.deleteFrom('tool_calls').execute();
    expect(await audit.verify()).toMatchObject({ ok: true, callsChecked: 0 });
  });

  it.each([
    ['a reason that is not text', '{"reason":42}'],
    ['a payload that is not JSON', 'not json'],
  ])('a forgery record with %s is still named as a forgery', async (_, payload) => {
    const fixture = await openFixture('sqlite');
    await legacyChain(fixture, 3);
    await fixture.store.db.updateTable('audit_events').set({ type: 'audit_journal_forgery', payload }).where('seq', '=', 2).execute();
    await rehashChain(fixture.store, 2);
    expect(await new AuditLog(fixture.store).verify()).toMatchObject({
      ok: false,
      checked: 1,
      firstBrokenSeq: 2,
      reason: 'event 2 records a forged journal row: see the event',
    });
  });

  it('a journal that cannot be sealed (a key other than the one that signed the checkpoints) is named, and nothing is checked', async () => {
    const fixture = await openFixture('sqlite');
    await sealedChain(fixture, 10);
    await fixture.store.db
      .insertInto('audit_pending')
      .values({ session_id: null, type: 'warning', actor: 'system', payload: '{}', created_at: new Date().toISOString(), mac: null })
      .execute();
    const otherKey = new AuditKey(randomBytes(32), 'a key from another install');
    const verdict = await new AuditLog(fixture.store, undefined, { key: otherKey }).verify();
    expect(verdict).toMatchObject({ ok: false, checked: 0 });
    expect(verdict.reason).toMatch(/^the journal could not be sealed: .*audit key/);
    expect(verdict.firstBrokenSeq).toBeUndefined();
  });
});
