import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { OpsgateError } from '../../../core/errors/index.ts';
import { SandboxErrors, sqlFailed, TransactionConflictError, WriteOutsideTransactionError } from '../errors.ts';
import {
  type ChangePreview,
  type ColumnSummary,
  type JsonValue,
  type QueryResult,
  type SandboxEngine,
  type SqlParam,
  type StatementRecord,
  summarise,
  type TableSummary,
} from './engine.ts';
import { CATALOG_STATEMENT, reachableFunctions } from './postgres-catalog.ts';
import { judgeFunctions } from './postgres-function-policy.ts';
import { inspectPostgresStatement, loadPostgresParser, type PostgresReadStatement } from './postgres-statement.ts';
import { type ReadBudget, ReadMeter, resolveReadBudget } from './read-budget.ts';

interface OpenTransaction {
  readonly id: string;
  readonly client: pg.PoolClient;
  readonly statements: StatementRecord[];
}

/** SQLSTATEs that mean "this statement would write": read-only transaction, insufficient privilege on a write. */
const READ_ONLY_VIOLATION = '25006';

function toJsonValue(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return { blobHex: value.toString('hex') };
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}

export interface PostgresEngineOptions {
  /** Time, row and byte budget of a read (the time is the pool's `statement_timeout`). */
  readonly readBudget?: Partial<ReadBudget>;
  /** Functions defined in the database (`schema.name`) that an admin marked safe to run on the read path. */
  readonly safeFunctions?: readonly string[];
  /** Connections in the pool. Default 4. */
  readonly poolSize?: number;
}

/** The cursor a read fetches through; one at a time per connection, closed with its transaction. */
const CURSOR = 'opsgate_read';
/** Rows per FETCH after the first: the byte budget is checked between batches. */
const BATCH_ROWS = 1_000;

/**
 * A PostgreSQL sandbox. A read is parsed by PostgreSQL's own parser (libpg-query): one statement,
 * of a read kind (SELECT, VALUES, WITH, EXPLAIN without ANALYZE, SHOW); every function it could run
 * is looked up in the catalog and judged by an allow-list (`postgres-function-policy.ts`). It then
 * runs in a `READ ONLY` transaction — a SELECT through `DECLARE … CURSOR`, whose grammar admits only
 * SELECT and VALUES, fetched under the row and byte budget — that is always rolled back, and the
 * connection is reset (all `DISCARD ALL` does but drop the engine's own prepared catalog lookup) before
 * it goes back to the pool; a failed reset drops it, and so does the end of a write transaction.
 * Transaction-path statements run as `PREPARE … AS <statement>` then `EXECUTE` over the extended
 * protocol: PostgreSQL's grammar admits only SELECT, VALUES, INSERT, UPDATE, DELETE and MERGE
 * there, so transaction control, `COPY`, `DO`, `SET` and DDL are refused by the server, and the
 * protocol refuses a second statement. Superuser connections are refused: connect with a
 * least-privilege role.
 */
export class PostgresSandboxEngine implements SandboxEngine {
  readonly dialect = 'postgres' as const;
  readonly #pool: pg.Pool;
  readonly #budget: ReadBudget;
  readonly #safeFunctions: ReadonlySet<string>;
  /** Parse results by statement text (the parse depends on nothing else; the catalog check is never cached). */
  readonly #statements = new Map<string, PostgresReadStatement>();
  #transaction: OpenTransaction | undefined;
  #pending = false;

  private constructor(pool: pg.Pool, budget: ReadBudget, safeFunctions: ReadonlySet<string>) {
    this.#pool = pool;
    this.#budget = budget;
    this.#safeFunctions = safeFunctions;
  }

