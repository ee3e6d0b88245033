import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CoreErrors } from '../core/errors/index.ts';
import type { Identity } from '../core/identity/index.ts';
import type { UserRepository } from '../core/identity/users.ts';
import { type LoginSession, LoginSessions, SESSION_COOKIE } from './login-sessions.ts';
import { ServerErrors } from './server-errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling; set by the authentication hook of the private context. */
    identity: Identity;
    /** Present when the caller authenticated with the session cookie (not a bearer token). */
    loginSession: LoginSession | undefined;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function sameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

/**
 * Installs authentication on an encapsulated context: every route registered inside it needs a
 * valid bearer token or session cookie; cookie-authenticated writes (and WebSocket upgrades)
 * must also prove they come from our page (`X-CSRF-Token` double-submit, same Origin).
 */
export function installAuthentication(app: FastifyInstance, users: UserRepository, sessions: LoginSessions): void {
  app.decorateRequest('identity', null as unknown as Identity);
  app.decorateRequest('loginSession', undefined);
  app.addHook('onRequest', async (request) => {
    const authorization = request.headers.authorization;
    if (authorization !== undefined) {
      const match = /^Bearer\s+(\S+)$/i.exec(authorization);
      const identity = match ? await users.authenticateToken(match[1]!) : undefined;
      if (!identity) throw CoreErrors.AUTH_REQUIRED();
      request.identity = identity;
      return;
    }
    const session = sessions.read(request.cookies[SESSION_COOKIE]);
    const user = session ? await users.findById(session.userId) : undefined;
    if (!session || !user) throw CoreErrors.AUTH_REQUIRED();
    const isUpgrade = request.headers.upgrade?.toLowerCase() === 'websocket';
    if (!sameOrigin(request)) throw ServerErrors.CSRF_REJECTED();
    if (!SAFE_METHODS.has(request.method) && !isUpgrade) {
      const header = request.headers['x-csrf-token'];
      if (!LoginSessions.csrfMatches(session, typeof header === 'string' ? header : undefined)) throw ServerErrors.CSRF_REJECTED();
    }
    request.identity = { userId: user.id, username: user.username, roles: user.roles };
    request.loginSession = session;
  });
}
