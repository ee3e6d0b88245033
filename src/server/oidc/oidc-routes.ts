import type { FastifyInstance } from 'fastify';
import { type LoginSessions, SESSION_COOKIE } from '../login-sessions.ts';
import type { OidcLogin } from './oidc-login.ts';

/**
 * Public: GET /api/oidc/status tells the login screen to offer single sign-on (`enabled: false`
 * without it, from createServer); GET /api/oidc/login sends the browser to the issuer; GET /api/oidc/callback signs the
 * person in (the same session cookie as a password login) and returns them to the UI.
 */
export function oidcRoutes(app: FastifyInstance, deps: { login: OidcLogin; sessions: LoginSessions; secureCookies: boolean }): void {
  app.get('/api/oidc/status', async () => ({ enabled: true, loginUrl: '/api/oidc/login' }));
  app.get('/api/oidc/login', async (_request, reply) => {
    const url = await deps.login.start();
    return reply.redirect(url.href, 302);
  });
  app.get('/api/oidc/callback', async (request, reply) => {
    const identity = await deps.login.finish(request.url);
    const { cookie } = deps.sessions.issue(identity.userId);
    void reply.setCookie(SESSION_COOKIE, cookie, {
      httpOnly: true,
      sameSite: 'strict',
      secure: deps.secureCookies,
      path: '/',
      maxAge: Math.floor(deps.sessions.ttlMs / 1000),
    });
    // A same-site page moves on to the UI, so the SameSite=Strict cookie is sent with it
    // (a redirect chain that began at the issuer counts as cross-site).
    return reply
      .type('text/html; charset=utf-8')
      .send('<!doctype html><meta http-equiv="refresh" content="0;url=/"><title>Signed in</title><a href="/">Continue to opsgate</a>');
  });
}
