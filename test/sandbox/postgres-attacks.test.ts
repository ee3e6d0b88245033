import { existsSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresSandboxEngine } from '../../src/agents/sandbox/engines/postgres-engine.ts';
import { DISGUISED_WRITES, POSTGRES_DISGUISED_WRITES, SCARY_READS } from '../../src/agents/sandbox/engines/sql-corpus.ts';
import { OpsgateError } from '../../src/core/errors/index.ts';
import { propertySeeds } from '../../src/testing/property-seeds.ts';
import { type PostgresSandbox, postgresAvailable, startPostgresSandbox } from './postgres-sandbox.ts';

/** Every code that means "nothing ran": a refusal, or the database's own parse or planning error. */
const REFUSALS = ['WRITE_OUTSIDE_TRANSACTION', 'SQL_NOT_ALLOWED', 'SQL_MULTIPLE_STATEMENTS', 'SQL_FAILED', 'SQL_EMPTY'];

/** Files the corpus tries to write through COPY, large objects, ATTACH and VACUUM INTO. */
const ATTACK_FILES = [
  '/tmp/opsgate-pg-pwned',
  '/tmp/opsgate-pg-orders.csv',
  '/tmp/opsgate-pg-lo',
  '/tmp/opsgate-sandbox-attack.db',
  '/tmp/opsgate-sandbox-vacuum-into.db',
];

/** Reads of the SQLite corpus that use SQLite's own syntax or functions, which PostgreSQL does not have. */
const SQLITE_ONLY_READS = new Set([
  "SELECT * FROM pragma_table_info('customers')",
  'PRAGMA table_info(orders)',
  'SELECT name FROM sqlite_schema',
  "SELECT sql FROM sqlite_master WHERE sql LIKE '%CREATE%'",
  "SELECT typeof(x'00')",
  "SELECT datetime('now') > '2000'",
  "SELECT * FROM json_each('[1,2,3]')",
  "SELECT iif(1, 'ATTACH', 'DETACH') AS choice",
  "SELECT json_object('drop', 'table') AS j",
  "SELECT EXISTS (SELECT 1 FROM orders WHERE status = 'shipped') AS shipped",
  'SELECT c.name, count(o.id) AS orders FROM customers c LEFT JOIN orders o ON o.customer_id = c.id GROUP BY c.id',
]);

/**
 * What a read may leave on its session, read by the next read on the same pooled connection:
 * settings, advisory locks, temporary relations, prepared statements, LISTEN channels, cursors
 * (other than the one this read itself fetches through).
 */
const SESSION_STATE = `
SELECT current_setting('search_path') AS path,
       current_setting('default_transaction_read_only') AS read_only,
       current_setting('statement_timeout') AS timeout,
       (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()) AS locks,
       (SELECT count(*)::int FROM pg_class WHERE relpersistence = 't') AS temporary,
       (SELECT count(*)::int FROM pg_prepared_statements WHERE name <> 'opsgate_reachable_functions') AS prepared,
       (SELECT count(*)::int FROM pg_listening_channels()) AS channels,
       (SELECT count(*)::int FROM pg_cursors WHERE name <> 'opsgate_read') AS cursors`;

describe.skipIf(!postgresAvailable)('PostgreSQL: the external attack corpus and the read path properties, as the owning role', () => {
  let sandbox: PostgresSandbox;
  /** One pooled connection: any state a read left would meet the next read. */
  let engine: PostgresSandboxEngine;
  let before: string;
  let cleanSession: unknown;

  async function expectNothingChanged(sql: string): Promise<void> {
    expect(await sandbox.fingerprint(), sql).toBe(before);
    expect(await sandbox.sessionTraces(), sql).toEqual({ advisoryLocks: 0, temporaryRelations: 0 });
    expect((await engine.query(SESSION_STATE)).rows[0], sql).toEqual(cleanSession);
  }

  beforeAll(async () => {
    sandbox = await startPostgresSandbox();
    engine = await sandbox.connect({ poolSize: 1, readBudget: { timeMs: 5_000, maxRows: 500 } });
    before = await sandbox.fingerprint();
    cleanSession = (await engine.query(SESSION_STATE)).rows[0];
  });
  afterAll(() => sandbox?.dispose());

  it('starts from a clean session: no locks, temporary relations, prepared statements, channels or cursors', () => {
    expect(cleanSession).toMatchObject({ read_only: 'off', locks: 0, temporary: 0, prepared: 0, channels: 0, cursors: 0 });
  });

  it.each([...new Set([...DISGUISED_WRITES, ...POSTGRES_DISGUISED_WRITES])].map((sql) => [sql]))(
    'refuses %j: nothing in the data or catalog changes and no session state is left',
    async (sql) => {
      const error = await engine.query(sql).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(OpsgateError.isInstance(error), `${sql} was not refused`).toBe(true);
      expect(REFUSALS).toContain((error as OpsgateError).code);
      await expectNothingChanged(sql);
    },
  );

  it('wrote no file through COPY, large objects, ATTACH or VACUUM INTO', () => {
    for (const file of ATTACK_FILES) expect(existsSync(file), file).toBe(false);
  });

  it.each(SCARY_READS.filter((sql) => !SQLITE_ONLY_READS.has(sql)).map((sql) => [sql]))('answers the read %j', async (sql) => {
    const result = await engine.query(sql);
    expect(result.columns.length).toBeGreaterThan(0);
    await expectNothingChanged(sql);
  });

  it('runs at least 25 of the corpus’s scary reads on PostgreSQL', () => {
    expect(SCARY_READS.filter((sql) => !SQLITE_ONLY_READS.has(sql)).length).toBeGreaterThanOrEqual(25);
  });

  it.each(propertySeeds('SQL grammar on the PostgreSQL read path'))(
    'never changes the data, the catalog or the session, whatever the statement (seed %i)',
    async (seed) => {
      let refused = 0;
      let answered = 0;
      await fc.assert(
        fc.asyncProperty(postgresStatements(), async (sql) => {
          const error = await engine.query(sql).then(
            () => undefined,
            (caught: unknown) => caught,
          );
          if (error === undefined) answered += 1;
          else {
            expect(OpsgateError.isInstance(error), `${sql}: ${String(error)}`).toBe(true);
            refused += 1;
          }
          await expectNothingChanged(sql);
        }),
        { seed, numRuns: 120 },
      );
      expect(refused).toBeGreaterThan(0);
      expect(answered).toBeGreaterThan(0);
      for (const file of ATTACK_FILES) expect(existsSync(file), file).toBe(false);
    },
    120_000,
  );
});

