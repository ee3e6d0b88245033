import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDemoDatabase } from '../demo/index.ts';
import { SqliteSandboxEngine } from './sqlite-engine.ts';

// The read path's allowlists from the other side: every schema-reading pragma and a function of each
// part of the pure-function list answer, in any letter case. A name dropped from a list turns a case
// red; what must stay refused is in sql-guard.test.ts and sql-guard.refusals.test.ts.
let dir: string;
let engine: SqliteSandboxEngine;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsgate-sql-allowlist-'));
  engine = new SqliteSandboxEngine(ensureDemoDatabase(join(dir, 'demo.db')), { readBudget: false });
});
afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the read path answers every schema-reading pragma', () => {
  it.each([
    'PRAGMA table_info(customers)',
    'PRAGMA TABLE_XINFO(customers)',
    'PRAGMA table_list',
    'PRAGMA index_list(orders)',
    'PRAGMA index_info(orders_by_customer)',
    'PRAGMA index_xinfo(orders_by_customer)',
    'PRAGMA foreign_key_list(orders)',
    'PRAGMA collation_list',
    'PRAGMA integrity_check',
    'PRAGMA quick_check(5)',
    'PRAGMA foreign_key_check',
    'PRAGMA page_count',
    'PRAGMA freelist_count',
    'PRAGMA compile_options',
    'PRAGMA database_list',
    'PRAGMA page_size',
    'PRAGMA user_version',
    'PRAGMA Journal_Mode',
    "SELECT name FROM pragma_table_info('customers')",
    'EXPLAIN QUERY PLAN SELECT * FROM customers WHERE id = 1',
  ])('%s', (sql) => {
    expect(engine.querySync(sql).columns.length).toBeGreaterThan(0);
  });
});

describe('the read path runs the pure functions on its allowlist', () => {
  it.each([
    ["SELECT ABS(-1) AS v, printf('%d', 2) AS w", { v: 1, w: '2' }],
    ["SELECT replace('a', 'a', 'b') AS v, concat_ws('-', 'x', 'y') AS w", { v: 'b', w: 'x-y' }],
    ["SELECT date('2026-01-02') AS v, unixepoch('1970-01-01 00:00:10') AS w", { v: '2026-01-02', w: 10 }],
    ['SELECT total_changes() AS v, likely(1) AS w', { v: 0, w: 1 }],
    ['SELECT sqrt(4) AS v, trunc(2.7) AS w', { v: 2, w: 2 }],
    ["SELECT json_extract('{\"a\":1}', '$.a') AS v, json_valid('[]') AS w", { v: 1, w: 1 }],
    ["SELECT json_quote('x') AS v, json_pretty('[]') AS w", { v: '"x"', w: '[]' }],
    ["SELECT '{\"a\":7}' ->> '$.a' AS v, sqlite_compileoption_used('THREADSAFE') AS w", { v: 7, w: 1 }],
  ])('%s', (sql, row) => {
    expect(engine.querySync(sql).rows).toEqual([row]);
  });

  it('answers through the asynchronous read path too, in process when the engine has no read budget', async () => {
    expect((await engine.query('SELECT count(*) AS n FROM customers')).rows).toEqual([{ n: 5 }]);
  });

  it('runs window functions and the statistics aggregates', () => {
    expect(
      engine.querySync('SELECT row_number() OVER (ORDER BY id) AS n, cume_dist() OVER (ORDER BY id) AS d FROM customers').rowCount,
    ).toBe(5);
    expect(engine.querySync('SELECT median(v) AS m FROM (SELECT 1 AS v UNION ALL SELECT 3)').rows).toEqual([{ m: 2 }]);
  });
});
