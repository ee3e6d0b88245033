import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CoreErrors } from '../core/errors/index.ts';
import { type Identity, identityOf } from '../core/identity/index.ts';
import type { OAuthGrants } from '../core/identity/oauth-grants.ts';
import type { TokenScope, UserRepository } from '../core/identity/users.ts';
import { type LoginRevocations, type LoginSession, LoginSessions } from './login-sessions.ts';
import { ServerErrors } from './server-errors.ts';
import { type CookieSecurity, readSessionCookie } from './session-cookie.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling; set by the authentication hook of the private context. */
    identity: Identity;
    /** Present when the caller authenticated with the session cookie (not a bearer token). */
    loginSession: LoginSession | undefined;
    /** The credential as presented, so a long-lived connection (WebSocket) can check it again later. */
    credential: Credential;
    /** A bearer token's scopes; undefined for a session cookie. */
    tokenScopes: ReadonlySet<TokenScope> | undefined;
  }
}

/** What a request presented: a bearer token or a session cookie. */
export type Credential = { readonly kind: 'bearer'; readonly token: string } | { readonly kind: 'cookie'; readonly cookie: string };

export interface Authenticated {
  readonly identity: Identity;
  readonly loginSession?: LoginSession;
  /** A token's scopes; undefined for a cookie (a person signed in does everything their roles allow). */
  readonly scopes?: ReadonlySet<TokenScope>;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Writes that start or continue work of one's own: they need a token's `use` scope. */
const USE_ROUTES = new Set(['POST /api/sessions', 'POST /api/sessions/:sessionId/messages', 'POST /api/sessions/:sessionId/feedback']);

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
 * Turns a credential into an identity, reading everything that can end it from the store on every
 * call: a token's expiry and the holder's disabled flag; a cookie's signature, lifetime, logout
 * (revoked nonce) and the user's sessions cut-off (password change, disable).
 */
export class Authenticator {
  readonly #users: UserRepository;
  readonly #sessions: LoginSessions;
  readonly #revocations: LoginRevocations;
  readonly #grants: OAuthGrants;

  constructor(users: UserRepository, sessions: LoginSessions, revocations: LoginRevocations, grants: OAuthGrants) {
    this.#users = users;
    this.#sessions = sessions;
    this.#revocations = revocations;
    this.#grants = grants;
  }

  /** The identity, or undefined when the credential no longer stands for anyone. Throws TOKEN_EXPIRED. */
  async identify(credential: Credential): Promise<Authenticated | undefined> {
    if (credential.kind === 'bearer') {
      const found = await this.#users.authenticateToken(credential.token);
      // An OAuth access token is for the MCP endpoint it was granted for, never for the REST API.
      if (!found || (await this.#grants.resourceOf(credential.token)) !== undefined) return undefined;
      return { identity: found.identity, scopes: found.scopes };
    }
    const session = this.#sessions.read(credential.cookie);
    if (!session) return undefined;
    const user = await this.#users.findById(session.userId);
    const identity = identityOf(user, { channel: 'web' });
    if (!user || !identity) return undefined;
    if (user.sessionsValidAfter !== undefined && session.issuedAt <= user.sessionsValidAfter) return undefined;
    if (await this.#revocations.isRevoked(session.nonce)) return undefined;
    return { identity, loginSession: session };
  }
}

/** The credential a request carries, if any. */
function credentialOf(request: FastifyRequest, security: CookieSecurity): Credential | undefined {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    return { kind: 'bearer', token: match?.[1] ?? '' };
  }
  const cookie = readSessionCookie(request, security);
  return cookie ? { kind: 'cookie', cookie } : undefined;
}

/**
 * Installs authentication on an encapsulated context: every route registered inside it needs a
 * valid bearer token or session cookie; cookie-authenticated writes (and WebSocket upgrades)
 * must also prove they come from our page (`X-CSRF-Token` double-submit, same Origin). A token
 * without the `use` scope may not start or continue sessions.
 */
export function installAuthentication(app: FastifyInstance, authenticator: Authenticator, security: CookieSecurity): void {
  app.decorateRequest('identity', null as unknown as Identity);
  app.decorateRequest('loginSession', undefined);
  app.decorateRequest('credential', null as never);
  app.decorateRequest('tokenScopes', undefined);
  app.addHook('onRequest', async (request) => {
    const credential = credentialOf(request, security);
    const found = credential && (await authenticator.identify(credential));
    if (!credential || !found) throw CoreErrors.AUTH_REQUIRED();
    request.credential = credential;
    request.identity = found.identity;
    if (found.scopes) {
      request.tokenScopes = found.scopes;
      const route = `${request.method} ${request.routeOptions.url ?? ''}`;
      if (USE_ROUTES.has(route) && !found.scopes.has('use')) throw ServerErrors.TOKEN_SCOPE_MISSING({ scope: 'use' });
      return;
    }
    const session = found.loginSession!;
    const isUpgrade = request.headers.upgrade?.toLowerCase() === 'websocket';
    if (!sameOrigin(request)) throw ServerErrors.CSRF_REJECTED();
    if (!SAFE_METHODS.has(request.method) && !isUpgrade) {
      const header = request.headers['x-csrf-token'];
      if (!LoginSessions.csrfMatches(session, typeof header === 'string' ? header : undefined)) throw ServerErrors.CSRF_REJECTED();
    }
    request.loginSession = session;
  });
}
