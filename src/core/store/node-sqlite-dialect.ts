import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';

type SqlValue = null | number | bigint | string | Uint8Array;

function toSqlValues(parameters: ReadonlyArray<unknown>): SqlValue[] {
  return parameters.map((value) => {
    if (value === undefined || value === null) return null;
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value instanceof Date) return value.toISOString();
    return value as SqlValue;
  });
}

/**
 * Kysely's SQLite dialect needs a two-method database; this adapts `node:sqlite`'s
 * `DatabaseSync` to it and caches prepared statements by their SQL text.
 */
class NodeSqliteDatabase implements SqliteDatabase {
  readonly #database: DatabaseSync;
  readonly #statements = new Map<string, SqliteStatement>();

  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  close(): void {
    this.#statements.clear();
    this.#database.close();
  }

  prepare(sql: string): SqliteStatement {
    const cached = this.#statements.get(sql);
    if (cached) return cached;
    const statement: StatementSync = this.#database.prepare(sql);
    const reader = statement.columns().length > 0;
    const wrapped: SqliteStatement = {
      reader,
      all: (parameters) => statement.all(...toSqlValues(parameters)),
      run: (parameters) => statement.run(...toSqlValues(parameters)),
      iterate: (parameters) => statement.iterate(...toSqlValues(parameters)),
    };
    if (this.#statements.size > 500) this.#statements.clear();
    this.#statements.set(sql, wrapped);
    return wrapped;
  }
}

/** Opens a SQLite file in WAL mode for Kysely. `:memory:` works for throwaway stores. */
export function openSqlite(path: string): { dialect: SqliteDialect; database: DatabaseSync } {
  const database = new DatabaseSync(path);
  database.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;');
  return { dialect: new SqliteDialect({ database: new NodeSqliteDatabase(database) }), database };
}
