import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import { createRuntime } from '../../src/core/runtime/index.ts';
import { openStore, runMigrations, type Store, type StoreMigration } from '../../src/core/store/index.ts';
import { coreInitialMigration } from '../../src/core/store/migrations/core-001-initial.ts';
import { runnerLeasesMigration } from '../../src/core/store/migrations/core-002-runner-leases.ts';
import { auditJournalMigration } from '../../src/core/store/migrations/core-003-audit-journal.ts';
import { modelUsageMigration } from '../../src/core/store/migrations/core-010-model-usage.ts';
import { auditAnchorsMigration } from '../../src/core/store/migrations/core-030-audit-anchors.ts';
import { tokenScopeExpiryMigration } from '../../src/core/store/migrations/core-040-token-scope-expiry.ts';
import { oauthMigration } from '../../src/core/store/migrations/core-090-oauth.ts';
import { fewerPagesMigration } from '../../src/core/store/migrations/core-100-fewer-pages.ts';
import { openSqlite } from '../../src/core/store/node-sqlite-dialect.ts';
import { createLedgerAgent, createLedgerModel, postgresTestStore, testStoreFactories } from '../../src/testing/index.ts';

/** The core migrations released before `core-100-fewer-pages`. */
const EARLIER: readonly StoreMigration[] = [
  coreInitialMigration,
  runnerLeasesMigration,
  auditJournalMigration,
  modelUsageMigration,
  auditAnchorsMigration,
  tokenScopeExpiryMigration,
  oauthMigration,
];

const APPEND_ONLY_TABLES = ['messages', 'session_events', 'model_usage'] as const;
const AT = '2026-11-27T10:00:00.000Z';
const STATE = JSON.stringify({
  v: 1,
  username: 'seven',
  roles: ['user'],
  agentState: {},
  phaseHistory: [],
  options: {},
  pendingCalls: [],
  turnSteps: 0,
});

/** Rows an earlier version stored: a session with its history, usage and two calls (one left executing). */
async function storeEarlierRows(db: Kysely<unknown>): Promise<void> {
  await sql`insert into sessions (id, user_id, agent, pillar, route, phase, role, title, status, steps, state, interrupt, version, created_at, updated_at)
    values ('s-old', 7, 'ledger', 'ledger', 'workflow', 'main', 'user', 'old', 'idle', 2, ${STATE}, null, 3, ${AT}, ${AT})`.execute(db);
  for (const seq of [1, 2, 3]) {
    await sql`insert into messages (session_id, seq, role, content, created_at) values ('s-old', ${seq}, 'user', ${`message ${seq}`}, ${AT})`.execute(
      db,
    );
    await sql`insert into session_events (session_id, seq, type, data, created_at) values ('s-old', ${seq}, 'turn', ${`{"n":${seq}}`}, ${AT})`.execute(
      db,
    );
  }
  await sql`insert into model_usage (session_id, turn, provider, model, input_tokens, output_tokens, cost_usd, created_at)
    values ('s-old', 1, 'mock', 'mock', 10, 20, null, ${AT})`.execute(db);
  for (const [id, status] of [
    ['c-done', 'executed'],
    ['c-stuck', 'executing'],
  ] as const)
    await sql`insert into tool_calls (id, session_id, seq, tool, args, args_hash, mutability, risk, status, requested_by, created_at)
      values (${id}, 's-old', ${id === 'c-done' ? 1 : 2}, 'transfer', '{}', 'h', 'mutable', 'high', ${status}, 7, ${AT})`.execute(db);
  // The highest message is gone: a table with AUTOINCREMENT never hands its id out again.
  await sql`delete from messages where seq = 3`.execute(db);
}

async function snapshot(db: Kysely<unknown>) {
  const rows: Record<string, unknown[]> = {};
  for (const table of [...APPEND_ONLY_TABLES, 'sessions', 'tool_calls'])
    rows[table] = (await sql`select * from ${sql.table(table)} order by 1`.execute(db)).rows.map((row) => ({ ...(row as object) }));
  return rows;
}

