import { beforeAll, describe, expect, it } from 'vitest';
import { OpsgateError } from '../../../core/errors/index.ts';
import { inspectPostgresStatement, loadPostgresParser } from './postgres-statement.ts';

beforeAll(() => loadPostgresParser());

function refusalCode(sql: string): string {
  try {
    inspectPostgresStatement(sql);
  } catch (error) {
    if (OpsgateError.isInstance(error)) return error.code;
    throw error;
  }
  return 'allowed';
}

describe('PostgreSQL read statements, from the server’s own grammar', () => {
  it.each([
    ['SELECT 1', 'select'],
    ['VALUES (1)', 'select'],
    ['WITH x AS (SELECT 1) SELECT * FROM x', 'select'],
    ['/* c */ select 1; -- trailing', 'select'],
    ['EXPLAIN SELECT * FROM t WHERE id = 1', 'explain'],
    ['EXPLAIN (FORMAT JSON, VERBOSE) SELECT 1', 'explain'],
    ['SHOW work_mem', 'show'],
  ])('runs %j as a %s', (sql, kind) => {
    expect(inspectPostgresStatement(sql).kind).toBe(kind);
  });

  it.each([
    ['DELETE FROM t', 'WRITE_OUTSIDE_TRANSACTION'],
    ['WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d', 'WRITE_OUTSIDE_TRANSACTION'],
    ['SELECT * INTO copy FROM t', 'WRITE_OUTSIDE_TRANSACTION'],
    ['CREATE TEMP TABLE x (a int)', 'WRITE_OUTSIDE_TRANSACTION'],
    ['TRUNCATE t', 'WRITE_OUTSIDE_TRANSACTION'],
    ['EXPLAIN DELETE FROM t', 'WRITE_OUTSIDE_TRANSACTION'],
    ['EXPLAIN ANALYZE SELECT 1', 'SQL_NOT_ALLOWED'],
    ['EXPLAIN (ANALYZE off) SELECT 1', 'SQL_NOT_ALLOWED'],
    ['SELECT * FROM t FOR UPDATE', 'SQL_NOT_ALLOWED'],
    ['SELECT * FROM t FOR KEY SHARE', 'SQL_NOT_ALLOWED'],
    ['SET search_path = x', 'SQL_NOT_ALLOWED'],
    ['COMMIT', 'SQL_NOT_ALLOWED'],
    ["NOTIFY x, 'y'", 'SQL_NOT_ALLOWED'],
    ['DO $$ BEGIN END $$', 'SQL_NOT_ALLOWED'],
    ['SELECT 1; SELECT 2', 'SQL_MULTIPLE_STATEMENTS'],
    ['  -- only a comment', 'SQL_EMPTY'],
    ['SELEKT 1', 'SQL_FAILED'],
  ])('refuses %j with %s', (sql, code) => {
    expect(refusalCode(sql)).toBe(code);
  });

  it('collects the functions, operators, relations and cast types a read names', () => {
    const statement = inspectPostgresStatement(
      'SELECT public.f(1), count(*), a OPERATOR(public.===) b, x::my_domain FROM s.v JOIN t ON true WHERE g() > 0',
    );
    expect(statement.functions).toEqual([
      { schema: 'public', name: 'f' },
      { schema: '', name: 'count' },
      { schema: '', name: 'g' },
    ]);
    expect(statement.operators).toEqual(
      expect.arrayContaining([
        { schema: 'public', name: '===' },
        { schema: '', name: '>' },
      ]),
    );
    expect(statement.relations).toEqual([
      { schema: 's', name: 'v' },
      { schema: '', name: 't' },
    ]);
    expect(statement.types).toEqual([{ schema: '', name: 'my_domain' }]);
  });

  it('judges the comparison operators every read may use implicitly (ORDER BY, IN, DISTINCT)', () => {
    const operators = inspectPostgresStatement('SELECT DISTINCT a FROM t ORDER BY a').operators.map((operator) => operator.name);
    expect(operators).toEqual(expect.arrayContaining(['=', '<>', '<', '>', '<=', '>=']));
  });

  it('collects the functions inside EXPLAIN and inside FROM-clause function calls', () => {
    expect(inspectPostgresStatement('EXPLAIN SELECT pg_advisory_lock(1)').functions).toEqual([{ schema: '', name: 'pg_advisory_lock' }]);
    expect(inspectPostgresStatement('SELECT * FROM dblink($$x$$, $$y$$) AS t(a int)').functions).toEqual([{ schema: '', name: 'dblink' }]);
  });
});

