import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSandboxEngine } from '../../src/agents/sandbox/engines/open-engine.ts';
import type { PostgresSandboxEngine } from '../../src/agents/sandbox/engines/postgres-engine.ts';
import { OpsgateError } from '../../src/core/errors/index.ts';
import { type PostgresSandbox, postgresAvailable, startPostgresSandbox } from './postgres-sandbox.ts';

async function refusal(promise: Promise<unknown>): Promise<OpsgateError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!OpsgateError.isInstance(error)) throw new Error(`the read was not refused: ${String(error)}`);
  return error;
}

describe.skipIf(!postgresAvailable)('PostgreSQL read path, as the application role that owns its tables', () => {
  let sandbox: PostgresSandbox;
  /** One pooled connection, so whatever a read left on its session would meet the next read. */
  let engine: PostgresSandboxEngine;
  let before: string;

  beforeAll(async () => {
    sandbox = await startPostgresSandbox();
    // What an admin might mark safe by mistake: functions with session effects. The reset must hold anyway.
    await sandbox.asOwner(`
      CREATE FUNCTION take_lock() RETURNS int LANGUAGE sql AS 'SELECT 1 FROM (SELECT pg_advisory_lock(42)) AS l';
      CREATE FUNCTION change_path() RETURNS text LANGUAGE sql AS $$SELECT set_config('search_path', 'pg_catalog', false)$$;
      CREATE FUNCTION make_temp() RETURNS int LANGUAGE plpgsql AS 'BEGIN CREATE TEMP TABLE leftover (x int); RETURN 1; END';
      CREATE FUNCTION lock_in_view() RETURNS int LANGUAGE sql AS 'SELECT 1 FROM (SELECT pg_advisory_lock(7)) AS l';
      CREATE VIEW locking_view AS SELECT lock_in_view() AS x;
      CREATE OPERATOR === (LEFTARG = int, RIGHTARG = int, FUNCTION = int4eq);
      CREATE FUNCTION lock_op(int, int) RETURNS boolean LANGUAGE sql AS 'SELECT true FROM (SELECT pg_advisory_lock(8)) AS l';
      CREATE OPERATOR ~~~ (LEFTARG = int, RIGHTARG = int, FUNCTION = lock_op);
      CREATE TYPE mood AS ENUM ('calm', 'cross');
      CREATE FUNCTION mood_number(mood) RETURNS int LANGUAGE sql AS 'SELECT 1 FROM (SELECT pg_advisory_lock(6)) AS l';
      CREATE CAST (mood AS int) WITH FUNCTION mood_number(mood) AS IMPLICIT;
      CREATE TABLE feelings (m mood);
      INSERT INTO feelings VALUES ('calm');
      CREATE DOMAIN locked_int AS int CHECK (lock_in_view() = 1);
      ALTER TABLE products ENABLE ROW LEVEL SECURITY;
      ALTER TABLE products FORCE ROW LEVEL SECURITY;
      CREATE POLICY visible ON products USING (true);
      CREATE FUNCTION span_diff(a float8, b float8) RETURNS float8 LANGUAGE sql IMMUTABLE AS 'SELECT a - b';
      CREATE TYPE span AS RANGE (subtype = float8, subtype_diff = span_diff);
      CREATE TABLE spans (s span);
      CREATE TYPE plain_span AS RANGE (subtype = float8, subtype_diff = float8mi);
      CREATE TABLE plain_spans (s plain_span);
      CREATE TABLE audited (x int);
      ALTER TABLE audited ENABLE ROW LEVEL SECURITY;
      ALTER TABLE audited FORCE ROW LEVEL SECURITY;
      CREATE POLICY locking ON audited USING (lock_in_view() = 1);`);
    engine = await sandbox.connect({
      poolSize: 1,
      safeFunctions: ['public.order_count', 'public.take_lock', 'public.change_path', 'public.make_temp'],
    });
    before = await sandbox.fingerprint();
  });
  afterAll(() => sandbox?.dispose());

  it.each([
    'EXPLAIN SELECT * FROM customers WHERE id = 1',
    'EXPLAIN (FORMAT JSON) SELECT * FROM orders WHERE customer_id = 1',
    'EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM order_totals',
    'SHOW search_path',
    'SHOW ALL',
    "SELECT current_setting('work_mem') AS work_mem",
    'SELECT relname FROM pg_catalog.pg_class WHERE relnamespace = ' + "'public'::regnamespace ORDER BY 1",
    "SELECT column_name FROM information_schema.columns WHERE table_name = 'customers' ORDER BY ordinal_position",
    'SELECT * FROM pg_stat_activity WHERE pid = pg_backend_pid()',
    'SELECT random() < 2 AS yes, clock_timestamp() > now() - interval $$1 day$$ AS recent, gen_random_uuid() IS NOT NULL AS id',
    'SELECT * FROM order_totals ORDER BY order_id',
    'SELECT count(*) FROM products',
    "SELECT 1::int AS one, 'calm'::text AS word",
    "SELECT * FROM plain_spans WHERE s && '[1,2)'",
    'SELECT order_count()',
    'SELECT * FROM order_count_view',
    'VALUES (1), (2)',
    'WITH paid AS (SELECT * FROM orders WHERE status = $$paid$$) SELECT count(*) FROM paid',
    'SELECT 1 === 1 AS same',
  ])('answers %j and changes nothing', async (sql) => {
    const result = await engine.query(sql);
    expect(result.columns.length).toBeGreaterThan(0);
    expect(await sandbox.fingerprint()).toBe(before);
  });

  it('answers EXPLAIN with a bound parameter, and shows the plan of a read through explain()', async () => {
    const plan = await engine.query('EXPLAIN (FORMAT JSON) SELECT * FROM customers WHERE id = $1', [1]);
    expect(JSON.stringify(plan.rows)).toContain('customers');
    const profile = await engine.explain('SELECT * FROM customers WHERE id = $1', [1]);
    expect(profile.rows.map((row) => row.detail).join('\n')).toMatch(/customers/);
    await expect(engine.explain('SELECT pg_advisory_lock(1)')).rejects.toMatchObject({ code: 'SQL_NOT_ALLOWED' });
  });

  it.each([
    ['SELECT pg_advisory_lock(42)', /pg_advisory_lock takes or releases an advisory lock/],
    ['SELECT pg_try_advisory_lock(42)', /advisory lock/],
    ['SELECT pg_advisory_xact_lock(42)', /advisory lock/],
    ["SELECT pg_notify('jobs', 'x')", /pg_notify sends a notification/],
    ["NOTIFY jobs, 'x'", /NOTIFY statements do not run on the read path/],
    ['LISTEN jobs', /LISTEN statements do not run/],
    ["SELECT nextval('orders_id_seq')", /nextval reads or advances a sequence/],
    ["SELECT currval('orders_id_seq')", /sequence/],
    ["SELECT setval('orders_id_seq', 100)", /sequence/],
    ["SELECT dblink_exec('dbname=postgres', 'CREATE TABLE pwned (x int)')", /public\.dblink_exec is defined in this database/],
    ["SELECT * FROM dblink('dbname=postgres', 'SELECT 1') AS t(x int)", /public\.dblink is defined in this database/],
    ['SELECT lo_create(0)', /large object/],
    ["SELECT lo_from_bytea(0, 'x')", /large object/],
    ['SELECT pg_terminate_backend(pg_backend_pid())', /signals another session/],
    ['SELECT pg_cancel_backend(1)', /signals another session/],
    ['SELECT pg_reload_conf()', /reloads the server configuration/],
    ["SELECT set_config('search_path', 'pg_catalog', false)", /changes a configuration setting/],
    ['SELECT setseed(0.5)', /random seed/],
    ['SELECT txid_current()', /assigns a transaction id/],
    ['SELECT pg_sleep(0)', /pg_sleep is VOLATILE .*provolatile = 'v'/],
    ["SELECT query_to_xml('DELETE FROM orders RETURNING 1', true, true, '')", /query_to_xml runs a query/],
    ['SELECT pg_stat_reset()', /VOLATILE/],
    ['SELECT lock_in_view()', /public\.lock_in_view is defined in this database/],
    ['SELECT * FROM locking_view', /public\.lock_in_view is defined in this database/],
    ['EXPLAIN SELECT lock_in_view()', /public\.lock_in_view/],
    ['SELECT 1 ~~~ 2', /public\.lock_op is defined in this database/],
    ['SELECT m FROM feelings WHERE m + 0 > 0', /public\.mood_number is defined in this database/],
    ['SELECT 1::locked_int', /public\.lock_in_view/],
    ["SELECT 'calm'::mood::int", /public\.mood_number/],
    ["SELECT * FROM spans WHERE s && '[1,2)'", /public\.span_diff is defined in this database/],
    ['SELECT count(*) FROM audited', /public\.lock_in_view/],
    ["SELECT table_to_xml('locking_view', true, true, '')", /table_to_xml runs a query over tables or views it is given by name/],
    ["SELECT schema_to_xml('public', true, true, '')", /given by name at run time/],
    ['EXPLAIN ANALYZE SELECT 1', /EXPLAIN ANALYZE runs the statement/],
    ['EXPLAIN (ANALYZE false) SELECT 1', /EXPLAIN ANALYZE/],
    ['SELECT * FROM orders FOR UPDATE', /locks rows/],
    ['SET search_path = pg_catalog', /VARIABLE SET statements do not run/],
    ['RESET ALL', /VARIABLE SET/],
    ['DISCARD ALL', /DISCARD statements do not run/],
  ])('refuses %j and says what it found', async (sql, reason) => {
    const error = await refusal(engine.query(sql));
    expect(error.code).toBe('SQL_NOT_ALLOWED');
    expect(error.message).toMatch(reason);
    expect(await sandbox.sessionTraces()).toEqual({ advisoryLocks: 0, temporaryRelations: 0 });
    expect(await sandbox.fingerprint()).toBe(before);
  });

  it('runs a function defined in the database only once an admin named it in safeFunctions', async () => {
    const unmarked = await openSandboxEngine({ url: sandbox.url });
    const marked = await openSandboxEngine({ url: sandbox.url, safeFunctions: ['public.order_count'] });
    try {
      const error = await refusal(unmarked.query('SELECT order_count() AS n'));
      expect(error.message).toMatch(/public\.order_count is defined in this database, not built into PostgreSQL.*mark it safe/);
      expect((await marked.query('SELECT order_count()::int AS n')).rows).toEqual([{ n: 5 }]);
      expect((await marked.query('SELECT n::int FROM order_count_view')).rows).toEqual([{ n: 5 }]);
    } finally {
      await unmarked.close();
      await marked.close();
    }
  });

  it('refuses EXPLAIN of a write as a write, without planning it', async () => {
    const error = await refusal(engine.query('EXPLAIN DELETE FROM orders'));
    expect(error.code).toBe('WRITE_OUTSIDE_TRANSACTION');
    expect(error.message).toContain('EXPLAIN of DELETE');
  });

  it.each([
    ['a session advisory lock', 'SELECT take_lock()'],
    ['a session setting', 'SELECT change_path()'],
    ['a temporary table', 'SELECT make_temp()'],
  ])('leaves no %s on the pooled connection, even from a function an admin marked safe', async (_what, sql) => {
    const { rows: pid } = await engine.query('SELECT pg_backend_pid() AS pid');
    await engine.query(sql).catch(() => undefined);
    // The same session (the pool has one connection) reads next: nothing of the last read is left.
    const { rows } = await engine.query(
      `SELECT pg_backend_pid() AS pid, current_setting('search_path') AS path,
              (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()) AS locks,
              (SELECT count(*)::int FROM pg_class WHERE relpersistence = 't') AS temporary`,
    );
    expect(rows[0]).toEqual({ pid: pid[0]!.pid, path: '"$user", public', locks: 0, temporary: 0 });
    expect(await sandbox.sessionTraces()).toEqual({ advisoryLocks: 0, temporaryRelations: 0 });
    expect(await sandbox.fingerprint()).toBe(before);
  });

  it('resets a session that a committed transaction changed before the next read uses it', async () => {
    const transaction = await engine.begin();
    await engine.execute(transaction, "SELECT set_config('search_path', 'pg_catalog', false)");
    await engine.execute(transaction, 'SELECT pg_advisory_lock(9)');
    await engine.rollback(transaction);
    const { rows } = await engine.query("SELECT current_setting('search_path') AS path");
    expect(rows[0]).toEqual({ path: '"$user", public' });
    expect(await sandbox.sessionTraces()).toEqual({ advisoryLocks: 0, temporaryRelations: 0 });
  });
});

