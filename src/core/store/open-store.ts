import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { openSqlite } from './node-sqlite-dialect.ts';
import { runMigrations, type StoreDialectName, type StoreMigration } from './migration.ts';
import { coreInitialMigration } from './migrations/core-001-initial.ts';
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
  if (databaseUrl) {
    dialect = 'postgres';
    location = redactUrl(databaseUrl);
    const pool = new pg.Pool({ connectionString: databaseUrl, max: options.poolSize ?? 10 });
    db = new Kysely<CoreDatabase>({ dialect: new PostgresDialect({ pool }) });
  } else {
    dialect = 'sqlite';
    const path = options.sqlitePath ?? join(resolveDataDir(options.dataDir), 'opsgate.db');
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    location = path;
    db = new Kysely<CoreDatabase>({ dialect: openSqlite(path).dialect });
  }
  const store: Store = {
    db,
    dialect,
    location,
    migrate: (migrations) => runMigrations(db as Kysely<unknown>, dialect, [coreInitialMigration, ...migrations]),
    close: () => db.destroy(),
  };
  await store.migrate(options.migrations ?? []);
  return store;
}
