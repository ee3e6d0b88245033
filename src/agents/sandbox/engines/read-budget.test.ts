import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpsgateError } from '../../../core/errors/index.ts';
import { createSandboxFixture, type SandboxFixture } from '../demo/testing.ts';

const ENDLESS_COUNT = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) AS n FROM c';
const ENDLESS_ROWS = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c';
const SELF_JOIN = `SELECT count(*) FROM ${Array.from({ length: 14 }, (_, index) => `customers c${index}`).join(', ')}`;

async function refusal(promise: Promise<unknown>): Promise<OpsgateError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!OpsgateError.isInstance(error)) throw new Error('the read was not refused');
  return error;
}

describe('read budget: a runaway read is stopped with a clear error and the database is unchanged', () => {
  let fixture: SandboxFixture;
  let before: string;
  let files: string[];
  beforeAll(async () => {
    fixture = await createSandboxFixture('budget-test', { readBudget: { timeMs: 400, maxRows: 50 } });
    before = fixture.fileHash();
    files = readdirSync(fixture.dir).sort();
  });
  afterAll(() => fixture.dispose());

  it.each([
    ['an endless WITH RECURSIVE count', ENDLESS_COUNT],
    ['a 14-way self-join', SELF_JOIN],
  ])('stops %s past its time budget', async (_name, sql) => {
    const error = await refusal(fixture.bridge.query(sql));
    expect(error.code).toBe('READ_BUDGET_EXCEEDED');
    expect(error.fields).toMatchObject({ limit: 'time', timeMs: 400 });
    expect(error.message).toContain('ran longer than 400 ms');
    expect(fixture.fileHash()).toBe(before);
    expect(readdirSync(fixture.dir).sort()).toEqual(files);
  });

  it('answers the next read after a runaway one was stopped', async () => {
    await refusal(fixture.bridge.query(ENDLESS_COUNT));
    const { rows } = await fixture.bridge.query('SELECT count(*) AS n FROM customers');
    expect(rows[0]).toEqual({ n: 5 });
    expect(fixture.fileHash()).toBe(before);
  });

  it('still refuses writes before any process hop', async () => {
    await expect(fixture.bridge.query('DELETE FROM orders')).rejects.toMatchObject({ code: 'WRITE_OUTSIDE_TRANSACTION' });
  });
});

describe('read budget: rows', () => {
  let fixture: SandboxFixture;
  // A time budget no machine reaches first, however loaded: only the row budget can stop this read.
  beforeAll(async () => {
    fixture = await createSandboxFixture('row-budget-test', { readBudget: { timeMs: 120_000, maxRows: 50 } });
  });
  afterAll(() => fixture.dispose());

  it('stops a read that returns more rows than its budget', async () => {
    const error = await refusal(fixture.bridge.query(ENDLESS_ROWS));
    expect(error.code).toBe('READ_BUDGET_EXCEEDED');
    expect(error.fields).toMatchObject({ limit: 'rows', maxRows: 50 });
  });
});

describe('read budget: bytes', () => {
  let fixture: SandboxFixture;
  beforeAll(async () => {
    fixture = await createSandboxFixture('byte-budget-test', { readBudget: { timeMs: 120_000, maxBytes: 20_000 } });
  });
  afterAll(() => fixture.dispose());

  it('stops a read whose rows come to more bytes than its budget, and answers a smaller one', async () => {
    const wide = (rows: number) =>
      `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ${rows}) SELECT x, printf('%.100c', 'y') AS pad FROM c`;
    const error = await refusal(fixture.bridge.query(wide(1_000)));
    expect(error.code).toBe('READ_BUDGET_EXCEEDED');
    expect(error.fields).toMatchObject({ limit: 'bytes', maxBytes: 20_000 });
    expect(error.message).toContain('more than 20000 bytes');
    expect((await fixture.bridge.query(wide(100))).rowCount).toBe(100);
  });
});

describe('read path: harmless reads are allowed, no-op writes are refused by kind', () => {
  let fixture: SandboxFixture;
  let before: string;
  beforeAll(async () => {
    fixture = await createSandboxFixture('harmless-reads');
    before = fixture.fileHash();
  });
  afterAll(() => fixture.dispose());

  it.each([
    `SELECT json_object('a', 1) -> '$.a' AS a, json_object('a', 'x') ->> '$.a' AS b`,
    'SELECT sqlite_source_id() AS id',
    "SELECT sqlite_compileoption_used('THREADSAFE') AS used",
    'PRAGMA integrity_check',
    'PRAGMA quick_check',
    'PRAGMA page_count',
    'PRAGMA page_size',
    'PRAGMA freelist_count',
    'PRAGMA user_version',
    'PRAGMA journal_mode',
    'PRAGMA compile_options',
    'PRAGMA database_list',
    'PRAGMA foreign_key_check',
    'PRAGMA integrity_check(10)',
    'SELECT * FROM pragma_quick_check()',
  ])('answers %j', async (sql) => {
    const result = await fixture.bridge.query(sql);
    expect(result.columns.length).toBeGreaterThan(0);
    expect(fixture.fileHash()).toBe(before);
  });

  it.each([
    ['PRAGMA user_version = 7', 'SQL_NOT_ALLOWED'],
    ['PRAGMA page_size = 8192', 'SQL_NOT_ALLOWED'],
    ['PRAGMA journal_mode = DELETE', 'SQL_NOT_ALLOWED'],
    ['DROP TABLE IF EXISTS no_such_table', 'WRITE_OUTSIDE_TRANSACTION'],
    ['DROP INDEX IF EXISTS no_such_index', 'WRITE_OUTSIDE_TRANSACTION'],
    ['DROP VIEW IF EXISTS no_such_view', 'WRITE_OUTSIDE_TRANSACTION'],
    ['DROP TRIGGER IF EXISTS no_such_trigger', 'WRITE_OUTSIDE_TRANSACTION'],
    ['/* c */ -- x\n drop table if exists nope', 'WRITE_OUTSIDE_TRANSACTION'],
    ['REINDEX', 'SQL_NOT_ALLOWED'],
  ])('refuses %j with %s', async (sql, code) => {
    expect((await refusal(fixture.bridge.query(sql))).code).toBe(code);
    expect(fixture.fileHash()).toBe(before);
  });
});
