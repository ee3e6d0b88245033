import { createHash, randomUUID } from 'node:crypto';
import { DatabaseSync, type Session, type StatementSync } from 'node:sqlite';
import { SandboxErrors, sqlFailed, TransactionConflictError } from '../errors.ts';
import { BudgetedReader } from './budgeted-reader.ts';
import { parseChangeset, type RowChange } from './changeset.ts';
import {
  type ChangePreview,
  type ColumnSummary,
  type JsonValue,
  type QueryResult,
  type SandboxEngine,
  type SchemaChange,
  type SqlParam,
  type StatementRecord,
  summarise,
  type TableSummary,
} from './engine.ts';
import { type ReadBudget, resolveReadBudget } from './read-budget.ts';
import { SqlAuthorizer } from './sql-guard.ts';
import { toJsonValue, toParams } from './sqlite-values.ts';

export interface SqliteEngineOptions {
  /** How long a statement waits for a lock, in milliseconds. Default 5000. */
  readonly busyTimeoutMs?: number;
  /** Prepared read statements kept for reuse. Default 256. */
  readonly statementCacheSize?: number;
  /**
   * Time and row budget of `query` (the agent's read path), which then runs in a child process that
   * is killed when a read overruns. Default 10 s and 10,000 rows; `false` runs reads in process, unbounded.
   */
  readonly readBudget?: Partial<ReadBudget> | false;
}

interface OpenTransaction {
  readonly id: string;
  readonly db: DatabaseSync;
  readonly authorizer: SqlAuthorizer;
  readonly session: Session;
  readonly schemaBefore: Map<string, string>;
  readonly statements: StatementRecord[];
}

/** Column names per prepared statement: they never change, and reading them allocates. */
const columnNames = new WeakMap<StatementSync, string[]>();

function columnsOf(statement: StatementSync): string[] {
  let names = columnNames.get(statement);
  if (!names) {
    names = statement.columns().map((column) => column.name);
    columnNames.set(statement, names);
  }
  return names;
}

