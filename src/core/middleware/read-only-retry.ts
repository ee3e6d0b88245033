import { ExponentialBackoff, handleWhen, retry } from 'cockatiel';
import type { ToolMiddleware } from '../agent/define-agent.ts';
import { OpsgateError } from '../errors/index.ts';

export interface ReadOnlyRetryOptions {
  /** Attempts in all, the first included. Default 3. */
  readonly attempts?: number;
  /** First backoff delay in milliseconds; doubles each time. Default 100. */
  readonly initialDelayMs?: number;
  /** Longest backoff delay in milliseconds. Default 2,000. */
  readonly maxDelayMs?: number;
}

/** Errors worth another try: anything but a typed error that says the request itself is wrong. */
function isTransient(error: unknown): boolean {
  return !OpsgateError.isInstance(error) || error.status >= 500;
}

/**
 * Retries read-only tools with exponential backoff (cockatiel). Mutable tools are never retried
 * here: a second run of a state change needs a person, not a loop.
 */
export function readOnlyRetryMiddleware(options: ReadOnlyRetryOptions = {}): ToolMiddleware {
  const policy = retry(handleWhen(isTransient), {
    maxAttempts: (options.attempts ?? 3) - 1,
    backoff: new ExponentialBackoff({ initialDelay: options.initialDelayMs ?? 100, maxDelay: options.maxDelayMs ?? 2000 }),
  });
  return {
    name: 'read-only-retry',
    wrap(call, next) {
      if (call.tool.mutability !== 'read-only') return next();
      return policy.execute(() => next());
    },
  };
}
