import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LoginSessions } from './login-sessions.ts';

describe('signed session cookies', () => {
  const clockAt = (ms: number) => ({ now: () => new Date(ms) });

  it('reads back what it issued, with a CSRF token bound to the cookie', () => {
    const sessions = new LoginSessions(randomBytes(32), { clock: clockAt(1_000_000) });
    const { cookie, session } = sessions.issue(7);
    expect(sessions.read(cookie)).toEqual(session);
    expect(LoginSessions.csrfMatches(session, session.csrfToken)).toBe(true);
    expect(LoginSessions.csrfMatches(session, sessions.issue(7).session.csrfToken)).toBe(false);
    expect(LoginSessions.csrfMatches(session, undefined)).toBe(false);
  });

  it('refuses tampered, foreign-key and expired cookies', () => {
    let now = 1_000_000;
    const key = randomBytes(32);
    const sessions = new LoginSessions(key, { clock: { now: () => new Date(now) }, ttlMs: 60_000 });
    const { cookie, session } = sessions.issue(7);
    expect(sessions.read(cookie.replace('v1.7.', 'v1.8.'))).toBeUndefined();
    expect(new LoginSessions(randomBytes(32), { clock: clockAt(now) }).read(cookie)).toBeUndefined();
    expect(sessions.read('garbage')).toBeUndefined();
    now += 60_001;
    expect(sessions.read(cookie)).toBeUndefined();
    now -= 60_001;
    expect(sessions.read(cookie)).toEqual(session);
    expect(() => new LoginSessions(randomBytes(16))).toThrow(/32 bytes/);
  });
});
