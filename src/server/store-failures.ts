import type { OpsgateError } from '../core/errors/index.ts';
import { ServerErrors } from './server-errors.ts';

/** Seconds a client is told to wait when the database is down. */
export const STORE_RETRY_AFTER_SECONDS = 2;

// SQLSTATE classes 08 (connection exception) and 57P01–57P03 (shutdown, crash, not yet accepting).
const POSTGRES_UNAVAILABLE_STATES = /^(08\d{3}|57P0[123])$/;
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTCONN']);
const POOL_MESSAGES = [/^Connection terminated/, /timeout exceeded when trying to connect/, /Client has encountered a connection error/];

function describe(error: unknown): { code?: string; message: string } {
  if (typeof error !== 'object' || error === null) return { message: String(error) };
  const { code, message } = error as { code?: unknown; message?: unknown };
  return { ...(typeof code === 'string' ? { code } : {}), message: typeof message === 'string' ? message : '' };
}

/**
 * A typed 503 when `error` (or one of its causes) says the database could not be reached — a
 * refused or dropped connection, a server shutting down or starting up — else undefined.
 */
export function storeUnavailable(error: unknown): OpsgateError | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth += 1) {
    const { code, message } = describe(current);
    const aggregate = (current as { errors?: unknown }).errors;
    if (
      (code && (POSTGRES_UNAVAILABLE_STATES.test(code) || SOCKET_CODES.has(code))) ||
      POOL_MESSAGES.some((pattern) => pattern.test(message)) ||
      (Array.isArray(aggregate) && aggregate.some((inner) => SOCKET_CODES.has(describe(inner).code ?? '')))
    ) {
      return ServerErrors.STORE_UNAVAILABLE({ detail: code ?? message });
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
