import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import { observeTransactions, type TransactionKind, UnitOfWork } from '../../src/core/store/index.ts';
import { postgresTestStore, type TestStore, testDatabaseUrl } from '../../src/testing/index.ts';

/** The advisory lock replicas' sealers share (audit-log.ts). */
const SEALER_LOCK_KEY = 0x6f707367;

async function pendingRows(created: TestStore): Promise<number> {
  const { rows } = await sql<{ count: string }>`select count(*) as count from audit_pending`.execute(created.store.db);
  return Number(rows[0]!.count);
}

/** Sessions queued for an advisory lock (a sealer waiting in line behind another replica). */
async function waitingForAdvisoryLocks(created: TestStore): Promise<number> {
  const { rows } = await sql<{ count: string }>`
    select count(*) as count from pg_locks where locktype = 'advisory' and not granted`.execute(created.store.db);
  return Number(rows[0]!.count);
}

describe.skipIf(!testDatabaseUrl)('the background sealer beside other replicas (PostgreSQL)', () => {
  let created: TestStore | undefined;
  let holder: pg.Client | undefined;
  afterEach(async () => {
    observeTransactions(undefined);
    await holder?.end().catch(() => {});
    await created?.dispose();
  });

  it('does not queue for the lock while another replica seals, nor retry at once; it seals what is left once the lock is free', async () => {
    created = await postgresTestStore.create();
    const { store } = created;
    holder = new pg.Client({ connectionString: created.url });
    await holder.connect();
    await holder.query('begin');
    await holder.query('select pg_advisory_xact_lock($1)', [SEALER_LOCK_KEY]);
    let ownSeals = 0;
    observeTransactions({ transaction: (_ms, _retries, _store, kind) => (ownSeals += kind === 'audit-seal' ? 1 : 0) });

    // No turn commits here: after the seal delay the sealer tries in a transaction of its own.
    const audit = new AuditLog(store, undefined, { sealDelayMs: 500 });
    for (let index = 0; index < 5; index += 1) await audit.append({ type: 'probe', actor: 'system', payload: { index } });
    for (let attempt = 0; attempt < 300 && ownSeals === 0; attempt += 1) await sleep(10);
    expect(ownSeals).toBeGreaterThan(0);
    // Busy, it waits a seal delay before it tries again: thirty round trips see at most one more try.
    const tried = ownSeals;
    for (let index = 0; index < 30; index += 1) await sql`select 1`.execute(store.db);
    expect(ownSeals - tried).toBeLessThanOrEqual(1);
    expect(await waitingForAdvisoryLocks(created)).toBe(0);
    expect(await pendingRows(created)).toBe(5);

    await holder.query('commit');
    for (let attempt = 0; attempt < 100 && (await pendingRows(created)) > 0; attempt += 1) await sleep(50);
    expect(await pendingRows(created)).toBe(0);
    expect(await audit.verify()).toMatchObject({ ok: true });
    await audit.close();
  });

  it('riding on turns, it takes the lock only if free: the journal waits while another replica seals, and the first commit after goes', async () => {
    created = await postgresTestStore.create();
    const { store } = created;
    holder = new pg.Client({ connectionString: created.url });
    await holder.connect();
    await holder.query('begin');
    await holder.query('select pg_advisory_xact_lock($1)', [SEALER_LOCK_KEY]);
    const kinds: TransactionKind[] = [];
    observeTransactions({ transaction: (_ms, _retries, _store, kind) => kinds.push(kind) });
    // A seal delay long enough that turns always commit within it: the sealer rides, never seals alone.
    const audit = new AuditLog(store, undefined, { sealDelayMs: 500 });
    const recorded = new UnitOfWork();
    for (let index = 0; index < 5; index += 1) audit.record(recorded, { type: 'probe', actor: 'system', payload: { index } });
    await recorded.commit(store);
    const turn = async () => {
      const unit = new UnitOfWork();
      unit.write(async () => {});
      await unit.commit(store);
      await sleep(20);
    };

    // Turns for more than two seal delays: each ride finds the lock taken and leaves the journal alone.
    for (let index = 0; index < 40; index += 1) await turn();
    expect(await pendingRows(created)).toBe(5);
    expect(await waitingForAdvisoryLocks(created)).toBe(0);

    await holder.query('commit');
    for (let attempt = 0; attempt < 200 && (await pendingRows(created)) > 0; attempt += 1) await turn();
    expect(await pendingRows(created)).toBe(0);
    expect(kinds.filter((kind) => kind === 'audit-seal')).toEqual([]);
    expect(await audit.verify()).toMatchObject({ ok: true });
    await audit.close();
  });

  it('a reader waits in line for another replica’s seal, then sees every event (readers seal first)', async () => {
    created = await postgresTestStore.create();
    const { store } = created;
    holder = new pg.Client({ connectionString: created.url });
    await holder.connect();
    await holder.query('begin');
    await holder.query('select pg_advisory_xact_lock($1)', [SEALER_LOCK_KEY]);
    // Only the reader seals here: the background sealer waits an hour.
    const audit = new AuditLog(store, undefined, { sealDelayMs: 3_600_000 });
    for (let index = 0; index < 3; index += 1) await audit.append({ type: 'probe', actor: 'system', payload: { index } });
    const listing = audit.list();
    let queued = 0;
    for (let attempt = 0; attempt < 200 && queued === 0; attempt += 1) {
      await sleep(10);
      queued = await waitingForAdvisoryLocks(created);
    }
    expect(queued).toBe(1);
    await holder.query('commit');
    expect((await listing).map((event) => event.payload.index)).toEqual([0, 1, 2]);
    await audit.close();
  });
});
