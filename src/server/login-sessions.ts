import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../core/agent/define-agent.ts';

export const SESSION_COOKIE = 'opsgate_session';
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
 * Stateless, so any replica sharing the key accepts them; the user's roles are read fresh from the
 * store on every request. Logout revokes the nonce in this process until the cookie would expire.
 */
export class LoginSessions {
  readonly #key: Buffer;
  readonly #clock: Clock;
  /** Lifetime of a login. Default 12 hours. */
  readonly ttlMs: number;
  readonly #revoked = new Map<string, number>();

  constructor(key: Buffer, options: { clock?: Clock; ttlMs?: number } = {}) {
    if (key.length < 32) throw new Error('the session cookie key needs at least 32 bytes');
    this.#key = key;
    this.#clock = options.clock ?? { now: () => new Date() };
    this.ttlMs = options.ttlMs ?? 12 * 60 * 60 * 1000;
  }

  #mac(text: string): string {
    return createHmac('sha256', this.#key).update(text).digest('base64url');
  }

  issue(userId: number): { cookie: string; session: LoginSession } {
    const issuedAt = this.#clock.now().getTime();
    const nonce = randomBytes(18).toString('base64url');
    const body = [VERSION, userId, issuedAt, nonce].join('.');
    const cookie = `${body}.${this.#mac(body)}`;
    return { cookie, session: { userId, issuedAt, nonce, csrfToken: this.#csrf(nonce) } };
  }

  #csrf(nonce: string): string {
    return this.#mac(`csrf:${nonce}`);
  }

  /** The session a cookie stands for, or undefined when it is forged, expired or revoked. */
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
    if (this.#revoked.has(nonce)) return undefined;
    return { userId: Number(userText), issuedAt, nonce, csrfToken: this.#csrf(nonce) };
  }

  revoke(session: LoginSession): void {
    const now = this.#clock.now().getTime();
    for (const [nonce, until] of this.#revoked) if (until < now) this.#revoked.delete(nonce);
    this.#revoked.set(session.nonce, session.issuedAt + this.ttlMs);
  }

  /** Constant-time comparison of the header a write sent with the session's token. */
  static csrfMatches(session: LoginSession, header: string | undefined): boolean {
    if (!header) return false;
    const expected = Buffer.from(session.csrfToken);
    const given = Buffer.from(header);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
