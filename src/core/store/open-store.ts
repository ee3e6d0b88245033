import { dirname, join, resolve } from 'node:path';
import { Kysely, type LogEvent, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { CoreErrors } from '../errors/index.ts';
import { commitSlotsOf } from './commit-slots.ts';
import { makeSqliteFilesPrivate } from './file-modes.ts';
import { runMigrations, type StoreDialectName, type StoreMigration } from './migration.ts';
import { coreInitialMigration } from './migrations/core-001-initial.ts';
import { runnerLeasesMigration } from './migrations/core-002-runner-leases.ts';
import { auditJournalMigration } from './migrations/core-003-audit-journal.ts';
import { modelUsageMigration } from './migrations/core-010-model-usage.ts';
import { auditAnchorsMigration } from './migrations/core-030-audit-anchors.ts';
import { tokenScopeExpiryMigration } from './migrations/core-040-token-scope-expiry.ts';
import { oauthMigration } from './migrations/core-090-oauth.ts';
import { fewerPagesMigration } from './migrations/core-100-fewer-pages.ts';
import { openSqlite } from './node-sqlite-dialect.ts';
import { preparedStatementsPool } from './prepared-statements.ts';
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
  /** The audit key (base64 or hex, ≥ 32 bytes). Default: `OPSGATE_AUDIT_KEY`, else the file `<dataDir>/audit.key`. */
  readonly auditKey?: string;
  /** Where signed audit checkpoints are appended. Default: `OPSGATE_AUDIT_CHECKPOINT_FILE`, else `<dataDir>/audit-checkpoints.jsonl`. */
  readonly auditCheckpointFile?: string;
  /** The external checkpoint anchor's write command (`src/core/audit/checkpoint-anchor.ts`). Default: `OPSGATE_AUDIT_ANCHOR_COMMAND`. */
  readonly auditAnchorCommand?: string;
  /** The command that prints the anchor back, for verify. Default: `OPSGATE_AUDIT_ANCHOR_READ_COMMAND`. */
  readonly auditAnchorReadCommand?: string;
  /** Called with every statement the store runs (tests and benchmarks count a round trip's work with it). */
  readonly onStatement?: (sql: string) => void;
  /**
   * Which commits wait for their WAL flush on PostgreSQL. `effects` (the default): those followed by
   * something irreversible (a tool's side effect); the others (a session's start, a pause for
   * approval, the end of a turn) are acknowledged before their flush and made durable by the next
   * flush (docs/load-and-faults.md, "What a server crash can lose"). `all`: every commit. Default:
   * `OPSGATE_DURABLE_COMMITS`, else `effects`. SQLite commits as before either way.
   */
  readonly durableCommits?: DurableCommits;
  /**
   * Transactions PostgreSQL commits at once for all replicas together (group commit; shared among
   * the live replicas). Default: `OPSGATE_COMMIT_SLOTS`, else the cores of this machine, at least 2.
   */
  readonly commitSlots?: number;
}

/** Which commits wait for their WAL flush (`StoreOptions.durableCommits`). */
export type DurableCommits = 'effects' | 'all';
const DURABLE_COMMITS: readonly DurableCommits[] = ['effects', 'all'];

function durableCommitsOf(options: StoreOptions): DurableCommits {
  const chosen = options.durableCommits ?? (process.env.OPSGATE_DURABLE_COMMITS || 'effects');
  if (!DURABLE_COMMITS.includes(chosen as DurableCommits))
    throw CoreErrors.CONFIG_INVALID({
      detail: `OPSGATE_DURABLE_COMMITS is "${chosen}"; use "effects" (the default: commits before a side effect wait for their flush) or "all" (every commit does)`,
    });
  return chosen as DurableCommits;
}

/**
 * Where the audit's anchors live, outside the database (read by `src/core/audit`). The key file
 * and the checkpoint file sit in the data directory (for a SQLite file given alone: its directory).
 */
export interface AuditAnchorConfig {
  readonly key?: string;
  readonly keyFile?: string;
  readonly checkpointFile?: string;
  /** The external anchor every replica sends each checkpoint to, and verify reads back. */
  readonly anchorCommand?: string;
  readonly anchorReadCommand?: string;
}