  static async connect(url: string, options: PostgresEngineOptions = {}): Promise<PostgresSandboxEngine> {
    const budget = resolveReadBudget(options.readBudget);
    await loadPostgresParser();
    const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 4, statement_timeout: budget.timeMs });
    // An idle client dropped by the server (restart, DROP DATABASE) must not crash the process.
    pool.on('error', () => {});
    try {
      const { rows } = await pool.query<{ rolsuper: boolean }>('SELECT rolsuper FROM pg_roles WHERE rolname = current_user');
      if (rows[0]?.rolsuper) {
        throw SandboxErrors.SANDBOX_UNAVAILABLE({
          detail: 'the URL connects as a superuser, who could write around a read-only transaction; connect as a role without superuser',
        });
      }
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PostgresSandboxEngine(pool, budget, new Set(options.safeFunctions ?? []));
  }

  async #run(client: pg.PoolClient, sql: string, params: readonly SqlParam[]): Promise<QueryResult> {
    const name = `opsgate_${randomUUID().replaceAll('-', '')}`;
    try {
      await client.query({ text: `PREPARE ${name} AS ${sql}`, values: [], queryMode: 'extended' } as pg.QueryConfig);
    } catch (error) {
      throw classify(error, 'prepare', this.#budget.timeMs);
    }
    try {
      // EXECUTE is a utility statement: its arguments cannot be bound, so they are quoted literals.
      const result = await client.query({
        text: `EXECUTE ${name}${literals(client, params)}`,
        values: [],
        queryMode: 'extended',
      } as pg.QueryConfig);
      const columns = result.fields.map((field) => field.name);
      const rows = result.rows.map(toJsonRow);
      const isRead = result.command === 'SELECT' || result.command === 'VALUES';
      return isRead ? { columns, rows, rowCount: rows.length } : { columns, rows, rowCount: rows.length, changes: result.rowCount ?? 0 };
    } catch (error) {
      throw classify(error, 'execute', this.#budget.timeMs);
    } finally {
      await client.query(`DEALLOCATE ${name}`).catch(() => {});
    }
  }

  async query(sql: string, params: readonly SqlParam[] = []): Promise<QueryResult> {
    return this.#read(sql, params, (client, statement) =>
      statement.kind === 'select' ? this.#fetch(client, sql, params) : this.#whole(client, sql, params),
    );
  }

  /**
   * The read path's frame: refuse by kind before taking a connection, refuse by the catalog inside
   * the read-only transaction, then always roll back and reset the connection.
   */
  async #read(
    sql: string,
    params: readonly SqlParam[],
    work: (client: pg.PoolClient, statement: PostgresReadStatement) => Promise<QueryResult>,
  ): Promise<QueryResult> {
    const statement = this.#inspect(sql);
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN TRANSACTION READ ONLY');
      const refusal = judgeFunctions(await reachableFunctions(client, statement), this.#safeFunctions);
      if (refusal)
        throw SandboxErrors.SQL_NOT_ALLOWED({ path: 'read', reason: refusal.reason, action: 'FUNCTION', function: refusal.function });
      return await work(client, statement);
    } finally {
      client.release(await endRead(client));
    }
  }

  #inspect(sql: string): PostgresReadStatement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = inspectPostgresStatement(sql);
      if (this.#statements.size >= 256) this.#statements.delete(this.#statements.keys().next().value!);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** A SELECT through a cursor, fetched in batches under the row and byte budget and the time left. */
  async #fetch(client: pg.PoolClient, sql: string, params: readonly SqlParam[]): Promise<QueryResult> {
    const deadline = Date.now() + this.#budget.timeMs;
    const meter = new ReadMeter(this.#budget);
    const rows: Array<Record<string, JsonValue>> = [];
    let columns: string[] = [];
    try {
      await client.query({ text: `DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${sql}`, values: values(params) });
      for (let batch = Math.min(this.#budget.maxRows + 1, 100); ; batch = Math.min(this.#budget.maxRows + 1 - rows.length, BATCH_ROWS)) {
        if (rows.length > 0) await client.query(`SET LOCAL statement_timeout = ${Math.max(1, deadline - Date.now())}`);
        const result = await client.query(`FETCH FORWARD ${batch} FROM ${CURSOR}`);
        columns = result.fields.map((field) => field.name);
        for (const row of result.rows) {
          const converted = toJsonRow(row);
          meter.count(converted);
          rows.push(converted);
        }
        if (result.rows.length < batch) return { columns, rows, rowCount: rows.length };
      }
    } catch (error) {
      throw classify(error, 'read', this.#budget.timeMs);
    }
  }

  /** EXPLAIN and SHOW: short answers, run as written (their kind and functions were checked). */
  async #whole(client: pg.PoolClient, sql: string, params: readonly SqlParam[]): Promise<QueryResult> {
    const meter = new ReadMeter(this.#budget);
    try {
      const result = await client.query({ text: sql, values: values(params), queryMode: 'extended' } as pg.QueryConfig);
      const rows = result.rows.map(toJsonRow);
      for (const row of rows) meter.count(row);
      return { columns: result.fields.map((field) => field.name), rows, rowCount: rows.length };
    } catch (error) {
      throw classify(error, 'read', this.#budget.timeMs);
    }
  }

  openTransaction(): string | undefined {
    return this.#transaction?.id;
  }

  async begin(): Promise<string> {
    if (this.#transaction) throw new TransactionConflictError(this.#transaction.id);
    if (this.#pending) throw new TransactionConflictError('(being opened)');
    this.#pending = true;
    try {
      const client = await this.#pool.connect();
      await client.query('BEGIN');
      this.#transaction = { id: randomUUID(), client, statements: [] };
      return this.#transaction.id;
    } finally {
      this.#pending = false;
    }
  }

  #open(transactionId: string): OpenTransaction {
    if (!this.#transaction || this.#transaction.id !== transactionId) throw SandboxErrors.TRANSACTION_NOT_FOUND({ transactionId });
    return this.#transaction;
  }

  async execute(transactionId: string, sql: string, params: readonly SqlParam[] = []): Promise<QueryResult> {
    const transaction = this.#open(transactionId);
    await transaction.client.query('SAVEPOINT opsgate_statement');
    try {
      const result = await this.#run(transaction.client, sql, params);
      await transaction.client.query('RELEASE SAVEPOINT opsgate_statement');
      if (result.changes !== undefined) transaction.statements.push({ sql, params: [...params], changes: result.changes });
      return result;
    } catch (error) {
      // A failed statement leaves the transaction usable, as in SQLite.
      await transaction.client.query('ROLLBACK TO SAVEPOINT opsgate_statement').catch(() => {});
      throw error;
    }
  }

  async preview(transactionId: string): Promise<ChangePreview> {
    const transaction = this.#open(transactionId);
    const statements = [...transaction.statements];
    const unlistedChanges = statements.reduce((sum, statement) => sum + statement.changes, 0);
    const digest = createHash('sha256')
      .update(JSON.stringify(['opsgate-sandbox-changes-v1', 'postgres', statements]))
      .digest('hex');
    return { transactionId, statements, rows: [], schema: [], unlistedChanges, digest, summary: summarise(statements, [], []) };
  }

  async commit(transactionId: string): Promise<void> {
    await this.#end(transactionId, 'COMMIT');
  }

  async rollback(transactionId: string): Promise<void> {
    await this.#end(transactionId, 'ROLLBACK');
  }

  async #end(transactionId: string, command: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    const transaction = this.#open(transactionId);
    this.#transaction = undefined;
    try {
      await transaction.client.query(command);
    } finally {
      // A write may leave anything on its session (`set_config(…, false)`, an advisory lock, a temporary
      // table, a prepared statement): the connection is closed rather than reset. Transactions are rare.
      transaction.client.release(true);
    }
  }

  async tables(): Promise<TableSummary[]> {
    const result = await this.query(
      "SELECT table_name AS name, CASE table_type WHEN 'VIEW' THEN 'view' ELSE 'table' END AS type FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name",
    );
    return result.rows as unknown as TableSummary[];
  }

  async describe(table: string): Promise<ColumnSummary[]> {
    const result = await this.query(
      `SELECT c.column_name AS name, c.data_type AS type, c.is_nullable = 'NO' AS "notNull",
              EXISTS (SELECT 1 FROM information_schema.key_column_usage k JOIN information_schema.table_constraints t
                        ON t.constraint_name = k.constraint_name AND t.table_schema = k.table_schema
                      WHERE t.constraint_type = 'PRIMARY KEY' AND k.table_name = c.table_name AND k.column_name = c.column_name
                        AND k.table_schema = c.table_schema) AS "primaryKey",
              c.column_default AS "defaultValue"
         FROM information_schema.columns c WHERE c.table_schema = current_schema() AND c.table_name = $1::text ORDER BY c.ordinal_position`,
      [table],
    );
    if (result.rows.length === 0) throw SandboxErrors.SQL_FAILED({ detail: `no such table: ${table}` });
    return result.rows as unknown as ColumnSummary[];
  }

  async explain(sql: string, params: readonly SqlParam[] = []): Promise<QueryResult> {
    return this.#read(sql, params, async (client, statement) => {
      if (statement.kind !== 'select') {
        throw SandboxErrors.SQL_NOT_ALLOWED({
          path: 'read',
          reason: 'only the plan of a SELECT, VALUES or WITH read can be shown',
          action: 'EXPLAIN',
        });
      }
      const plan = await this.#whole(client, `EXPLAIN ${sql}`, params);
      const rows = plan.rows.map((row) => ({ detail: String(Object.values(row)[0]) }));
      return { columns: ['detail'], rows, rowCount: rows.length };
    });
  }

  async close(): Promise<void> {
    if (this.#transaction) await this.#end(this.#transaction.id, 'ROLLBACK').catch(() => {});
    await this.#pool.end();
  }
}

/**
 * What `DISCARD ALL` resets (cursors, settings and role, LISTEN, advisory locks, temporary tables,
 * sequence caches) but `DEALLOCATE ALL` and `DISCARD PLANS`, so the catalog lookup stays prepared
 * (planning it is most of its cost): sent with the `ROLLBACK` in one round trip. Neither path admits
 * `PREPARE`; a prepared statement left anyway (a function an admin marked safe) is counted, and then
 * the connection is dropped.
 */
const END_READ = `ROLLBACK; CLOSE ALL; SET SESSION AUTHORIZATION DEFAULT; RESET ALL; UNLISTEN *;
SELECT pg_advisory_unlock_all(); DISCARD TEMP; DISCARD SEQUENCES;
SELECT count(*)::int AS others FROM pg_prepared_statements WHERE name <> '${CATALOG_STATEMENT}'`;

/** Ends a read; returns an error when the session may not be clean, so the pool drops the connection instead of lending it again. */
async function endRead(client: pg.PoolClient): Promise<Error | undefined> {
  try {
    const results = (await client.query(END_READ)) as unknown as Array<pg.QueryResult<{ others: number }>>;
    const others = results.at(-1)?.rows[0]?.others;
    return others === 0 ? undefined : new Error(`the read left ${others} prepared statement(s) on the session`);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

function values(params: readonly SqlParam[]): unknown[] {
  for (const param of params) {
    if (typeof param === 'number' && !Number.isFinite(param))
      throw SandboxErrors.SQL_FAILED({ detail: `parameter ${param} is not a finite number` });
  }
  return [...params];
}

function toJsonRow(row: Record<string, unknown>): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(row)) out[key] = toJsonValue(value);
  return out;
}

function literals(client: pg.PoolClient, params: readonly SqlParam[]): string {
  if (params.length === 0) return '';
  const quoted = params.map((param) => {
    if (param === null) return 'NULL';
    if (typeof param === 'boolean') return param ? 'TRUE' : 'FALSE';
    if (typeof param === 'number') {
      if (!Number.isFinite(param)) throw SandboxErrors.SQL_FAILED({ detail: `parameter ${param} is not a finite number` });
      return String(param);
    }
    return client.escapeLiteral(param);
  });
  return `(${quoted.join(', ')})`;
}

/** `timeMs` is the statement timeout (the read budget's time), which the person is told when it stops a statement. */
function classify(error: unknown, stage: 'prepare' | 'execute' | 'read', timeMs: number): Error {
  if (OpsgateError.isInstance(error)) return error;
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === READ_ONLY_VIOLATION) return new WriteOutsideTransactionError(`This statement writes (${message}).`);
  if (code === '42601' && stage === 'prepare' && /cannot insert multiple commands/.test(message)) {
    return SandboxErrors.SQL_MULTIPLE_STATEMENTS({ first: '(the first statement)' });
  }
  if (code === '42601' && stage === 'prepare') {
    return SandboxErrors.SQL_NOT_ALLOWED({
      path: 'postgres',
      reason: `only SELECT, VALUES, INSERT, UPDATE, DELETE and MERGE may run (${message})`,
    });
  }
  if (code === '42501') return SandboxErrors.SQL_NOT_ALLOWED({ path: 'postgres', reason: message });
  // statement_timeout cancelled the statement: told in the same words as a SQLite read stopped by its budget.
  if (code === '57014' && /statement timeout/.test(message)) {
    return SandboxErrors.READ_BUDGET_EXCEEDED({ detail: `it ran longer than ${timeMs} ms`, limit: 'time', timeMs }, { cause: error });
  }
  return sqlFailed(error);
}
