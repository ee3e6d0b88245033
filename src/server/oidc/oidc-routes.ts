import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { type AuditLog, userActor } from '../../core/audit/index.ts';
import type { UserRepository } from '../../core/identity/users.ts';
import type { LoginSessions } from '../login-sessions.ts';
import { type CookieSecurity, isSecureRequest, setSessionCookie } from '../session-cookie.ts';
import { OidcErrors } from './oidc-errors.ts';
import type { OidcLogin } from './oidc-login.ts';

/** Binds a started sign-on to the browser that started it (login CSRF). */
const OIDC_STATE_COOKIE = 'opsgate_oidc_state';
/** As long as a started sign-on may take. */
const STATE_COOKIE_SECONDS = 10 * 60;

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Public: GET /api/oidc/status tells the login screen to offer single sign-on (`enabled: false`
 * without it, from createServer); GET /api/oidc/login sends the browser to the issuer and sets a
 * cookie with the sign-on's state; GET /api/oidc/callback accepts only the browser holding that
 * cookie, signs the person in (the same session cookie as a password login) and returns them to the UI.
 */
export function oidcRoutes(
  app: FastifyInstance,
  deps: { login: OidcLogin; sessions: LoginSessions; users: UserRepository; audit: AuditLog; security: CookieSecurity },
): void {
  app.get('/api/oidc/status', async () => ({ enabled: true, loginUrl: '/api/oidc/login' }));
  app.get('/api/oidc/login', async (request, reply) => {
    const { url, state } = await deps.login.start();
    // Lax, not Strict: the callback is a top-level navigation coming back from the issuer's site.
    void reply.setCookie(OIDC_STATE_COOKIE, state, {
      httpOnly: true,
      sameSite: 'lax',
      secure: isSecureRequest(request, deps.security),
      path: '/api/oidc',
      maxAge: STATE_COOKIE_SECONDS,
    });
    return reply.redirect(url.href, 302);
  });
  app.get('/api/oidc/callback', async (request, reply) => {
    const given = new URL(request.url, 'http://callback.invalid').searchParams.get('state') ?? '';
    const expected = request.cookies[OIDC_STATE_COOKIE];
    void reply.clearCookie(OIDC_STATE_COOKIE, { path: '/api/oidc' });
    if (!expected || !given || !sameText(expected, given)) throw OidcErrors.OIDC_STATE_MISMATCH();
    const identity = await deps.login.finish(request.url);
    const user = await deps.users.findById(identity.userId);
    if (!user || user.disabled) throw OidcErrors.OIDC_LOGIN_FAILED({ detail: `the account ${identity.username} is disabled` });
    const { cookie } = deps.sessions.issue(identity.userId, user.sessionsValidAfter);
    setSessionCookie(request, reply, deps.security, cookie, deps.sessions.ttlMs);
    await deps.audit.append({
      type: 'sso_signed_in',
      actor: userActor(identity.username),
      payload: { username: identity.username, roles: identity.roles, address: request.ip },
    });
    // A same-site page moves on to the UI, so the SameSite=Strict cookie is sent with it
    // (a redirect chain that began at the issuer counts as cross-site).
    return reply
      .type('text/html; charset=utf-8')
      .send('<!doctype html><meta http-equiv="refresh" content="0;url=/"><title>Signed in</title><a href="/">Continue to opsgate</a>');
  });
}
