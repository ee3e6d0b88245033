import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../core/agent/define-agent.ts';
import type { Store } from '../core/store/index.ts';

export const SESSION_COOKIE = 'opsgate_session';
/** The name over HTTPS: browsers accept a `__Host-` cookie only when Secure, Path=/ and without Domain. */
export const SECURE_SESSION_COOKIE = '__Host-opsgate_session';
const VERSION = 'v1';

/** What a valid session cookie says. */
export interface LoginSession {
  readonly userId: number;
  readonly issuedAt: number;
  readonly nonce: string;
  /** The double-submit token cookie-authenticated writes must echo in `X-CSRF-Token`. */
  readonly csrfToken: string;
}

/**
 * Signed session cookies: `v1.<userId>.<issuedAtMs>.<nonce>.<hmac>` with HMAC-SHA256 over the rest.
 * Any replica sharing the key accepts them; the user's roles are read fresh from the store on every
 * request. What ends a cookie early lives in the store (`LoginRevocations`, the user's
 * `sessions_valid_after`), so it holds across restarts and replicas.
 */
export class LoginSessions {
  readonly #key: Buffer;
  readonly #clock: Clock;
  /** Lifetime of a login. Default 12 hours. */
  readonly ttlMs: number;

  constructor(key: Buffer, options: { clock?: Clock; ttlMs?: number } = {}) {
    if (key.length < 32) throw new Error('the session cookie key needs at least 32 bytes');
    this.#key = key;
    this.#clock = options.clock ?? { now: () => new Date() };
    this.ttlMs = options.ttlMs ?? 12 * 60 * 60 * 1000;
  }

  #mac(text: string): string {
    return createHmac('sha256', this.#key).update(text).digest('base64url');
  }

  /** `notBefore`: the user's sessions cut-off, so a cookie issued in the same millisecond still counts. */
  issue(userId: number, notBefore = 0): { cookie: string; session: LoginSession } {
    const issuedAt = Math.max(this.#clock.now().getTime(), notBefore + 1);
    const nonce = randomBytes(18).toString('base64url');
    const body = [VERSION, userId, issuedAt, nonce].join('.');
    const cookie = `${body}.${this.#mac(body)}`;
    return { cookie, session: { userId, issuedAt, nonce, csrfToken: this.#csrf(nonce) } };
  }

  #csrf(nonce: string): string {
    return this.#mac(`csrf:${nonce}`);
  }

  /** The session a cookie stands for, or undefined when it is forged or expired (revocation: see LoginRevocations). */
  read(cookie: string | undefined): LoginSession | undefined {
    if (!cookie) return undefined;
    const parts = cookie.split('.');
    if (parts.length !== 5 || parts[0] !== VERSION) return undefined;
    const [, userText, issuedText, nonce, mac] = parts as [string, string, string, string, string];
    const expected = Buffer.from(this.#mac(parts.slice(0, 4).join('.')));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    const issuedAt = Number(issuedText);
    const now = this.#clock.now().getTime();
    if (!Number.isFinite(issuedAt) || now - issuedAt > this.ttlMs || issuedAt - now > 60_000) return undefined;
    return { userId: Number(userText), issuedAt, nonce, csrfToken: this.#csrf(nonce) };
  }

  /** Constant-time comparison of the header a write sent with the session's token. */
  static csrfMatches(session: LoginSession, header: string | undefined): boolean {
    if (!header) return false;
    const expected = Buffer.from(session.csrfToken);
    const given = Buffer.from(header);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}

/**
 * Cookies ended by logout, in the store: every replica and every restart sees them. A row is kept
 * until the cookie would have expired anyway and is swept on the next logout after that.
 */
export class LoginRevocations {
  readonly #store: Store;
  readonly #clock: Clock;

  constructor(store: Store, clock: Clock = { now: () => new Date() }) {
    this.#store = store;
    this.#clock = clock;
  }

  async revoke(session: LoginSession, ttlMs: number): Promise<void> {
    const now = this.#clock.now().getTime();
    await this.#store.db.deleteFrom('login_revocations').where('expires_at', '<', now).execute();
    await this.#store.db
      .insertInto('login_revocations')
      .values({ nonce: session.nonce, user_id: session.userId, expires_at: session.issuedAt + ttlMs })
      .onConflict((oc) => oc.column('nonce').doNothing())
      .execute();
  }

  async isRevoked(nonce: string): Promise<boolean> {
    const row = await this.#store.db.selectFrom('login_revocations').select('nonce').where('nonce', '=', nonce).executeTakeFirst();
    return row !== undefined;
  }
}
