import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpsgateError } from '../../../core/errors/index.ts';
import { ensureDemoDatabase } from '../demo/index.ts';
import { SqliteSandboxEngine } from './sqlite-engine.ts';

// What the person (and the model) is told when the guard refuses a statement: which path, which
// SQLite action and what it would have touched, and why. The corpus in sql-guard.test.ts proves that
// each disguised write is refused; this file pins what each kind of refusal says. In process
// (`readBudget: false`): the read process runs the same guard.
let dir: string;
let engine: SqliteSandboxEngine;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsgate-sql-refusals-'));
  engine = new SqliteSandboxEngine(ensureDemoDatabase(join(dir, 'demo.db')), { readBudget: false });
});
afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

function refusalOf(work: () => unknown): OpsgateError {
  try {
    work();
  } catch (error) {
    if (OpsgateError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('the statement was not refused');
}

async function refusalInTransaction(sql: string): Promise<OpsgateError> {
  const transaction = await engine.begin();
  try {
    const error = await engine.execute(transaction, sql).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    if (!OpsgateError.isInstance(error)) throw new Error(`${sql} was not refused`);
    return error;
  } finally {
    await engine.rollback(transaction);
  }
}

const ATTACH = "ATTACH DATABASE '/tmp/opsgate-sql-refusals-never.db' AS x";

describe('a refusal on the read path names the action, what it touches and why', () => {
  it.each([
    ["SELECT load_extension('/tmp/evil.so')", 'FUNCTION', 'the function load_extension is not on the allowlist of pure functions'],
    ['PRAGMA user_version = 7', 'PRAGMA', 'PRAGMA user_version=7 is not a schema-reading pragma'],
    ['PRAGMA writable_schema', 'PRAGMA', 'PRAGMA writable_schema is not a schema-reading pragma'],
    [ATTACH, 'ATTACH', 'ATTACH /tmp/opsgate-sql-refusals-never.db would reach another database file (ATTACH and VACUUM INTO are refused)'],
    ['DETACH DATABASE main', 'DETACH', 'DETACH main would reach another database file (ATTACH and VACUUM INTO are refused)'],
    ['COMMIT', 'TRANSACTION', 'TRANSACTION COMMIT is reserved to the transaction handle'],
    ['SAVEPOINT s', 'SAVEPOINT', 'SAVEPOINT BEGIN s is reserved to the transaction handle'],
    // An empty name is no part of what the statement touches (no double space, no quotes).
    ['SAVEPOINT ""', 'SAVEPOINT', 'SAVEPOINT BEGIN is reserved to the transaction handle'],
    ['REINDEX', 'REINDEX', 'REINDEX sqlite_autoindex_order_items_1 is not allowed'],
    ['VACUUM', 'VACUUM', 'VACUUM statements do not run on the read path'],
  ])('%j: %s', (sql, action, reason) => {
    const error = refusalOf(() => engine.querySync(sql));
    expect(error.code).toBe('SQL_NOT_ALLOWED');
    expect(error.fields).toEqual({ path: 'read', reason, action });
    expect(error.message).toBe(
      `The database refused this statement on the read path: ${reason}. Use a plain read (SELECT) here, or stage the change in a transaction.`,
    );
  });

  it.each([
    ['DELETE FROM orders', 'This statement writes (DELETE orders).'],
    ['WITH x AS (SELECT 1) UPDATE products SET stock = 0', 'This statement writes (UPDATE products stock).'],
    ['CREATE TEMP VIEW customers AS SELECT 1 AS id', 'This statement writes (INSERT sqlite_temp_master).'],
    ['DROP TABLE IF EXISTS nope', 'This statement writes (DROP).'],
    ['ALTER TABLE customers ADD COLUMN x', 'This statement writes (ALTER_TABLE main customers).'],
    ['CREATE INDEX customers_by_name ON customers (name)', 'This statement writes (INSERT sqlite_master).'],
    // The index exists, so SQLite asks the authorizer nothing: the statement's kind refuses it.
    ['CREATE INDEX IF NOT EXISTS orders_by_customer ON orders (customer_id)', 'This statement writes (CREATE).'],
  ])('%j is a write outside a transaction', (sql, detail) => {
    const error = refusalOf(() => engine.querySync(sql));
    expect(error.name).toBe('WriteOutsideTransactionError');
    expect(error.fields).toEqual({ detail });
  });
});

describe('what the read path says about SQL it cannot run as one statement', () => {
  it('names the first of several statements as SQLite compiled it, cut at 60 characters', () => {
    expect(refusalOf(() => engine.querySync('SELECT 1; SELECT 2')).fields).toEqual({ first: 'SELECT 1;' });
    expect(refusalOf(() => engine.querySync('  SELECT 1 ;SELECT 2')).fields).toEqual({ first: 'SELECT 1 ;' });
    const sixty = `SELECT '${'x'.repeat(50)}';`;
    expect(sixty).toHaveLength(60);
    expect(refusalOf(() => engine.querySync(`${sixty} SELECT 2`)).fields).toEqual({ first: sixty });
    const longer = `SELECT '${'x'.repeat(51)}';`;
    expect(refusalOf(() => engine.querySync(`${longer} SELECT 2`)).fields).toEqual({ first: `${longer.slice(0, 57)}...` });
  });

  it('passes on SQLite’s words when it cannot compile or run a statement', () => {
    const syntax = refusalOf(() => engine.querySync('SELEKT 1'));
    expect(syntax.fields).toEqual({ detail: 'near "SELEKT": syntax error' });
    expect(syntax.cause).toBeInstanceOf(Error);
    const running = refusalOf(() => engine.querySync("SELECT json_extract('x', '$')"));
    expect(running.fields).toEqual({ detail: 'malformed JSON' });
    expect(running.cause).toBeInstanceOf(Error);
  });
});

describe('a refusal on the transaction path says why the statement may not run there', () => {
  it.each([
    ['COMMIT', 'TRANSACTION', 'TRANSACTION COMMIT is reserved to the transaction handle'],
    ['RELEASE s', 'SAVEPOINT', 'SAVEPOINT RELEASE s is reserved to the transaction handle'],
    [ATTACH, 'ATTACH', 'ATTACH /tmp/opsgate-sql-refusals-never.db would reach another database file (ATTACH and VACUUM INTO are refused)'],
    ['PRAGMA journal_mode = OFF', 'PRAGMA', 'PRAGMA journal_mode=OFF is not a schema-reading pragma'],
    [
      'CREATE TEMP TRIGGER tt AFTER INSERT ON orders BEGIN SELECT 1; END',
      'CREATE_TEMP_TRIGGER',
      'CREATE_TEMP_TRIGGER tt orders would create or drop a temporary object (it could shadow a table)',
    ],
    ['CREATE TEMP TABLE scratch (x)', 'INSERT', 'INSERT sqlite_temp_master would change the database'],
    ['ANALYZE', 'ANALYZE', 'ANALYZE order_items is not allowed'],
    ['CREATE VIRTUAL TABLE docs USING fts5(body)', 'CREATE_VTABLE', 'CREATE_VTABLE docs fts5 is not allowed'],
    ["SELECT fts3_tokenizer('simple')", 'FUNCTION', 'the function fts3_tokenizer is not on the allowlist of pure functions'],
  ])('%j: %s', async (sql, action, reason) => {
    const error = await refusalInTransaction(sql);
    expect(error.code).toBe('SQL_NOT_ALLOWED');
    expect(error.fields).toEqual({ path: 'transaction', reason, action });
  });

  it('runs data and schema writes of the main database (CREATE INDEX and ALTER TABLE … ADD COLUMN too), and reads with allowed functions and pragmas', async () => {
    const transaction = await engine.begin();
    try {
      for (const sql of [
        'UPDATE products SET stock = stock + 1 WHERE id = 1 RETURNING id',
        'CREATE TABLE scratch (x)',
        'CREATE INDEX scratch_x ON scratch (x)',
        'CREATE VIEW scratch_view AS SELECT x FROM scratch',
        'CREATE TRIGGER scratch_trigger AFTER INSERT ON scratch BEGIN SELECT 1; END',
        'INSERT INTO scratch VALUES (1)',
        'ALTER TABLE scratch ADD COLUMN y',
        'DROP TRIGGER scratch_trigger',
        'DROP VIEW scratch_view',
        'DROP INDEX scratch_x',
        'DELETE FROM scratch',
        'DROP TABLE scratch',
        "SELECT upper(name), json_object('n', 1) FROM customers",
        'PRAGMA table_info(customers)',
        'PRAGMA user_version',
      ])
        await expect(engine.execute(transaction, sql), sql).resolves.toBeDefined();
    } finally {
      await engine.rollback(transaction);
    }
  });
});
