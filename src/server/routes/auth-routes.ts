import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type AuditLog, userActor } from '../../core/audit/index.ts';
import { OpsgateError } from '../../core/errors/index.ts';
import { UserErrors, type UserRepository } from '../../core/identity/users.ts';
import { type ApiCatalog, apiRoute } from '../api-route.ts';
import type { IdentityChanges } from '../identity-changes.ts';
import type { LoginLimits } from '../login-limits.ts';
import type { LoginRevocations, LoginSessions } from '../login-sessions.ts';
import { ServerErrors } from '../server-errors.ts';
import { type CookieSecurity, clearSessionCookie, setSessionCookie } from '../session-cookie.ts';

const loginBody = z.object({ username: z.string().min(1).max(64), password: z.string().min(1).max(1024) }).strict();
const passwordBody = z.object({ currentPassword: z.string().min(1).max(1024), newPassword: z.string().min(8).max(1024) }).strict();
const me = z.object({
  user: z.object({ userId: z.number(), username: z.string(), roles: z.array(z.string()) }),
  csrfToken: z.string().optional().describe('Send as X-CSRF-Token on every cookie-authenticated write'),
});

export interface LoginRateLimit {
  /** Attempts per window per client address and process (a flood guard; failures are limited in the store). Default 60. */
  readonly max: number;
  /** Window length in milliseconds. Default 60 000. */
  readonly timeWindow: number;
}

export interface AuthDeps {
  readonly users: UserRepository;
  readonly sessions: LoginSessions;
  readonly revocations: LoginRevocations;
  readonly limits: LoginLimits;
  readonly audit: AuditLog;
  readonly security: CookieSecurity;
  readonly changes: IdentityChanges;
}

/** The door a request came through, for the audit. */
export function viaOf(request: FastifyRequest): string {
  return request.identity?.channel ?? 'rest';
}

/** Public: POST /api/login (failures limited per account and address, in the store). */
export function publicAuthRoutes(app: FastifyInstance, catalog: ApiCatalog, deps: AuthDeps & { rateLimit: LoginRateLimit }): void {
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/login',
      summary:
        'Sign in with username and password; sets an HttpOnly, SameSite=Strict session cookie (Secure and __Host- over HTTPS) and returns the CSRF token.',
      tag: 'auth',
      auth: false,
      body: loginBody,
      response: me,
      config: { rateLimit: { max: deps.rateLimit.max, timeWindow: deps.rateLimit.timeWindow } },
    },
    async ({ body, request, reply }) => {
      const address = request.ip;
      const retryAfter = await deps.limits.retryAfterSeconds(body.username, address);
      if (retryAfter > 0) {
        void reply.header('retry-after', String(retryAfter));
        throw ServerErrors.LOGIN_LOCKED({ username: body.username, retryAfter });
      }
      const identity = await deps.users.verifyLogin(body.username, body.password).catch(async (error: unknown) => {
        if (OpsgateError.isInstance(error) && error.code === 'USER_DISABLED')
          await deps.audit.append({
            type: 'login_failed',
            actor: 'system',
            payload: { username: body.username, address, reason: 'disabled' },
          });
        throw error;
      });
      if (!identity) {
        await deps.limits.recordFailure(body.username, address);
        await deps.audit.append({
          type: 'login_failed',
          actor: 'system',
          payload: { username: body.username, address, reason: 'wrong password' },
        });
        throw ServerErrors.LOGIN_FAILED();
      }
      await deps.limits.recordSuccess(body.username, address);
      const user = await deps.users.findById(identity.userId);
      const { cookie, session } = deps.sessions.issue(identity.userId, user?.sessionsValidAfter);
      setSessionCookie(request, reply, deps.security, cookie, deps.sessions.ttlMs);
      await deps.audit.append({
        type: 'login_succeeded',
        actor: userActor(identity.username),
        payload: { username: identity.username, method: 'password', address },
      });
      return { user: identity, csrfToken: session.csrfToken };
    },
  );
}

/** Private: who am I, sign out, change my password. */
export function privateAuthRoutes(app: FastifyInstance, catalog: ApiCatalog, deps: AuthDeps): void {
  apiRoute(
    app,
    catalog,
    { method: 'GET', path: '/api/me', summary: 'The signed-in user (and the CSRF token for cookie sessions).', tag: 'auth', response: me },
    async ({ request }) => ({
      user: { userId: request.identity.userId, username: request.identity.username, roles: request.identity.roles },
      ...(request.loginSession ? { csrfToken: request.loginSession.csrfToken } : {}),
    }),
  );
  apiRoute(
    app,
    catalog,
    { method: 'POST', path: '/api/logout', summary: 'Sign out: ends this session cookie on every replica.', tag: 'auth' },
    async ({ request, reply }) => {
      if (request.loginSession) {
        await deps.revocations.revoke(request.loginSession, deps.sessions.ttlMs);
        deps.changes.changed(request.identity.userId);
      }
      clearSessionCookie(request, reply, deps.security);
      await deps.audit.append({
        type: 'logout',
        actor: userActor(request.identity.username),
        payload: {
          username: request.identity.username,
          via: viaOf(request),
          ...(request.identity.credentialIssuedBy ? { credentialIssuedBy: request.identity.credentialIssuedBy } : {}),
        },
      });
      return { ok: true };
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/me/password',
      summary:
        'Change your password: ends every session of yours (this one gets a fresh cookie); your API tokens stay valid — revoke them separately.',
      tag: 'auth',
      body: passwordBody,
    },
    async ({ body, request, reply }) => {
      const username = request.identity.username;
      if (!(await deps.users.verifyLogin(username, body.currentPassword))) throw UserErrors.PASSWORD_MISMATCH();
      const validAfter = await deps.users.setPassword(username, body.newPassword, {
        actor: userActor(username),
        username,
        via: viaOf(request),
      });
      deps.changes.changed(request.identity.userId);
      if (!request.loginSession) return { ok: true };
      const { cookie, session } = deps.sessions.issue(request.identity.userId, validAfter);
      setSessionCookie(request, reply, deps.security, cookie, deps.sessions.ttlMs);
      return { ok: true, csrfToken: session.csrfToken };
    },
  );
}
