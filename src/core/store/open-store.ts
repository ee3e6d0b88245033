import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { runMigrations, type StoreDialectName, type StoreMigration } from './migration.ts';
import { coreInitialMigration } from './migrations/core-001-initial.ts';
import { openSqlite } from './node-sqlite-dialect.ts';
import type { CoreDatabase } from './schema.ts';

export interface StoreOptions {
  /** PostgreSQL connection string; when absent the store is SQLite. Default: `OPSGATE_DATABASE_URL`. */
  readonly databaseUrl?: string;
  /** SQLite file; default `<dataDir>/opsgate.db`. `:memory:` for a throwaway store. */
  readonly sqlitePath?: string;
  /** Default: `OPSGATE_DATA_DIR` or `./data`. */
  readonly dataDir?: string;
  /** Migrations beyond the core ones (agents bring their tables). */
  readonly migrations?: readonly StoreMigration[];
  /** PostgreSQL pool size. Default 10. */
  readonly poolSize?: number;
}

/** The database opsgate keeps everything in, one typed query layer over SQLite or PostgreSQL. */
export interface Store {
  readonly db: Kysely<CoreDatabase>;
  readonly dialect: StoreDialectName;
  /** Human-readable location (a file path or a redacted URL). */
  readonly location: string;
  /**
   * Makes every write so far durable now. SQLite groups the writes of one event-loop turn into
   * one commit; call this before a side effect that must only happen after the state is stored.
   */
  flush(): Promise<void>;
  /** Applies migrations contributed later (idempotent). */
  migrate(migrations: readonly StoreMigration[]): Promise<string[]>;
  close(): Promise<void>;
}

export function resolveDataDir(dataDir?: string): string {
  return resolve(dataDir ?? process.env.OPSGATE_DATA_DIR ?? 'data');
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable url)';
  }
}

export async function openStore(options: StoreOptions = {}): Promise<Store> {
  const databaseUrl = options.databaseUrl ?? process.env.OPSGATE_DATABASE_URL ?? '';
  let db: Kysely<CoreDatabase>;
  let dialect: StoreDialectName;
  let location: string;
  let flush = async () => {};
  if (databaseUrl) {
    dialect = 'postgres';
    location = redactUrl(databaseUrl);
    const pool = new pg.Pool({ connectionString: databaseUrl, max: options.poolSize ?? 10 });
    // An idle client that the server drops (restart, admin shutdown) must not crash the process;
    // the pool replaces it on the next query.
    pool.on('error', () => {});
    db = new Kysely<CoreDatabase>({ dialect: new PostgresDialect({ pool }) });
  } else {
    dialect = 'sqlite';
    const path = options.sqlitePath ?? join(resolveDataDir(options.dataDir), 'opsgate.db');
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    location = path;
    const sqlite = openSqlite(path);
    db = new Kysely<CoreDatabase>({ dialect: sqlite.dialect });
    // Runs on Kysely's one connection, after any query already queued on it.
    flush = async () => {
      await db.connection().execute(async () => sqlite.database.flush());
    };
  }
  // Every migration the store was ever given is kept, so that one part migrating its own tables
  // never looks like another part's migrations went missing.
  const known = new Map<string, StoreMigration>([[coreInitialMigration.name, coreInitialMigration]]);
  const store: Store = {
    db,
    dialect,
    location,
    flush,
    migrate: (migrations) => {
      for (const migration of migrations) known.set(migration.name, migration);
      return runMigrations(db as Kysely<unknown>, dialect, [...known.values()]);
    },
    close: () => db.destroy(),
  };
  await store.migrate(options.migrations ?? []);
  return store;
}
