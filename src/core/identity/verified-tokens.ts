import type { Clock } from '../agent/define-agent.ts';
import type { TokenIdentity } from './users.ts';

/**
 * How long a bearer token the store verified is believed without asking it again. Every MCP request
 * carries the token, and verifying it cost two store reads and two hashes per request. A change to
 * people or tokens made in this process (revoke, disable, roles) shows at once; one made by another
 * process sharing the store (`opsgate serve` while `opsgate gateway` runs, a replica) within this time.
 */
export const VERIFIED_TOKEN_TTL_MS = 1_000;
/** Verified tokens kept at most; the oldest is dropped first. */
const VERIFIED_TOKENS_MAX = 1_000;

interface Verified {
  readonly found: TokenIdentity;
  /** `peopleChangesIn(store)` when it was verified: any later change in this process drops it. */
  readonly changes: number;
  readonly until: number;
}

/**
 * Bearer tokens recently verified, by a key naming the token and where it was presented. Only an
 * accepted token is kept (a refused one is asked again, so a new token works at once), and never
 * past its own expiry.
 */
export class VerifiedTokens {
  readonly #clock: Clock;
  readonly #entries = new Map<string, Verified>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  get(key: string, changes: number): TokenIdentity | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.changes === changes && this.#clock.now().getTime() < entry.until) return entry.found;
    this.#entries.delete(key);
    return undefined;
  }

  remember(key: string, found: TokenIdentity, changes: number): void {
    const now = this.#clock.now().getTime();
    const expires = found.expiresAt === undefined ? Number.POSITIVE_INFINITY : Date.parse(found.expiresAt);
    this.#entries.delete(key);
    this.#entries.set(key, { found, changes, until: Math.min(now + VERIFIED_TOKEN_TTL_MS, expires) });
    if (this.#entries.size > VERIFIED_TOKENS_MAX) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
