/** PostgreSQL SQLSTATE classes and driver errors that mean the database cannot be reached right now. */
const UNAVAILABLE_SQLSTATES = /^(08|57P0[1-4]|53300)/;
const UNAVAILABLE_SYSTEM_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH']);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection timeout|Client has encountered a connection error|terminating connection|the database system is (starting up|shutting down)/i;

/** True when `error` says the store is down or restarting (worth retrying later), not that the request was wrong. */
export function isStoreUnavailable(error: unknown): boolean {
  const record = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  if (!record || typeof record !== 'object') return false;
  const code = typeof record.code === 'string' ? record.code : '';
  if (UNAVAILABLE_SYSTEM_CODES.has(code) || UNAVAILABLE_SQLSTATES.test(code)) return true;
  if (UNAVAILABLE_MESSAGES.test(String(record.message ?? ''))) return true;
  if (error instanceof AggregateError) return error.errors.some(isStoreUnavailable);
  return record.cause !== undefined && record.cause !== error && isStoreUnavailable(record.cause);
}

/** PostgreSQL reports a SQLSTATE of five characters; node:sqlite reports ERR_SQLITE_ERROR with SQLite's own code. */
const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * True when `error` came from the store (PostgreSQL or SQLite refused or lost a statement) rather
 * than from the system a tool acts on. A tool that fails this way after its side effect began
 * may well have done its work: its outcome is unknown, not failed.
 */
export function isStoreError(error: unknown): boolean {
  if (isStoreUnavailable(error)) return true;
  const record = error as { code?: unknown; severity?: unknown; errcode?: unknown; cause?: unknown } | undefined;
  if (!record || typeof record !== 'object') return false;
  if (record.code === 'ERR_SQLITE_ERROR' || typeof record.errcode === 'number') return true;
  if (typeof record.code === 'string' && SQLSTATE.test(record.code) && typeof record.severity === 'string') return true;
  return record.cause !== undefined && record.cause !== error && isStoreError(record.cause);
}