describe.skipIf(!postgresAvailable)('PostgreSQL read budget: what the person sees, as on SQLite', () => {
  let sandbox: PostgresSandbox;
  let before: string;
  beforeAll(async () => {
    sandbox = await startPostgresSandbox();
    before = await sandbox.fingerprint();
  });
  afterAll(() => sandbox?.dispose());

  it('stops a runaway read at the time budget', async () => {
    const engine = await sandbox.connect({ readBudget: { timeMs: 300 } });
    const error = await refusal(engine.query('WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c'));
    expect(error.code).toBe('READ_BUDGET_EXCEEDED');
    expect(error.fields).toMatchObject({ limit: 'time', timeMs: 300 });
    expect(error.message).toMatch(/stopped: it ran longer than 300 ms\. The database is unchanged\. Add a LIMIT/);
    expect((await engine.query('SELECT count(*)::int AS n FROM customers')).rows).toEqual([{ n: 5 }]);
    expect(await sandbox.fingerprint()).toBe(before);
  });

  it('stops an endless read at its row budget', async () => {
    const engine = await sandbox.connect({ readBudget: { maxRows: 50, timeMs: 120_000 } });
    const error = await refusal(engine.query('WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c'));
    expect(error.code).toBe('READ_BUDGET_EXCEEDED');
    expect(error.fields).toMatchObject({ limit: 'rows', maxRows: 50 });
    expect((await engine.query('SELECT x FROM generate_series(1, 50) AS x')).rowCount).toBe(50);
  });

  it('stops a read past its byte budget across fetch batches', async () => {
    const engine = await sandbox.connect({ readBudget: { maxBytes: 200_000, timeMs: 120_000 } });
    const error = await refusal(engine.query("SELECT x, repeat('y', 100) AS pad FROM generate_series(1, 5000) AS x"));
    expect(error.code).toBe('READ_BUDGET_EXCEEDED');
    expect(error.fields).toMatchObject({ limit: 'bytes', maxBytes: 200_000 });
    expect(error.message).toContain('more than 200000 bytes');
    expect((await engine.query("SELECT x, repeat('y', 100) AS pad FROM generate_series(1, 1000) AS x")).rowCount).toBe(1000);
  });
});
