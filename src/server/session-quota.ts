import type { Clock } from '../core/agent/define-agent.ts';
import type { Identity } from '../core/identity/index.ts';
import type { Store } from '../core/store/index.ts';
import { ServerErrors } from './server-errors.ts';

/** How many sessions one person may hold open and start per minute. */
export interface SessionQuotaConfig {
  /** Sessions not closed and used in the last 24 hours (nothing closes a session yet). Default 200. */
  readonly active: number;
  /** Sessions started in the last minute. Default 60. */
  readonly perMinute: number;
}

/** A session counts as held open while it was used in this window. */
const ACTIVE_WINDOW_MS = 24 * 3600_000;

const DEFAULT_SESSION_QUOTA: SessionQuotaConfig = { active: 200, perMinute: 60 };

/** `OPSGATE_SESSION_QUOTA=ACTIVE:PER_MINUTE`, e.g. `200:60`. */
export function sessionQuotaFromEnv(value: string | undefined): SessionQuotaConfig {
  if (!value) return DEFAULT_SESSION_QUOTA;
  const match = /^(\d+):(\d+)$/.exec(value.trim());
  if (!match || Number(match[1]) < 1 || Number(match[2]) < 1)
    throw new Error(`OPSGATE_SESSION_QUOTA must be ACTIVE:PER_MINUTE with both at least 1 (e.g. 200:60), got "${value}"`);
  return { active: Number(match[1]), perMinute: Number(match[2]) };
}

/**
 * Bounds what one person can make the server hold: counted in the store, so it holds across
 * replicas. Two requests at the same instant may both pass the last free place (a soft bound).
 */
export class SessionQuota {
  readonly #store: Store;
  readonly #config: SessionQuotaConfig;
  readonly #clock: Clock;

  constructor(store: Store, config: SessionQuotaConfig = DEFAULT_SESSION_QUOTA, clock: Clock = { now: () => new Date() }) {
    this.#store = store;
    this.#config = config;
    this.#clock = clock;
  }

  /** Throws SESSION_QUOTA (429) when the person may not start another session now. */
  async check(identity: Identity): Promise<void> {
    const now = this.#clock.now().getTime();
    const since = new Date(now - 60_000).toISOString();
    const activeSince = new Date(now - ACTIVE_WINDOW_MS).toISOString();
    const row = await this.#store.db
      .selectFrom('sessions')
      .select((eb) => [
        eb.fn
          .countAll<number>()
          .filterWhere((w) => w.and([w('status', '!=', 'closed'), w('updated_at', '>=', activeSince)]))
          .as('active'),
        eb.fn.countAll<number>().filterWhere('created_at', '>=', since).as('recent'),
      ])
      .where('user_id', '=', identity.userId)
      .executeTakeFirstOrThrow();
    if (Number(row.recent) >= this.#config.perMinute)
      throw ServerErrors.SESSION_QUOTA({ detail: `started ${this.#config.perMinute} sessions in the last minute`, retryAfter: 60 });
    if (Number(row.active) >= this.#config.active)
      throw ServerErrors.SESSION_QUOTA({
        detail: `${this.#config.active} sessions in use in the last 24 hours, the most one person may hold`,
        retryAfter: 3600,
      });
  }
}
