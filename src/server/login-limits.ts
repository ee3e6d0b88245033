import { sql } from 'kysely';
import type { Clock } from '../core/agent/define-agent.ts';
import type { Store } from '../core/store/index.ts';

/** How many failed sign-ins count against what, per window. */
export interface LoginLimitConfig {
  /** Failures for one account from one address. Default 10. */
  readonly perAccountAndAddress: number;
  /** Failures for one account from all addresses (spread-out guessing). Default 50. */
  readonly perAccount: number;
  /**
   * Failures from one address across accounts (spraying). Past it, each further account gets one
   * failure from that address; an account that has not failed from it still signs in. Default 30.
   */
  readonly perAddress: number;
  /** Default 15 minutes. */
  readonly windowMs: number;
}

const DEFAULT_LOGIN_LIMITS: LoginLimitConfig = { perAccountAndAddress: 10, perAccount: 50, perAddress: 30, windowMs: 15 * 60_000 };

interface Count {
  readonly failures: number;
  readonly windowStart: number;
}

/**
 * Failed sign-in counts in the store, so every replica shares one budget and a restart does not
 * reset it. Only failures count: a person behind the same proxy as a guesser still signs in.
 */
export class LoginLimits {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #config: LoginLimitConfig;

  constructor(store: Store, config: Partial<LoginLimitConfig> = {}, clock: Clock = { now: () => new Date() }) {
    this.#store = store;
    this.#config = { ...DEFAULT_LOGIN_LIMITS, ...config };
    this.#clock = clock;
  }

  #keys(username: string, address: string) {
    return { pair: `account-ip:${username}|${address}`, account: `account:${username}`, address: `ip:${address}` };
  }

  /** Seconds until this account may try again from this address, or 0 when it may try now. */
  async retryAfterSeconds(username: string, address: string): Promise<number> {
    const now = this.#clock.now().getTime();
    const keys = this.#keys(username, address);
    const rows = await this.#store.db
      .selectFrom('login_failures')
      .selectAll()
      .where('key', 'in', [keys.pair, keys.account, keys.address])
      .execute();
    const live = new Map<string, Count>();
    for (const row of rows) {
      const windowStart = Number(row.window_start);
      if (windowStart + this.#config.windowMs > now) live.set(row.key, { failures: Number(row.failures), windowStart });
    }
    const pair = live.get(keys.pair);
    const account = live.get(keys.account);
    const spraying = (live.get(keys.address)?.failures ?? 0) >= this.#config.perAddress;
    const blocking = [
      pair && pair.failures >= (spraying ? 1 : this.#config.perAccountAndAddress) ? pair : undefined,
      account && account.failures >= this.#config.perAccount ? account : undefined,
    ].filter((count): count is Count => count !== undefined);
    if (blocking.length === 0) return 0;
    const until = Math.max(...blocking.map((count) => count.windowStart + this.#config.windowMs));
    return Math.max(1, Math.ceil((until - now) / 1000));
  }

  async recordFailure(username: string, address: string): Promise<void> {
    const now = this.#clock.now().getTime();
    const cutoff = now - this.#config.windowMs;
    for (const key of Object.values(this.#keys(username, address))) {
      await this.#store.db
        .insertInto('login_failures')
        .values({ key, window_start: now, failures: 1 })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet({
            failures: sql`case when login_failures.window_start <= ${cutoff} then 1 else login_failures.failures + 1 end`,
            window_start: sql`case when login_failures.window_start <= ${cutoff} then ${now} else login_failures.window_start end`,
          }),
        )
        .execute();
    }
  }

  /** A correct password clears that account's count from that address. */
  async recordSuccess(username: string, address: string): Promise<void> {
    await this.#store.db.deleteFrom('login_failures').where('key', '=', this.#keys(username, address).pair).execute();
  }
}
