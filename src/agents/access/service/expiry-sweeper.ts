import type { Logger } from 'pino';
import type { Clock } from '../../../core/agent/define-agent.ts';
import type { Store } from '../../../core/store/index.ts';
import { CatalogRepository, type SweptGrant } from './catalog-repository.ts';

/** Where the sweeper records what it revoked: the hash-chained audit log (only `append` is needed). */
interface ExpiryAuditSink {
  append(event: { readonly type: string; readonly actor: string; readonly payload: Record<string, unknown> }): Promise<unknown>;
}

export interface ExpirySweeperOptions {
  readonly store: Store;
  readonly audit: ExpiryAuditSink;
  readonly clock: Clock;
  readonly logger?: Logger;
  /** Time between sweeps, in ms. Default 60,000. */
  readonly intervalMs?: number;
}

export interface ExpirySweeper {
  /** Revokes every grant past its `expires_at` now, one `access_expired_revoked` audit event each. */
  sweepOnce(): Promise<SweptGrant[]>;
  stop(): void;
}

/** The audit actor of expiry revocations. */
export const EXPIRY_SWEEPER_ACTOR = 'system:access-expiry-sweeper';

/**
 * Revokes expired grants on a timer. `get_user_accesses` already hides a grant once its
 * `expires_at` passes; the sweeper makes the end durable (`revoked_at`) and audited.
 */
export function startExpirySweeper(options: ExpirySweeperOptions): ExpirySweeper {
  const repository = new CatalogRepository(options.store);
  let running: Promise<SweptGrant[]> | undefined;

  async function sweep(): Promise<SweptGrant[]> {
    const swept = await repository.sweepExpired(options.clock.now());
    for (const grant of swept) {
      await options.audit.append({
        type: 'access_expired_revoked',
        actor: EXPIRY_SWEEPER_ACTOR,
        payload: { ...grant, reason: 'renewal period ended' },
      });
    }
    if (swept.length > 0) options.logger?.info({ revoked: swept.length }, 'expired access grants revoked');
    return swept;
  }

  function sweepOnce(): Promise<SweptGrant[]> {
    running ??= sweep().finally(() => {
      running = undefined;
    });
    return running;
  }

  const timer = setInterval(() => {
    sweepOnce().catch((error: unknown) => options.logger?.error({ err: error }, 'access expiry sweep failed'));
  }, options.intervalMs ?? 60_000);
  timer.unref();
  return { sweepOnce, stop: () => clearInterval(timer) };
}