async function indexNames(store: Store): Promise<string[]> {
  const rows =
    store.dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name in ('sessions', 'tool_calls')`.execute(
          store.db,
        )
      : await sql<{ name: string }>`select indexname as name from pg_indexes where tablename in ('sessions', 'tool_calls')`.execute(
          store.db,
        );
  return rows.rows.map((row) => row.name);
}

/** The query plan's text; on PostgreSQL with sequential scans priced out, so a usable index shows (the tables are tiny). */
async function plan(store: Store, query: string): Promise<string> {
  if (store.dialect === 'sqlite')
    return (await sql<{ detail: string }>`explain query plan ${sql.raw(query)}`.execute(store.db)).rows.map((row) => row.detail).join('\n');
  return store.db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    return (await sql<{ 'QUERY PLAN': string }>`explain ${sql.raw(query)}`.execute(trx)).rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

describe('core-100-fewer-pages: a database made by the earlier migrations, with rows, upgrades in place', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A store whose schema the earlier migrations made and whose rows an earlier version wrote, then opened by this version. */
  async function upgradedStore(dialect: 'sqlite' | 'postgres') {
    if (dialect === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'opsgate-fewer-pages-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const sqlitePath = join(dir, 'opsgate.db');
      const earlier = new Kysely<unknown>({ dialect: openSqlite(sqlitePath).dialect });
      await runMigrations(earlier, 'sqlite', EARLIER);
      await storeEarlierRows(earlier);
      const before = await snapshot(earlier);
      await earlier.destroy();
      const store = await openStore({ sqlitePath, databaseUrl: '' });
      cleanups.push(() => store.close());
      return { store, before };
    }
    const created = await postgresTestStore.create();
    cleanups.push(() => created.dispose());
    const db = created.store.db as unknown as Kysely<unknown>;
    await sql`drop schema public cascade`.execute(db);
    await sql`create schema public`.execute(db);
    await runMigrations(db, 'postgres', EARLIER);
    await storeEarlierRows(db);
    const before = await snapshot(db);
    expect(await created.store.migrate([])).toEqual(['core-100-fewer-pages']);
    return { store: created.store, before };
  }

  it.each(testStoreFactories().map((factory) => [factory.dialect] as const))(
    'keeps every row, swaps the indexes, and the upgraded store runs a round trip that verifies (%s)',
    async (dialect) => {
      const { store, before } = await upgradedStore(dialect);
      const db = store.db as unknown as Kysely<unknown>;
      expect(await snapshot(db)).toEqual(before);

      const indexes = await indexNames(store);
      expect(indexes).toEqual(expect.arrayContaining(['sessions_owner', 'tool_calls_executing']));
      expect(indexes).not.toContain('sessions_user');
      expect(indexes).not.toContain('tool_calls_status');
      expect(await plan(store, `select * from tool_calls where status = 'executing'`)).toMatch(/tool_calls_executing/);
      expect(await plan(store, `select * from sessions where user_id = 7 order by updated_at desc limit 500`)).toMatch(/sessions_owner/);

      if (dialect === 'sqlite') {
        const definitions = await sql<{
          sql: string;
        }>`select sql from sqlite_master where type = 'table' and name in ('messages', 'session_events', 'model_usage', 'audit_pending')`.execute(
          db,
        );
        expect(definitions.rows).toHaveLength(4);
        for (const row of definitions.rows) expect(row.sql).not.toMatch(/autoincrement/i);
        // The constraints and indexes came along with the rebuilt tables.
        await expect(
          sql`insert into messages (session_id, seq, role, content, created_at) values ('s-old', 1, 'user', 'again', ${AT})`.execute(db),
        ).rejects.toThrow(/UNIQUE/);
        const rebuiltIndexes = await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'index' and tbl_name = 'model_usage'`.execute(db);
        expect(rebuiltIndexes.rows.map((row) => row.name)).toContain('model_usage_session');
        // Idempotent: a start that stopped after some tables finishes the rest without harm.
        await fewerPagesMigration.up(db, 'sqlite');
        expect(await snapshot(db)).toEqual(before);
      }

      const runtime = await createRuntime({
        store,
        agents: [createLedgerAgent({ reads: 0, transfers: [] })],
        model: () => createLedgerModel(),
        heartbeatMs: 3_600_000,
      });
      cleanups.push(() => runtime.close());
      // Start-up recovery found the call left executing through the partial index's query.
      const stuck = await sql<{ status: string }>`select status from tool_calls where id = 'c-stuck'`.execute(db);
      expect(stuck.rows[0]?.status).toBe('unknown');
      const user = { userId: 7, username: 'seven', roles: ['user'] };
      const session = await runtime.startSession({ agent: 'ledger', identity: user });
      const paused = await runtime.send(session.id, 'pay bob 5', user);
      if (paused.interrupt?.type !== 'approval') throw new Error('expected a pause for approval');
      const done = await runtime.decide(session.id, { type: 'approve', callId: paused.interrupt.callId }, user);
      expect(done.status).toBe('completed');
      const listed = await runtime.listSessions(user);
      expect(listed.map((summary) => summary.id)).toEqual([session.id, 's-old']);
      expect(await new AuditLog(store).verify()).toMatchObject({ ok: true });
    },
  );
});
