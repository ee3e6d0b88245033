import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { isTransientConflict } from './unit-of-work.ts';

/** The error node:sqlite throws for `sql`, run after `setup` on a fresh in-memory database. */
function sqliteError(setup: string, sql: string): unknown {
  const db = new DatabaseSync(':memory:');
  db.exec(setup);
  try {
    db.exec(sql);
  } catch (error) {
    return error;
  } finally {
    db.close();
  }
  throw new Error(`${sql} did not fail`);
}

describe('transient conflicts of concurrent writers', () => {
  const table = "CREATE TABLE t (id INTEGER PRIMARY KEY, u TEXT UNIQUE); INSERT INTO t VALUES (1, 'x');";

  it('are read from the driver error fields: a unique or primary-key clash, busy, a PostgreSQL serialization failure', () => {
    expect(isTransientConflict(sqliteError(table, "INSERT INTO t VALUES (2, 'x')"))).toBe(true);
    expect(isTransientConflict(sqliteError(table, "INSERT INTO t VALUES (1, 'y')"))).toBe(true);
    expect(isTransientConflict({ code: 'ERR_SQLITE_ERROR', errcode: 5 })).toBe(true);
    expect(isTransientConflict({ code: 'ERR_SQLITE_ERROR', errcode: 517 })).toBe(true);
    expect(isTransientConflict({ code: '40001' })).toBe(true);
  });

  it('are not a message that only reads like one, nor another failure', () => {
    expect(isTransientConflict(new Error('database is locked'))).toBe(false);
    expect(isTransientConflict(sqliteError(table, 'INSERT INTO missing VALUES (1)'))).toBe(false);
    expect(isTransientConflict(sqliteError('CREATE TABLE n (v TEXT NOT NULL)', 'INSERT INTO n VALUES (NULL)'))).toBe(false);
  });
});
