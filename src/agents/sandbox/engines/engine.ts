import type { RowChange } from './changeset.ts';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type SqlParam = string | number | boolean | null;

export interface QueryResult {
  readonly columns: readonly string[];
  readonly rows: ReadonlyArray<Record<string, JsonValue>>;
  readonly rowCount: number;
  /** Rows changed by a write (transaction path only). */
  readonly changes?: number;
}

export interface StatementRecord {
  readonly sql: string;
  readonly params: readonly SqlParam[];
  readonly changes: number;
}

export interface SchemaChange {
  readonly name: string;
  readonly operation: 'create' | 'drop' | 'alter';
  readonly before?: string;
  readonly after?: string;
}

/** What an open transaction changed so far; `digest` binds an approval to exactly this. */
export interface ChangePreview {
  readonly transactionId: string;
  readonly statements: readonly StatementRecord[];
  readonly rows: readonly RowChange[];
  readonly schema: readonly SchemaChange[];
  /** Statements whose changes the row list cannot show (tables without a primary key, PostgreSQL). */
  readonly unlistedChanges: number;
  /** sha256 of the versioned change material (changeset bytes, schema diff, write statements). */
  readonly digest: string;
  readonly summary: string;
}

export interface TableSummary {
  readonly name: string;
  readonly type: 'table' | 'view';
  readonly rows?: number;
}

export interface ColumnSummary {
  readonly name: string;
  readonly type: string;
  readonly notNull: boolean;
  readonly primaryKey: boolean;
  readonly defaultValue: string | null;
}

/**
 * One sandbox database behind the MCP server: a read-only path and at most one transaction at
 * a time on its own connection. SQLite and PostgreSQL implement it.
 */
export interface SandboxEngine {
  readonly dialect: 'sqlite' | 'postgres';
  /** Runs one statement on the read-only path. */
  query(sql: string, params?: readonly SqlParam[]): Promise<QueryResult>;
  /** Opens the transaction; throws `TransactionConflictError` while another one is open. */
  begin(): Promise<string>;
  execute(transactionId: string, sql: string, params?: readonly SqlParam[]): Promise<QueryResult>;
  preview(transactionId: string): Promise<ChangePreview>;
  commit(transactionId: string): Promise<void>;
  rollback(transactionId: string): Promise<void>;
  /** The open transaction's id, if any. */
  openTransaction(): string | undefined;
  tables(): Promise<TableSummary[]>;
  describe(table: string): Promise<ColumnSummary[]>;
  /** The query plan of one read statement. */
  explain(sql: string, params?: readonly SqlParam[]): Promise<QueryResult>;
  close(): Promise<void>;
}

export function summarise(statements: readonly StatementRecord[], rows: readonly RowChange[], schema: readonly SchemaChange[]): string {
  const count = (operation: RowChange['operation']) => rows.filter((row) => row.operation === operation).length;
  const parts = [`${count('insert')} inserted`, `${count('update')} updated`, `${count('delete')} deleted`];
  const schemaPart = schema.length ? `, ${schema.length} schema change(s)` : '';
  return `${statements.length} statement(s): ${parts.join(', ')} row(s)${schemaPart}`;
}
