import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { SandboxErrors, TransactionConflictError, WriteOutsideTransactionError } from '../errors.ts';
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

/**
 * A PostgreSQL sandbox. Every user statement runs as `PREPARE … AS <statement>` then `EXECUTE`
 * over the extended protocol: PostgreSQL's grammar admits only SELECT, VALUES, INSERT, UPDATE,
 * DELETE and MERGE there, so transaction control (`COMMIT`, `SET TRANSACTION READ WRITE`), `COPY`,
 * `DO`, `SET` and DDL are refused by the server, and the protocol refuses a second statement.
 * Reads run in a `READ ONLY` transaction that is always rolled back. Superuser connections are
 * refused: connect with a least-privilege role.
 */
export class PostgresSandboxEngine implements SandboxEngine {
  readonly dialect = 'postgres' as const;
  readonly #pool: pg.Pool;
  #transaction: OpenTransaction | undefined;
  #pending = false;

  private constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  static async connect(url: string, options: { statementTimeoutMs?: number } = {}): Promise<PostgresSandboxEngine> {
    const pool = new pg.Pool({ connectionString: url, max: 4, statement_timeout: options.statementTimeoutMs ?? 10_000 });
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
    return new PostgresSandboxEngine(pool);
  }

  async #run(client: pg.PoolClient, sql: string, params: readonly SqlParam[]): Promise<QueryResult> {
    const name = `opsgate_${randomUUID().replaceAll('-', '')}`;
    try {
      await client.query({ text: `PREPARE ${name} AS ${sql}`, values: [], queryMode: 'extended' } as pg.QueryConfig);
    } catch (error) {
      throw classify(error, 'prepare');
    }
    try {
      // EXECUTE is a utility statement: its arguments cannot be bound, so they are quoted literals.
      const result = await client.query({
        text: `EXECUTE ${name}${literals(client, params)}`,
        values: [],
        queryMode: 'extended',
      } as pg.QueryConfig);
      const columns = result.fields.map((field) => field.name);
      const rows = result.rows.map((row: Record<string, unknown>) => {
        const out: Record<string, JsonValue> = {};
        for (const [key, value] of Object.entries(row)) out[key] = toJsonValue(value);
        return out;
      });
      const isRead = result.command === 'SELECT' || result.command === 'VALUES';
      return isRead ? { columns, rows, rowCount: rows.length } : { columns, rows, rowCount: rows.length, changes: result.rowCount ?? 0 };
    } catch (error) {
      throw classify(error, 'execute');
    } finally {
      await client.query(`DEALLOCATE ${name}`).catch(() => {});
    }
  }

  async query(sql: string, params: readonly SqlParam[] = []): Promise<QueryResult> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN TRANSACTION READ ONLY');
      const settings = await readSettings(client);
      const result = await this.#run(client, sql, params);
      // A read may not change the transaction's or the session's settings (set_config, COMMIT).
      if ((await readSettings(client)) !== settings) {
        throw SandboxErrors.SQL_NOT_ALLOWED({ path: 'read', reason: 'the statement changed transaction or session settings' });
      }
      return result;
    } finally {
      await client.query('ROLLBACK').catch(() => {});
      client.release();
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
      transaction.client.release();
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
    // EXPLAIN is not preparable, so the statement is first proven a read on the read-only path.
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN TRANSACTION READ ONLY');
      const name = `opsgate_${randomUUID().replaceAll('-', '')}`;
      try {
        await client.query({ text: `PREPARE ${name} AS ${sql}`, values: [], queryMode: 'extended' } as pg.QueryConfig);
      } catch (error) {
        throw classify(error, 'prepare');
      }
      const result = await client.query({
        text: `EXPLAIN EXECUTE ${name}${literals(client, params)}`,
        values: [],
        queryMode: 'extended',
      } as pg.QueryConfig);
      const rows = result.rows.map((row: Record<string, unknown>) => ({ detail: String(Object.values(row)[0]) }));
      return { columns: ['detail'], rows, rowCount: rows.length };
    } finally {
      await client.query('ROLLBACK').catch(() => {});
      client.release();
    }
  }

  async close(): Promise<void> {
    if (this.#transaction) await this.#end(this.#transaction.id, 'ROLLBACK').catch(() => {});
    await this.#pool.end();
  }
}

const SETTINGS =
  "SELECT current_setting('transaction_read_only') || ',' || current_setting('default_transaction_read_only') || ',' || current_user || ',' || current_setting('search_path') AS s";

async function readSettings(client: pg.PoolClient): Promise<string> {
  const { rows } = await client.query<{ s: string }>(SETTINGS);
  return rows[0]?.s ?? '';
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

function classify(error: unknown, stage: 'prepare' | 'execute'): Error {
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
  // statement_timeout (the pool's `statementTimeoutMs`, default 10 s) cancelled the statement.
  if (code === '57014' && /statement timeout/.test(message))
    return SandboxErrors.READ_BUDGET_EXCEEDED({ detail: 'it ran past the statement timeout', limit: 'time' }, { cause: error });
  return SandboxErrors.SQL_FAILED({ detail: message }, { cause: error });
}
