import type { Logger } from 'pino';
import { OpsgateError } from '../../../core/errors/index.ts';
import { SandboxRetryExhaustedError } from '../errors.ts';
import type { DbBridge, TransactionHandle } from './db-bridge.ts';

export interface WriteDispatchOptions {
  /** Attempts of the work on a retryable failure, in the same transaction. Default 3. */
  readonly maxAttempts?: number;
  /** Which failures are worth another attempt. Default: a busy/locked database or an unreachable sandbox. */
  readonly retryable?: (error: unknown) => boolean;
  /** Reuse this open transaction instead of beginning one (it is still rolled back on exhaustion). */
  readonly transaction?: TransactionHandle;
  readonly logger?: Logger;
}

export function isRetryableSandboxError(error: unknown): boolean {
  if (!OpsgateError.isInstance(error)) return false;
  if (error.code === 'SANDBOX_UNAVAILABLE') return true;
  return error.code === 'SQL_FAILED' && error.fields.busy === true;
}

/**
 * Wraps a write tool call in a `DbBridge` transaction. The transaction stays open on success
 * (a person commits it after seeing the preview). On `SandboxRetryExhaustedError` — thrown by the
 * work, or raised here after `maxAttempts` retryable failures — the transaction is rolled back
 * before the error propagates; any other failure also rolls back a transaction begun here.
 */
export async function dispatchWriteCall<T>(
  bridge: DbBridge,
  work: (transaction: TransactionHandle, attempt: number) => Promise<T>,
  options: WriteDispatchOptions = {},
): Promise<{ value: T; transaction: TransactionHandle }> {
  const maxAttempts = options.maxAttempts ?? 3;
  const retryable = options.retryable ?? isRetryableSandboxError;
  const transaction = options.transaction ?? (await bridge.beginTransaction());
  const ownsTransaction = options.transaction === undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      return { value: await work(transaction, attempt), transaction };
    } catch (error) {
      if (error instanceof SandboxRetryExhaustedError) {
        await rollbackQuietly(transaction, options.logger);
        throw error;
      }
      if (retryable(error)) {
        if (attempt < maxAttempts) {
          options.logger?.warn({ attempt, err: error }, 'sandbox write failed; retrying');
          continue;
        }
        await rollbackQuietly(transaction, options.logger);
        throw new SandboxRetryExhaustedError(attempt, { cause: error });
      }
      if (ownsTransaction) await rollbackQuietly(transaction, options.logger);
      throw error;
    }
  }
}

async function rollbackQuietly(transaction: TransactionHandle, logger: Logger | undefined): Promise<void> {
  try {
    await transaction.rollback();
  } catch (error) {
    logger?.error({ err: error, transactionId: transaction.id }, 'rollback after a failed write failed');
  }
}
