import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { type SqliteDatabase, SqliteDialect, type SqliteStatement } from 'kysely';
import { BACKSTOP_CHECKPOINT_PAGES, BackgroundCheckpointer } from './sqlite-checkpointer.ts';

type SqlValue = null | number | bigint | string | Uint8Array;

function toSqlValues(parameters: ReadonlyArray<unknown>): SqlValue[] {
  return parameters.map((value) => {
    if (value === undefined || value === null) return null;
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value instanceof Date) return value.toISOString();
    return value as SqlValue;
  });
}

const TRANSACTION_CONTROL = /^\s*(begin|commit|end|rollback|savepoint|release)\b/i;
const TRANSACTION_END = /^\s*(commit|end)\s*$/i;

/**
 * Kysely's SQLite dialect needs a two-method database; this adapts `node:sqlite`'s `DatabaseSync`
 * to it, caches prepared statements, and commits in groups: the first write of an event-loop
 * turn opens a transaction that commits when the turn ends (or at `flush()`), so a burst of
 * writes costs one commit instead of one each. Explicit transactions (Kysely's) close the group first.
 */
export class NodeSqliteDatabase implements SqliteDatabase {
  readonly #database: DatabaseSync;
  readonly #checkpointer: BackgroundCheckpointer | undefined;
  readonly #statements = new Map<string, SqliteStatement>();
  #groupOpen = false;
  #explicitDepth = 0;
  #commitScheduled = false;
  /** Why the last scheduled group commit failed; the next `flush()` throws it, so no side effect follows lost writes. */
  #groupFailure: Error | undefined;

  constructor(database: DatabaseSync, checkpointer?: BackgroundCheckpointer) {
    this.#database = database;
    this.#checkpointer = checkpointer;
  }

  /** The background checkpointer of a file database (none for `:memory:`). */
  get checkpointer(): BackgroundCheckpointer | undefined {
    return this.#checkpointer;
  }

  /** Commits the open write group now (before a side effect that must follow durable state). */
  flush(): void {
    const failure = this.#groupFailure;
    this.#groupFailure = undefined;
    if (failure) throw failure;
    if (!this.#groupOpen) return;
    this.#groupOpen = false;
    try {
      this.#database.exec('COMMIT');
      this.#checkpointer?.committed();
    } catch (error) {
      // A failed COMMIT (a full disk) may leave the group open; end it so later writes can start.
      if (this.#database.isTransaction) this.#database.exec('ROLLBACK');
      throw error;
    }
  }

  close(): void {
    this.flush();
    this.#statements.clear();
    // The worker's connection outlives this one for a moment, so this close is not the last one
    // that would fold the log into the file and remove it: do that here, so that the file alone is
    // the whole database once the store is closed (a copy of it is a complete backup, as before).
    if (this.#checkpointer?.started) this.#database.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    this.#database.close();
    this.#checkpointer?.close();
  }

  #beforeWrite(): void {
    if (this.#groupOpen || this.#explicitDepth > 0) return;
    this.#database.exec('BEGIN IMMEDIATE');
    this.#groupOpen = true;
    if (!this.#commitScheduled) {
      this.#commitScheduled = true;
      setImmediate(() => {
        this.#commitScheduled = false;
        if (!this.#database.isOpen || !this.#groupOpen) return;
        try {
          this.flush();
        } catch (error) {
          // Thrown here it would kill the process; the next flush reports it instead.
          this.#groupFailure = error instanceof Error ? error : new Error(String(error));
        }
      });
    }
  }

  #control(sql: string): void {
    const word = sql.trim().split(/\s+/)[0]!.toLowerCase();
    if (word === 'begin') {
      this.flush();
      this.#explicitDepth += 1;
    } else if (word === 'commit' || word === 'end' || word === 'rollback') {
      if (!/\bto\b/i.test(sql)) this.#explicitDepth = Math.max(0, this.#explicitDepth - 1);
    }
  }

  prepare(sql: string): SqliteStatement {
    const cached = this.#statements.get(sql);
    if (cached) return cached;
    const statement: StatementSync = this.#database.prepare(sql);
    const reader = statement.columns().length > 0;
    const control = TRANSACTION_CONTROL.test(sql);
    const ends = TRANSACTION_END.test(sql);
    const mutates = !control && !/^\s*(select|with|explain)\b/i.test(sql);
    const wrapped: SqliteStatement = {
      reader,
      all: (parameters) => {
        if (mutates) this.#beforeWrite();
        return statement.all(...toSqlValues(parameters));
      },
      run: (parameters) => {
        // SQLite already rolled back when a COMMIT failed (a full disk); a ROLLBACK then would
        // hide that error behind "no transaction is active".
        if (control && /^\s*rollback\s*$/i.test(sql) && !this.#database.isTransaction) {
          this.#control(sql);
          return { changes: 0, lastInsertRowid: 0 };
        }
        if (control) this.#control(sql);
        else if (mutates) this.#beforeWrite();
        const result = statement.run(...toSqlValues(parameters));
        if (ends) this.#checkpointer?.committed();
        return result;
      },
      iterate: (parameters) => statement.iterate(...toSqlValues(parameters)),
    };
    if (this.#statements.size > 500) this.#statements.clear();
    this.#statements.set(sql, wrapped);
    return wrapped;
  }
}

/**
 * Opens a SQLite file in WAL mode for Kysely, its checkpoints run by a worker thread (the commit's
 * own automatic checkpoint only as a backstop). `:memory:` works for throwaway stores.
 */
export function openSqlite(path: string): { dialect: SqliteDialect; database: NodeSqliteDatabase } {
  const raw = new DatabaseSync(path);
  // The busy timeout first: switching to WAL takes the file's lock, which another process or the
  // checkpoint worker may hold for a moment.
  raw.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;');
  const onFile = path !== ':memory:' && path !== '';
  if (onFile) raw.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
  const database = new NodeSqliteDatabase(raw, onFile ? new BackgroundCheckpointer(path) : undefined);
  return { dialect: new SqliteDialect({ database }), database };
}