describe('what a PostgreSQL read-path refusal says', () => {
  function refusal(sql: string): OpsgateError {
    try {
      inspectPostgresStatement(sql);
    } catch (error) {
      if (OpsgateError.isInstance(error)) return error;
      throw error;
    }
    throw new Error(`${sql} was not refused`);
  }

  it.each([
    ['DELETE FROM t', 'This statement writes (DELETE).'],
    ['WITH d AS (INSERT INTO t VALUES (1) RETURNING *) SELECT * FROM d', 'This statement writes (INSERT).'],
    ['WITH d AS (UPDATE t SET a = 1 RETURNING *) SELECT * FROM d', 'This statement writes (UPDATE).'],
    ['SELECT * INTO copy FROM t', 'This statement writes (SELECT INTO).'],
    ['WITH a AS (DELETE FROM t RETURNING *), b AS (UPDATE t SET a = 1 RETURNING *) SELECT * FROM a, b', 'This statement writes (DELETE).'],
    ['EXPLAIN DELETE FROM t', 'This statement writes (EXPLAIN of DELETE).'],
    ['EXPLAIN SELECT * INTO copy FROM t', 'This statement writes (SELECT INTO).'],
    ['ALTER TABLE t ADD COLUMN b int', 'This statement writes (ALTER TABLE).'],
    ['REFRESH MATERIALIZED VIEW v', 'This statement writes (REFRESH MAT VIEW).'],
  ])('%j is a write outside a transaction: %s', (sql, detail) => {
    const error = refusal(sql);
    expect(error.name).toBe('WriteOutsideTransactionError');
    expect(error.fields).toEqual({ detail });
  });

  it.each([
    ['EXPLAIN ANALYZE SELECT 1', 'EXPLAIN ANALYZE', 'EXPLAIN ANALYZE runs the statement; use EXPLAIN without ANALYZE to see the plan'],
    ['SELECT * FROM t FOR UPDATE', 'LOCK', 'the statement locks rows (FOR UPDATE / FOR SHARE), which only a transaction may do'],
    ['EXPLAIN SELECT * FROM t FOR SHARE', 'LOCK', 'the statement locks rows (FOR UPDATE / FOR SHARE), which only a transaction may do'],
    [
      'SET search_path = x',
      'VARIABLE SET',
      'VARIABLE SET statements do not run on the read path (it runs SELECT, VALUES, WITH, EXPLAIN without ANALYZE and SHOW)',
    ],
    [
      'DO $$ BEGIN END $$',
      'DO',
      'DO statements do not run on the read path (it runs SELECT, VALUES, WITH, EXPLAIN without ANALYZE and SHOW)',
    ],
    [
      'EXPLAIN EXECUTE p',
      'EXECUTE',
      'EXPLAIN of EXECUTE statements do not run on the read path (it runs SELECT, VALUES, WITH, EXPLAIN without ANALYZE and SHOW)',
    ],
  ])('%j is not allowed: %s', (sql, action, reason) => {
    expect(refusal(sql).fields).toEqual({ path: 'read', reason, action });
  });

  it('names the first statement of several, cut at 60 characters', () => {
    expect(refusal('SELECT 1; SELECT 2').fields).toEqual({ first: 'SELECT 1' });
    const long = `SELECT '${'x'.repeat(70)}'`;
    expect(refusal(`${long}; SELECT 2`).fields).toEqual({ first: `${long.slice(0, 57)}...` });
    const sixty = `SELECT '${'x'.repeat(51)}'`;
    expect(sixty).toHaveLength(60);
    expect(refusal(`  ${sixty} ; SELECT 2`).fields).toEqual({ first: sixty });
  });

  it('passes on the parser’s own words for a syntax error', () => {
    expect(refusal('SELEKT 1').fields).toEqual({ detail: 'syntax error at or near "SELEKT"' });
  });

  it('collects schema-qualified names and leaves unnamed parts out', () => {
    const statement = inspectPostgresStatement('SELECT pg_catalog.now(), CAST(1 AS pg_catalog.int8) FROM s.t, u');
    expect(statement.functions).toEqual([{ schema: 'pg_catalog', name: 'now' }]);
    expect(statement.types).toEqual([{ schema: 'pg_catalog', name: 'int8' }]);
    expect(statement.relations).toEqual([
      { schema: 's', name: 't' },
      { schema: '', name: 'u' },
    ]);
    expect(inspectPostgresStatement('SELECT 1').operators).toEqual(['=', '<>', '<', '>', '<=', '>='].map((name) => ({ schema: '', name })));
    expect(inspectPostgresStatement('SELECT f(1), f(2)').functions).toEqual([{ schema: '', name: 'f' }]);
  });
});
