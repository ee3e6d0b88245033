import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { UserRepository } from '../../core/identity/users.ts';
import { type ApiCatalog, apiRoute } from '../api-route.ts';
import { type LoginSessions, SESSION_COOKIE } from '../login-sessions.ts';
import { ServerErrors } from '../server-errors.ts';

const loginBody = z.object({ username: z.string().min(1).max(64), password: z.string().min(1).max(1024) }).strict();
const me = z.object({
  user: z.object({ userId: z.number(), username: z.string(), roles: z.array(z.string()) }),
  csrfToken: z.string().optional().describe('Send as X-CSRF-Token on every cookie-authenticated write'),
});

export interface LoginRateLimit {
  /** Attempts per window per client address. Default 10. */
  readonly max: number;
  /** Window length in milliseconds. Default 60 000. */
  readonly timeWindow: number;
}

/** Public: POST /api/login (rate limited). */
export function publicAuthRoutes(
  app: FastifyInstance,
  catalog: ApiCatalog,
  deps: { users: UserRepository; sessions: LoginSessions; secureCookies: boolean; rateLimit: LoginRateLimit },
): void {
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/login',
      summary: 'Sign in with username and password; sets an HttpOnly, SameSite=Strict session cookie and returns the CSRF token.',
      tag: 'auth',
      auth: false,
      body: loginBody,
      response: me,
      config: { rateLimit: { max: deps.rateLimit.max, timeWindow: deps.rateLimit.timeWindow } },
    },
    async ({ body, reply }) => {
      const identity = await deps.users.verifyLogin(body.username, body.password);
      if (!identity) throw ServerErrors.LOGIN_FAILED();
      const { cookie, session } = deps.sessions.issue(identity.userId);
      void reply.setCookie(SESSION_COOKIE, cookie, {
        httpOnly: true,
        sameSite: 'strict',
        secure: deps.secureCookies,
        path: '/',
        maxAge: Math.floor(deps.sessions.ttlMs / 1000),
      });
      return { user: identity, csrfToken: session.csrfToken };
    },
  );
}

/** Private: who am I, sign out. */
export function privateAuthRoutes(app: FastifyInstance, catalog: ApiCatalog, deps: { sessions: LoginSessions }): void {
  apiRoute(
    app,
    catalog,
    { method: 'GET', path: '/api/me', summary: 'The signed-in user (and the CSRF token for cookie sessions).', tag: 'auth', response: me },
    async ({ request }) => ({
      user: request.identity,
      ...(request.loginSession ? { csrfToken: request.loginSession.csrfToken } : {}),
    }),
  );
  apiRoute(
    app,
    catalog,
    { method: 'POST', path: '/api/logout', summary: 'Sign out: revokes the session cookie.', tag: 'auth' },
    async ({ request, reply }) => {
      if (request.loginSession) deps.sessions.revoke(request.loginSession);
      void reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return { ok: true };
    },
  );
}