function runStatement(statement: StatementSync, params: readonly SqlParam[]): QueryResult {
  const columns = columnsOf(statement);
  const bound = params.length === 0 ? params : toParams(params);
  if (columns.length === 0) {
    const result = statement.run(...(bound as Array<string | number | null>));
    return { columns: [...columns], rows: [], rowCount: 0, changes: Number(result.changes) };
  }
  const rows = statement.all(...(bound as Array<string | number | null>)) as Array<Record<string, JsonValue>>;
  // node:sqlite returns fresh plain objects of one shape; only BLOBs and big integers need
  // converting to JSON. Reading by the known column names keeps this loop cheap.
  const width = columns.length;
  for (let r = 0; r < rows.length; r += 1) {
    const row = rows[r]!;
    for (let c = 0; c < width; c += 1) {
      const key = columns[c]!;
      const value = row[key] as unknown;
      if ((typeof value === 'object' && value !== null) || typeof value === 'bigint') row[key] = toJsonValue(value);
    }
  }
  return { columns: [...columns], rows, rowCount: rows.length };
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * A SQLite sandbox. Reads run on a read-only connection whose authorizer admits only reads; the
 * transaction runs on its own connection whose authorizer refuses anything that would end it or
 * reach another file; a session records its row changes for the preview.
 */
export class SqliteSandboxEngine implements SandboxEngine {
  readonly dialect = 'sqlite' as const;
  readonly path: string;
  readonly #timeout: number;
  readonly #cacheSize: number;
  readonly #readDb: DatabaseSync;
  readonly #readGuard = new SqlAuthorizer('read');
  readonly #cache = new Map<string, StatementSync>();
  readonly #budgeted: BudgetedReader | undefined;
  #transaction: OpenTransaction | undefined;

  constructor(path: string, options: SqliteEngineOptions = {}) {
    this.path = path;
    this.#timeout = options.busyTimeoutMs ?? 5000;
    this.#cacheSize = options.statementCacheSize ?? 256;
    this.#readDb = new DatabaseSync(path, { readOnly: true, timeout: this.#timeout, allowExtension: false });
    this.#readDb.enableDefensive(true);
    this.#readGuard.install(this.#readDb);
    this.#budgeted = options.readBudget === false ? undefined : new BudgetedReader(path, resolveReadBudget(options.readBudget));
  }

  #prepareRead(sql: string): StatementSync {
    const cached = this.#cache.get(sql);
    // Stryker disable all: a cache of prepared statements (SQLite re-prepares one, authorizer included, when the schema changed); with it, without it or with another size every read answers the same. Its size bounds memory only
    if (cached) return cached;
    const statement = this.#readGuard.prepare(this.#readDb, sql);
    if (this.#cache.size >= this.#cacheSize) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(sql, statement);
    // Stryker restore all
    return statement;
  }

  /** The agent's read path: under the read budget (in a child process) unless `readBudget: false`. */
  async query(sql: string, params: readonly SqlParam[] = []): Promise<QueryResult> {
    if (!this.#budgeted) return this.querySync(sql, params);
    // Compile in process first: refusals and syntax errors come back without a process hop.
    this.#prepareRead(sql);
    return this.#budgeted.query(sql, params);
  }

  /** The read path without a promise and without a budget (schema listings, the in-process benchmark path). */
  querySync(sql: string, params: readonly SqlParam[] = []): QueryResult {
    const statement = this.#prepareRead(sql);
    return this.#readGuard.run(() => runStatement(statement, params));
  }

  openTransaction(): string | undefined {
    return this.#transaction?.id;
  }

  async begin(): Promise<string> {
    if (this.#transaction) throw new TransactionConflictError(this.#transaction.id);
    const db = new DatabaseSync(this.path, { timeout: this.#timeout, allowExtension: false });
    try {
      db.enableDefensive(true);
      const authorizer = new SqlAuthorizer('transaction');
      authorizer.install(db);
      authorizer.control(() => db.exec('BEGIN IMMEDIATE'));
      const session = db.createSession();
      const schemaBefore = readSchema(db);
      this.#transaction = { id: randomUUID(), db, authorizer, session, schemaBefore, statements: [] };
      return this.#transaction.id;
    } catch (error) {
      db.close();
      throw sqlFailed(error);
    }
  }

  #open(transactionId: string): OpenTransaction {
    const transaction = this.#transaction;
    if (!transaction || transaction.id !== transactionId) throw SandboxErrors.TRANSACTION_NOT_FOUND({ transactionId });
    return transaction;
  }

  async execute(transactionId: string, sql: string, params: readonly SqlParam[] = []): Promise<QueryResult> {
    const transaction = this.#open(transactionId);
    const statement = transaction.authorizer.prepare(transaction.db, sql);
    const before = totalChanges(transaction.db);
    const result = transaction.authorizer.run(() => runStatement(statement, params));
    const changes = totalChanges(transaction.db) - before;
    if (changes > 0 || result.columns.length === 0) transaction.statements.push({ sql, params: [...params], changes });
    return { ...result, changes };
  }

  async preview(transactionId: string): Promise<ChangePreview> {
    return this.previewSync(transactionId);
  }

  previewSync(transactionId: string): ChangePreview {
    const transaction = this.#open(transactionId);
    const changeset = transaction.authorizer.control(() => transaction.session.changeset());
    const columnCache = new Map<string, string[]>();
    const columnsOf = (table: string): string[] => {
      let columns = columnCache.get(table);
      if (!columns) {
        columns = (transaction.db.prepare('SELECT name FROM pragma_table_info(?) ORDER BY cid').all(table) as Array<{ name: string }>).map(
          (row) => row.name,
        );
        columnCache.set(table, columns);
      }
      return columns;
    };
    const rows: RowChange[] = parseChangeset(changeset, columnsOf);
    const schema = diffSchema(transaction.schemaBefore, readSchema(transaction.db));
    const statements = [...transaction.statements];
    const listed = rows.length;
    const changed = statements.reduce((sum, statement) => sum + statement.changes, 0);
    const unlistedChanges = Math.max(0, changed - listed);
    const digest = createHash('sha256')
      .update(JSON.stringify(['opsgate-sandbox-changes-v1', Buffer.from(changeset).toString('hex'), schema, statements]))
      .digest('hex');
    return { transactionId, statements, rows, schema, unlistedChanges, digest, summary: summarise(statements, rows, schema) };
  }

  async commit(transactionId: string): Promise<void> {
    this.#end(transactionId, 'COMMIT');
  }

  async rollback(transactionId: string): Promise<void> {
    this.#end(transactionId, 'ROLLBACK');
  }

  #end(transactionId: string, command: 'COMMIT' | 'ROLLBACK'): void {
    const transaction = this.#open(transactionId);
    try {
      transaction.authorizer.control(() => transaction.db.exec(command));
    } catch (error) {
      throw sqlFailed(error);
    } finally {
      if (!transaction.db.isTransaction || command === 'ROLLBACK') this.#dispose(transaction);
    }
  }

  #dispose(transaction: OpenTransaction): void {
    this.#transaction = undefined;
    transaction.session.close();
    transaction.db.close();
  }

  async tables(): Promise<TableSummary[]> {
    const list = this.querySync(
      "SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name",
    ).rows as Array<{ name: string; type: 'table' | 'view' }>;
    return list.map((entry) =>
      entry.type === 'table'
        ? { ...entry, rows: Number(this.querySync(`SELECT count(*) AS n FROM ${quoteIdentifier(entry.name)}`).rows[0]?.n ?? 0) }
        : entry,
    );
  }

  async describe(table: string): Promise<ColumnSummary[]> {
    const rows = this.querySync('SELECT name, type, "notnull" AS not_null, pk, dflt_value FROM pragma_table_info(?) ORDER BY cid', [table])
      .rows as Array<{ name: string; type: string; not_null: number; pk: number; dflt_value: string | null }>;
    if (rows.length === 0) throw SandboxErrors.SQL_FAILED({ detail: `no such table: ${table}` });
    return rows.map((row) => ({
      name: row.name,
      type: row.type,
      notNull: row.not_null === 1,
      primaryKey: row.pk > 0,
      defaultValue: row.dflt_value,
    }));
  }

  async explain(sql: string, params: readonly SqlParam[] = []): Promise<QueryResult> {
    return this.querySync(`EXPLAIN QUERY PLAN ${sql}`, params);
  }

  async close(): Promise<void> {
    this.#budgeted?.close();
    if (this.#transaction) this.#dispose(this.#transaction);
    this.#cache.clear();
    if (this.#readDb.isOpen) this.#readDb.close();
  }
}

function totalChanges(db: DatabaseSync): number {
  return Number((db.prepare('SELECT total_changes() AS n').get() as { n: number }).n);
}

function readSchema(db: DatabaseSync): Map<string, string> {
  const rows = db.prepare('SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL ORDER BY name').all() as Array<{
    type: string;
    name: string;
    sql: string;
  }>;
  return new Map(rows.map((row) => [`${row.type} ${row.name}`, row.sql]));
}

function diffSchema(before: Map<string, string>, after: Map<string, string>): SchemaChange[] {
  const changes: SchemaChange[] = [];
  for (const [name, sql] of before) {
    const now = after.get(name);
    if (now === undefined) changes.push({ name, operation: 'drop', before: sql });
    else if (now !== sql) changes.push({ name, operation: 'alter', before: sql, after: now });
  }
  for (const [name, sql] of after) if (!before.has(name)) changes.push({ name, operation: 'create', after: sql });
  return changes;
}