/**
 * A small PostgreSQL grammar: reads (plain, over views and catalogs, EXPLAIN, SHOW), every kind of
 * write, data-modifying CTEs, session changes (SET, set_config, advisory locks, LISTEN, PREPARE,
 * temporary tables), functions with effects, COPY, transaction control, two statements in one string.
 */
function postgresStatements(): fc.Arbitrary<string> {
  const table = fc.constantFrom('customers', 'orders', 'products', 'order_items', 'order_totals', 'pg_class', 'no_such_table');
  const column = fc.constantFrom('id', 'name', '*', 'ctid', 'status');
  const value = fc.oneof(fc.integer({ min: -5, max: 5 }).map(String), fc.constantFrom("'x'", 'NULL', '(SELECT 1)', 'now()'));
  const effect = fc.constantFrom(
    'pg_advisory_lock(1)',
    'pg_try_advisory_lock(2)',
    "pg_notify('c', 'x')",
    "nextval('orders_id_seq')",
    "setval('orders_id_seq', 9)",
    "set_config('search_path', 'pg_catalog', false)",
    'lo_create(0)',
    "dblink_exec('dbname=postgres', 'SELECT 1')",
    'pg_cancel_backend(pg_backend_pid())',
    'pg_reload_conf()',
    'txid_current()',
    'order_count()',
    'random()',
    "current_setting('work_mem')",
  );
  const read = fc
    .tuple(column, table, value, effect)
    .map(([c, t, v, e]) =>
      fc.constantFrom(
        `SELECT ${c} FROM ${t}`,
        `SELECT ${c} FROM ${t} WHERE ${v} IS NOT NULL LIMIT 3`,
        `SELECT ${v}`,
        `SELECT ${e}`,
        `SELECT * FROM ${t} WHERE ${e} IS NOT NULL`,
        `EXPLAIN SELECT ${c} FROM ${t}`,
        `EXPLAIN (FORMAT JSON) SELECT ${e}`,
        `EXPLAIN ANALYZE SELECT ${e}`,
        `WITH w AS (SELECT ${e} AS x) SELECT * FROM w`,
        `SELECT * FROM ${t} FOR UPDATE`,
        'SHOW search_path',
      ),
    );
  const write = fc
    .tuple(table, column, value)
    .map(([t, c, v]) =>
      fc.constantFrom(
        `INSERT INTO ${t} DEFAULT VALUES`,
        `UPDATE ${t} SET ${c} = ${v}`,
        `DELETE FROM ${t}`,
        `TRUNCATE ${t}`,
        `DROP TABLE IF EXISTS ${t}`,
        `CREATE TEMP TABLE t_${c.replace('*', 'all')} AS SELECT 1`,
        `ALTER TABLE ${t} RENAME TO x`,
        `WITH d AS (DELETE FROM ${t} RETURNING *) SELECT count(*) FROM d`,
        `SELECT * INTO TEMP copy FROM ${t}`,
        `COPY ${t} TO '/tmp/opsgate-pg-orders.csv'`,
        `LOCK TABLE ${t}`,
        `EXPLAIN DELETE FROM ${t}`,
      ),
    );
  const session = fc.constantFrom(
    'SET search_path = pg_catalog',
    'SET statement_timeout = 1',
    'SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE',
    'RESET ALL',
    'DISCARD ALL',
    'LISTEN c',
    'PREPARE p AS SELECT 1',
    'DECLARE c CURSOR WITH HOLD FOR SELECT 1',
    'BEGIN',
    'COMMIT',
    'ROLLBACK',
    'SAVEPOINT s',
    'DO $$ BEGIN PERFORM pg_advisory_lock(3); END $$',
    "COPY (SELECT 1) TO PROGRAM 'touch /tmp/opsgate-pg-pwned'",
  );
  const single = fc.oneof(
    read.chain((s) => s),
    write.chain((s) => s),
    session,
  );
  const decorated = fc
    .tuple(single, fc.constantFrom('', '/* c */ ', '-- c\n', '  '), fc.constantFrom('', ';', ' ;  ', '; -- end'))
    .map(([s, prefix, suffix]) => `${prefix}${s}${suffix}`);
  return fc.oneof(
    decorated,
    fc.tuple(decorated, decorated).map(([a, b]) => `${a.replace(/;?\s*(--.*)?$/, '')}; ${b}`),
  );
}