function statementLog(options: StoreOptions): { log?: (event: LogEvent) => void } {
  const onStatement = options.onStatement;
  return onStatement ? { log: (event) => onStatement(event.query.sql) } : {};
}

/** The database opsgate keeps everything in, one typed query layer over SQLite or PostgreSQL. */
export interface Store {
  readonly db: Kysely<CoreDatabase>;
  readonly dialect: StoreDialectName;
  /** Human-readable location (a file path or a redacted URL). */
  readonly location: string;
  /** Connections the store opens at most (PostgreSQL's pool; SQLite has one). */
  readonly poolSize: number;
  /** Which commits wait for their WAL flush (PostgreSQL). */
  readonly durableCommits: DurableCommits;
  /** Commits at once on the database for all replicas together (PostgreSQL's group commit; SQLite has one writer). */
  readonly commitSlots: number;
  /**
   * Makes every write so far durable now. SQLite groups the writes of one event-loop turn into
   * one commit; call this before a side effect that must only happen after the state is stored.
   */
  flush(): Promise<void>;
  /**
   * Cross-process notifications (PostgreSQL LISTEN/NOTIFY), so that every replica sharing the
   * database hears what another wrote. Undefined for SQLite: one process serves one file.
   */
  readonly notifications?: StoreNotifications;
  /** Where the audit key and checkpoint file are; absent for a throwaway (`:memory:`) store. */
  readonly auditAnchors?: AuditAnchorConfig;
  /** Applies migrations contributed later (idempotent). */
  migrate(migrations: readonly StoreMigration[]): Promise<string[]>;
  close(): Promise<void>;
}

