import { ExponentialBackoff, handleWhen, noJitterGenerator, retry } from 'cockatiel';
import type { ToolCallInvocation, ToolMiddleware } from '../../../core/agent/define-agent.ts';
import { OpsgateError } from '../../../core/errors/index.ts';

/** Codes worth another try: the cluster or the MCP hop flickered. Not-found, invalid values, etc. are final. */
const TRANSIENT_CODES = new Set(['HELM_CLUSTER_UNREACHABLE', 'HELM_MCP_ERROR']);

function isTransient(error: unknown): boolean {
  if (OpsgateError.isInstance(error)) return TRANSIENT_CODES.has(error.code);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && ['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE'].includes(code);
}

export interface ErrorRecoveryOptions {
  /** Attempts in all, including the first. Default 3. */
  readonly attempts?: number;
  /** First backoff delay in ms; each next one doubles. Default 200. */
  readonly initialDelayMs?: number;
  /** Largest backoff delay in ms. Default 2000. */
  readonly maxDelayMs?: number;
  /** Called before each retry (for logs and tests). */
  readonly onRetry?: (info: { tool: string; attempt: number; delayMs: number }) => void;
}

/**
 * Retries read-only tools (never mutable ones: a repeated install is not safe) on transient
 * failures, with exponential backoff through `cockatiel`.
 */
export class ErrorRecoveryMiddleware implements ToolMiddleware {
  readonly name = 'ErrorRecoveryMiddleware';
  readonly #options: ErrorRecoveryOptions;

  constructor(options: ErrorRecoveryOptions = {}) {
    this.#options = options;
  }

  async wrap(call: ToolCallInvocation, next: () => Promise<unknown>): Promise<unknown> {
    if (call.tool.mutability !== 'read-only') return next();
    const policy = retry(handleWhen(isTransient), {
      maxAttempts: (this.#options.attempts ?? 3) - 1,
      backoff: new ExponentialBackoff({
        initialDelay: this.#options.initialDelayMs ?? 200,
        maxDelay: this.#options.maxDelayMs ?? 2000,
        generator: noJitterGenerator,
      }),
    });
    const listener = policy.onRetry((event) => {
      const delayMs = 'delay' in event ? Number(event.delay) : 0;
      call.context.logger.warn(
        { tool: call.tool.name, attempt: event.attempt, delayMs },
        'retrying a read-only helm tool after a transient failure',
      );
      this.#options.onRetry?.({ tool: call.tool.name, attempt: event.attempt, delayMs });
    });
    try {
      return await policy.execute(() => next());
    } finally {
      listener.dispose();
    }
  }
}
