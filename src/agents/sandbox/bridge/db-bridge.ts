import type { ChangePreview, ColumnSummary, QueryResult, SqlParam, TableSummary } from '../engines/engine.ts';
import { TransactionConflictError, WriteOutsideTransactionError } from '../errors.ts';
import type { SandboxChannel } from './channel.ts';

/** One sandbox session: who it is and how its MCP server is reached. One open transaction at a time. */
export interface SandboxSession {
  readonly id: string;
  readonly channel: SandboxChannel;
}

export type TransactionState = 'open' | 'committed' | 'rolled back';

const openTransactions = new WeakMap<SandboxSession, TransactionHandle>();
const beginning = new WeakSet<SandboxSession>();

/**
 * The only way to change the sandbox: a transaction opened by `DbBridge.beginTransaction()`.
 * After `commit()` or `rollback()` the handle refuses further statements.
 */
export class TransactionHandle {
  readonly id: string;
  readonly #session: SandboxSession;
  #state: TransactionState = 'open';

  constructor(session: SandboxSession, id: string) {
    this.#session = session;
    this.id = id;
  }

  get state(): TransactionState {
    return this.#state;
  }

  #assertOpen(action: string): void {
    if (this.#state !== 'open')
      throw new WriteOutsideTransactionError(`Cannot ${action}: transaction ${this.id} is already ${this.#state}.`);
  }

  /** Runs one statement inside the transaction (through `execute_query` with the transaction id). */
  async execute(sql: string, params: readonly SqlParam[] = []): Promise<QueryResult> {
    this.#assertOpen('execute a statement');
    return (await this.#session.channel.call('execute_query', { sql, params: [...params], transaction_id: this.id })) as QueryResult;
  }

  /** What the transaction changed so far, with the digest an approval binds to. */
  async preview(): Promise<ChangePreview> {
    this.#assertOpen('preview');
    return (await this.#session.channel.call('inspect_state', { what: 'changes', transaction_id: this.id })) as ChangePreview;
  }

  /** Issues COMMIT. */
  async commit(): Promise<void> {
    this.#assertOpen('commit');
    await this.#session.channel.call('execute_query', { sql: 'COMMIT', control: 'commit', transaction_id: this.id });
    this.#finish('committed');
  }

  /** Issues ROLLBACK. Rolling back a rolled-back transaction does nothing; a committed one throws. */
  async rollback(): Promise<void> {
    if (this.#state === 'rolled back') return;
    this.#assertOpen('roll back');
    try {
      await this.#session.channel.call('execute_query', { sql: 'ROLLBACK', control: 'rollback', transaction_id: this.id });
    } finally {
      this.#finish('rolled back');
    }
  }

  #finish(state: TransactionState): void {
    this.#state = state;
    if (openTransactions.get(this.#session) === this) openTransactions.delete(this.#session);
  }
}

/**
 * The agent's view of a sandbox database, as an MCP client of the sandbox server. Reads run on
 * the server's read-only path; a write there is refused by SQLite and surfaces as
 * `WriteOutsideTransactionError`. Writes go through `beginTransaction()`.
 */
export class DbBridge {
  readonly session: SandboxSession;
  readonly dbPath: string;
  #lastBegun: TransactionHandle | undefined;

  constructor(sandboxSession: SandboxSession, dbPath: string) {
    this.session = sandboxSession;
    this.dbPath = dbPath;
  }

  /** Runs one read statement. Writes are refused by the database (`WriteOutsideTransactionError`). */
  async query(sql: string, params: readonly SqlParam[] = []): Promise<QueryResult> {
    const channel = this.session.channel;
    if (channel.read) return channel.read(sql, params);
    return (await channel.call('execute_query', { sql, params: [...params] })) as QueryResult;
  }

  async tables(): Promise<TableSummary[]> {
    return ((await this.session.channel.call('inspect_state', { what: 'tables' })) as { tables: TableSummary[] }).tables;
  }

  async describe(table: string): Promise<ColumnSummary[]> {
    return ((await this.session.channel.call('inspect_state', { what: 'describe', table })) as { columns: ColumnSummary[] }).columns;
  }

  async explain(sql: string, params: readonly SqlParam[] = []): Promise<QueryResult> {
    return (await this.session.channel.call('run_profiler', { sql, params: [...params] })) as QueryResult;
  }

  /**
   * The transaction this bridge (this process) began last, in whatever state it is now; undefined
   * when this process never began one for the session, e.g. because it started after the one a
   * pending commit was shown for (a transaction lives only in the process that opened it).
   */
  get lastTransaction(): TransactionHandle | undefined {
    return this.#lastBegun;
  }

  /** The open transaction of this session, if any. */
  get activeTransaction(): TransactionHandle | undefined {
    return openTransactions.get(this.session);
  }

  /**
   * Issues BEGIN TRANSACTION through `execute_query`. Throws `TransactionConflictError` while this
   * session (or, on the server, any session) has a transaction open: it does not queue (see README).
   */
  async beginTransaction(): Promise<TransactionHandle> {
    const open = openTransactions.get(this.session);
    if (open) throw new TransactionConflictError(open.id);
    if (beginning.has(this.session)) throw new TransactionConflictError('(being opened)');
    beginning.add(this.session);
    let id: string;
    try {
      ({ transaction_id: id } = (await this.session.channel.call('execute_query', { sql: 'BEGIN TRANSACTION', control: 'begin' })) as {
        transaction_id: string;
      });
    } finally {
      beginning.delete(this.session);
    }
    const handle = new TransactionHandle(this.session, id);
    openTransactions.set(this.session, handle);
    this.#lastBegun = handle;
    return handle;
  }
}