export interface StoreNotifications {
  /** Sends `payload` (at most 8,000 bytes) on `channel` to every listener, this process included. */
  notify(channel: string, payload: string): Promise<void>;
  /** Listens on `channel` on a dedicated connection; returns how to stop. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
}

/** How soon a dropped listening connection is re-opened: from 250 ms, doubling up to 10 s. */
const LISTEN_RETRY_MIN_MS = 250;
const LISTEN_RETRY_MAX_MS = 10_000;

function postgresNotifications(databaseUrl: string, db: Kysely<CoreDatabase>, onClose: Array<() => Promise<void>>): StoreNotifications {
  return {
    async notify(channel, payload) {
      await sql`select pg_notify(${channel}, ${payload})`.execute(db);
    },
    async listen(channel, onPayload) {
      if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
      let client: pg.Client | undefined;
      let stopped = false;
      let retryMs = LISTEN_RETRY_MIN_MS;
      // The listening connection is re-opened when the server drops it (a restart, a failover), so
      // replicas keep hearing each other without a manual step.
      const connect = async (): Promise<void> => {
        const next = new pg.Client({ connectionString: databaseUrl });
        next.on('error', () => {});
        next.on('end', () => {
          if (!stopped) reconnectLater();
        });
        next.on('notification', (message) => {
          if (message.channel === channel && message.payload !== undefined) onPayload(message.payload);
        });
        client = next;
        await next.connect();
        await next.query(`LISTEN ${channel}`);
        retryMs = LISTEN_RETRY_MIN_MS;
      };
      const reconnectLater = () => {
        const timer = setTimeout(() => {
          if (stopped) return;
          connect().catch(() => {
            retryMs = Math.min(retryMs * 2, LISTEN_RETRY_MAX_MS);
            if (!stopped) reconnectLater();
          });
        }, retryMs);
        timer.unref();
      };
      await connect();
      const stop = async () => {
        stopped = true;
        const index = onClose.indexOf(stop);
        if (index >= 0) onClose.splice(index, 1);
        await client?.end().catch(() => {});
      };
      onClose.push(stop);
      return stop;
    },
  };
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
  const durableCommits = durableCommitsOf(options);
  const commitSlots = commitSlotsOf(options.commitSlots);
  const databaseUrl = options.databaseUrl ?? process.env.OPSGATE_DATABASE_URL ?? '';
  let db: Kysely<CoreDatabase>;
  let dialect: StoreDialectName;
  let location: string;
  let flush = async () => {};
  let notifications: StoreNotifications | undefined;
  let anchorDir: string | undefined = options.dataDir === undefined ? undefined : resolveDataDir(options.dataDir);
  const onClose: Array<() => Promise<void>> = [];
  /** What ends after the database is closed (the SQLite checkpoint worker). */
  let afterClose = async () => {};
  if (databaseUrl) {
    dialect = 'postgres';
    location = redactUrl(databaseUrl);
    const pool = new pg.Pool({ connectionString: databaseUrl, max: options.poolSize ?? 10 });
    // An idle client that the server drops (restart, admin shutdown) must not crash the process;
    // the pool replaces it on the next query.
    pool.on('error', () => {});
    db = new Kysely<CoreDatabase>({ dialect: new PostgresDialect({ pool: preparedStatementsPool(pool) }), ...statementLog(options) });
    notifications = postgresNotifications(databaseUrl, db, onClose);
    anchorDir ??= resolveDataDir();
  } else {
    dialect = 'sqlite';
    const path = options.sqlitePath ?? join(resolveDataDir(options.dataDir), 'opsgate.db');
    if (path !== ':memory:') {
      makeSqliteFilesPrivate(path, options.sqlitePath === undefined);
      anchorDir ??= dirname(resolve(path));
    }
    location = path;
    const sqlite = openSqlite(path);
    afterClose = async () => sqlite.database.checkpointer?.stopped();
    db = new Kysely<CoreDatabase>({ dialect: sqlite.dialect, ...statementLog(options) });
    // Runs on Kysely's one connection, after any query already queued on it.
    flush = async () => {
      await db.connection().execute(async () => sqlite.database.flush());
    };
  }
  // Every migration the store was ever given is kept, so that one part migrating its own tables
  // never looks like another part's migrations went missing.
  const known = new Map<string, StoreMigration>(
    [
      coreInitialMigration,
      runnerLeasesMigration,
      auditJournalMigration,
      modelUsageMigration,
      auditAnchorsMigration,
      tokenScopeExpiryMigration,
      oauthMigration,
      fewerPagesMigration,
    ].map((m) => [m.name, m]),
  );
  const auditKey = options.auditKey ?? process.env.OPSGATE_AUDIT_KEY;
  const checkpointFile =
    (options.auditCheckpointFile ?? process.env.OPSGATE_AUDIT_CHECKPOINT_FILE) || (anchorDir && join(anchorDir, 'audit-checkpoints.jsonl'));
  const anchorCommand = options.auditAnchorCommand ?? process.env.OPSGATE_AUDIT_ANCHOR_COMMAND;
  const anchorReadCommand = options.auditAnchorReadCommand ?? process.env.OPSGATE_AUDIT_ANCHOR_READ_COMMAND;
  const auditAnchors: AuditAnchorConfig | undefined =
    auditKey || anchorDir || anchorCommand || anchorReadCommand
      ? {
          ...(auditKey ? { key: auditKey } : {}),
          ...(anchorDir ? { keyFile: join(anchorDir, 'audit.key') } : {}),
          ...(checkpointFile ? { checkpointFile } : {}),
          ...(anchorCommand ? { anchorCommand } : {}),
          ...(anchorReadCommand ? { anchorReadCommand } : {}),
        }
      : undefined;
  const store: Store = {
    db,
    dialect,
    location,
    poolSize: dialect === 'postgres' ? (options.poolSize ?? 10) : 1,
    durableCommits,
    commitSlots,
    flush,
    ...(notifications ? { notifications } : {}),
    ...(auditAnchors ? { auditAnchors } : {}),
    migrate: (migrations) => {
      for (const migration of migrations) known.set(migration.name, migration);
      return runMigrations(db as Kysely<unknown>, dialect, [...known.values()]);
    },
    close: async () => {
      for (const stop of [...onClose]) await stop();
      await db.destroy();
      await afterClose();
    },
  };
  await store.migrate(options.migrations ?? []);
  return store;
}
