import { defineErrorCodes, listErrorCodes, OpsgateError } from '../../core/errors/index.ts';

export { ToolMutabilityWarning } from '../../core/errors/index.ts';

/** Codes of the sandbox agent. Messages say what to do next. */
export const SandboxErrors = defineErrorCodes({
  SQL_NOT_ALLOWED: {
    status: 403,
    message:
      'The database refused this statement on the {path} path: {reason}. Use a plain read (SELECT) here, or stage the change in a transaction.',
  },
  SQL_MULTIPLE_STATEMENTS: {
    status: 400,
    message: 'Send exactly one SQL statement per call; found more after "{first}". Split the statements and send them one by one.',
  },
  SQL_EMPTY: { status: 400, message: 'The SQL text contains no statement. Send one SQL statement.' },
  SQL_FAILED: { status: 400, message: 'The database rejected the statement: {detail}. Fix the SQL and try again.' },
  TRANSACTION_NOT_FOUND: {
    status: 404,
    message: 'That transaction is not open any more: it was committed, rolled back or lost with its server. Begin a new transaction.',
  },
  READ_BUDGET_EXCEEDED: {
    status: 422,
    message:
      'The read was stopped: {detail}. The database is unchanged. Add a LIMIT or a narrower WHERE clause, or configure a larger read budget.',
  },
  SANDBOX_UNAVAILABLE: { status: 503, message: 'The sandbox server did not answer: {detail}. Check that it runs and try again.' },
});

/** A write was attempted outside an open transaction (directly on the bridge, or on an ended handle). */
export class WriteOutsideTransactionError extends OpsgateError {
  constructor(detail: string) {
    super(
      'WRITE_OUTSIDE_TRANSACTION',
      `${detail} Writes run only inside an open transaction: call beginTransaction() and use the handle's execute(), then commit() or rollback().`,
      409,
      { detail },
    );
    this.name = 'WriteOutsideTransactionError';
  }
}

/** A sandbox session already has an open transaction (one at a time). */
export class TransactionConflictError extends OpsgateError {
  readonly openTransactionId: string;
  constructor(openTransactionId: string) {
    super(
      'TRANSACTION_CONFLICT',
      `Transaction ${openTransactionId} is still open on this sandbox. Commit or roll it back before beginning another one.`,
      409,
      { openTransactionId },
    );
    this.openTransactionId = openTransactionId;
    this.name = 'TransactionConflictError';
  }
}

/** The orchestrator gave up on a write after its attempts; the transaction was rolled back first. */
export class SandboxRetryExhaustedError extends OpsgateError {
  readonly attempts: number;
  constructor(attempts: number, options?: ErrorOptions) {
    const last = options?.cause instanceof Error ? options.cause.message : 'unknown error';
    super(
      'SANDBOX_RETRY_EXHAUSTED',
      `The write failed ${attempts} times (last error: ${last}). The transaction was rolled back; fix the cause and try again.`,
      503,
      { attempts },
      options,
    );
    this.attempts = attempts;
    this.name = 'SandboxRetryExhaustedError';
  }
}

/** SQLite busy or locked (node:sqlite's extended `errcode`, any variant); PostgreSQL's lock_not_available. */
function isBusy(error: unknown): boolean {
  const record = error as { code?: unknown; errcode?: unknown } | undefined;
  if (typeof record?.errcode === 'number') return (record.errcode & 0xff) === 5 || (record.errcode & 0xff) === 6;
  return record?.code === '55P03';
}

/**
 * SQL_FAILED for a database driver's error, with the typed field `busy: true` when another writer
 * holds the database (worth another attempt), so callers read a field instead of the message.
 */
export function sqlFailed(error: unknown): OpsgateError {
  const detail = error instanceof Error ? error.message : String(error);
  return SandboxErrors.SQL_FAILED(isBusy(error) ? { detail, busy: true } : { detail }, { cause: error });
}

/** Rebuilds a typed error from its JSON form (as it crosses the MCP hop). */
export function errorFromJson(value: { code: string; message: string; fields?: Record<string, unknown> }): OpsgateError {
  if (value.code === 'TRANSACTION_CONFLICT') return new TransactionConflictError(String(value.fields?.openTransactionId ?? 'unknown'));
  if (value.code === 'WRITE_OUTSIDE_TRANSACTION') return new WriteOutsideTransactionError(String(value.fields?.detail ?? ''));
  return new OpsgateError(value.code, value.message, listErrorCodes().get(value.code)?.status ?? 400, value.fields ?? {});
}
