import { existsSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpsgateError } from '../../../core/errors/index.ts';
import { createSandboxFixture, type SandboxFixture } from '../demo/testing.ts';
import { DISGUISED_WRITES, SCARY_READS } from './sql-corpus.ts';
import { assertSingleStatement, isOnlyTrivia, statementKind } from './sql-guard.ts';

const REFUSALS = ['WRITE_OUTSIDE_TRANSACTION', 'SQL_NOT_ALLOWED', 'SQL_MULTIPLE_STATEMENTS'];
/** The files the corpus's ATTACH and VACUUM INTO lines would create. */
const ATTACK_FILES = ['/tmp/opsgate-sandbox-attack.db', '/tmp/opsgate-sandbox-vacuum-into.db'];

describe('read-only path: adversarial corpus through DbBridge and the MCP hop', () => {
  let fixture: SandboxFixture;
  let before: string;
  beforeAll(async () => {
    // A file left by an earlier run (a mutation run's mutant that let ATTACH through) would make
    // the check below fail for every later run, whatever this run does: only this run's writes count.
    for (const written of ATTACK_FILES) rmSync(written, { force: true });
    fixture = await createSandboxFixture();
    before = fixture.fileHash();
  });
  afterAll(() => fixture.dispose());

  it('has at least 60 disguised writes and 30 scary reads', () => {
    expect(DISGUISED_WRITES.length).toBeGreaterThanOrEqual(60);
    expect(SCARY_READS.length).toBeGreaterThanOrEqual(30);
    expect(new Set(DISGUISED_WRITES).size).toBe(DISGUISED_WRITES.length);
  });

  it.each(DISGUISED_WRITES.map((sql) => [sql]))('refuses %j and leaves the database bytes unchanged', async (sql) => {
    const error = await fixture.bridge.query(sql).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(OpsgateError.isInstance(error), `${sql} was not refused`).toBe(true);
    // Defensive mode makes SQLite reject writes to the schema table before the authorizer is asked.
    const expected = /sqlite_(schema|master)/.test(sql) ? [...REFUSALS, 'SQL_FAILED'] : REFUSALS;
    expect(expected).toContain((error as OpsgateError).code);
    expect(fixture.fileHash()).toBe(before);
  });

  it('wrote no file through ATTACH or VACUUM INTO', () => {
    expect(ATTACK_FILES.filter((written) => existsSync(written))).toEqual([]);
  });

  it.each(SCARY_READS.map((sql) => [sql]))('answers the read %j', async (sql) => {
    const result = await fixture.bridge.query(sql);
    expect(result.columns.length).toBeGreaterThan(0);
    expect(fixture.fileHash()).toBe(before);
  });

  it('answers a read without parameters through the read process', async () => {
    expect((await fixture.engine.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('still sees the real tables after the temp-object attempts (no shadowing)', async () => {
    const { rows } = await fixture.bridge.query('SELECT count(*) AS n FROM customers');
    expect(rows[0]).toEqual({ n: 5 });
  });

  it('classifies a plain write as WriteOutsideTransactionError and a smuggled COMMIT as SQL_NOT_ALLOWED', async () => {
    await expect(fixture.bridge.query('DELETE FROM orders')).rejects.toMatchObject({ name: 'WriteOutsideTransactionError' });
    await expect(fixture.bridge.query('COMMIT; DROP TABLE orders')).rejects.toMatchObject({ code: 'SQL_NOT_ALLOWED' });
    await expect(fixture.bridge.query('SELECT 1; DROP TABLE orders')).rejects.toMatchObject({ code: 'SQL_MULTIPLE_STATEMENTS' });
    await expect(fixture.bridge.query('   ')).rejects.toMatchObject({ code: 'SQL_EMPTY' });
    await expect(fixture.bridge.query('SELEKT 1')).rejects.toMatchObject({ code: 'SQL_FAILED' });
  });
});

describe('transaction path refuses anything that would end the transaction or reach another file', () => {
  let fixture: SandboxFixture;
  beforeAll(async () => {
    fixture = await createSandboxFixture();
  });
  afterAll(() => fixture.dispose());

  it.each([
    'COMMIT',
    'ROLLBACK',
    'END',
    'COMMIT; DROP TABLE orders',
    'SAVEPOINT s',
    'RELEASE s',
    "ATTACH DATABASE '/tmp/opsgate-sandbox-attack.db' AS x",
    "VACUUM INTO '/tmp/opsgate-sandbox-vacuum-into.db'",
    'PRAGMA writable_schema = ON',
    'PRAGMA journal_mode = OFF',
    'CREATE TEMP VIEW customers AS SELECT 1 AS id',
    "SELECT load_extension('/tmp/evil.so')",
    'INSERT INTO temp.scratch VALUES (1)',
  ])('refuses %j and keeps the transaction open', async (sql) => {
    const transaction = await fixture.bridge.beginTransaction();
    await transaction.execute('UPDATE products SET stock = 999 WHERE id = 1');
    const error = await transaction.execute(sql).catch((caught: unknown) => caught);
    expect(OpsgateError.isInstance(error)).toBe(true);
    expect(['SQL_NOT_ALLOWED', 'SQL_FAILED', 'SQL_MULTIPLE_STATEMENTS']).toContain((error as OpsgateError).code);
    // The transaction is still open and still uncommitted: the read path sees the old value.
    expect((await transaction.preview()).rows).toHaveLength(1);
    expect((await fixture.bridge.query('SELECT stock FROM products WHERE id = 1')).rows[0]).toEqual({ stock: 12 });
    await transaction.rollback();
  });
});

describe('single statement check', () => {
  it('accepts only whitespace, comments and semicolons after the statement', () => {
    expect(isOnlyTrivia(' ; -- x\n /* y */ ;')).toBe(true);
    expect(isOnlyTrivia('/* unterminated')).toBe(true);
    expect(isOnlyTrivia('-- no newline')).toBe(true);
    expect(isOnlyTrivia('; x')).toBe(false);
    expect(isOnlyTrivia('/*/ x */')).toBe(true);
    expect(isOnlyTrivia('-- x\nSELECT 1')).toBe(false);
    expect(isOnlyTrivia('/* x */ SELECT 1')).toBe(false);
    expect(() => assertSingleStatement('SELECT 1', 'SELECT 2')).toThrow(/does not match/);
    expect(() => assertSingleStatement('SELECT 1; SELECT 2', 'SELECT 1;')).toThrow(/exactly one SQL statement/);
  });

  it('reads the kind of a statement after comments and whitespace', () => {
    expect(statementKind('  /* a */ -- b\n select 1')).toBe('SELECT');
    expect(statementKind('with x as (select 1) select * from x')).toBe('WITH');
    expect(statementKind(';;DROP TABLE x')).toBe('DROP');
    expect(statementKind('/* only a comment')).toBe('');
  });

  it('reads a statement’s kind past comments of every shape', () => {
    expect(statementKind('-- only a comment')).toBe('');
    expect(statementKind('(SELECT 1)')).toBe('');
    expect(statementKind('/*/ x */ select 1')).toBe('SELECT');
    expect(statementKind('-- a\n-- b\nDELETE FROM t')).toBe('DELETE');
  });
});
