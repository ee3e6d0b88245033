import { OAuthClientMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AuditLog, userActor } from '../../core/audit/index.ts';
import { OAuthGrantError, type OAuthGrants, scopesFromText } from '../../core/identity/oauth-grants.ts';
import type { Authenticator } from '../authenticate.ts';
import { LoginSessions } from '../login-sessions.ts';
import { CONTENT_SECURITY_POLICY } from '../security-headers.ts';
import { type CookieSecurity, readSessionCookie } from '../session-cookie.ts';
import { type AuthorizationFields, renderConsentPage, renderRequestErrorPage, renderSignInPage } from './consent-page.ts';

export interface OAuthRouteDeps {
  readonly grants: OAuthGrants;
  readonly authenticator: Authenticator;
  readonly security: CookieSecurity;
  readonly audit: AuditLog;
}

/** The MCP endpoint on this origin is the only resource opsgate issues OAuth tokens for. */
const MCP_RESOURCE_PATH = '/mcp';
const S256 = /^[A-Za-z0-9_-]{43}$/;

function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.headers.host ?? 'localhost'}`;
}

function field(source: unknown, name: string): string {
  const value = (source as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

function fieldsOf(source: unknown): AuthorizationFields {
  return {
    client_id: field(source, 'client_id'),
    redirect_uri: field(source, 'redirect_uri'),
    code_challenge: field(source, 'code_challenge'),
    code_challenge_method: field(source, 'code_challenge_method'),
    resource: field(source, 'resource'),
    scope: field(source, 'scope'),
    state: field(source, 'state'),
  };
}

function oauthError(reply: FastifyReply, status: number, error: string, description: string): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').send({ error, error_description: description });
}

/** Loopback redirect URIs over http (native and CLI clients), anything else over https (RFC 8252, OAuth 2.1). */
function acceptableRedirect(uri: string): boolean {
  try {
    const url = new URL(uri);
    if (url.hash) return false;
    return url.protocol === 'https:' || (url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname));
  } catch {
    return false;
  }
}

type Checked =
  | { readonly kind: 'fatal'; readonly detail: string }
  | { readonly kind: 'redirect'; readonly error: string; readonly description: string; readonly redirectUri: string }
  | { readonly kind: 'ok'; readonly clientName: string; readonly redirectUri: string };

/** Checks an authorization request; errors about the client or redirect URI are never redirected (RFC 6749 §4.1.2.1). */
async function checkRequest(grants: OAuthGrants, fields: AuthorizationFields, origin: string): Promise<Checked> {
  const client = fields.client_id ? await grants.findClient(fields.client_id) : undefined;
  if (!client) return { kind: 'fatal', detail: 'Unknown client_id. The MCP client should register again (dynamic client registration).' };
  if (!client.redirectUris.includes(fields.redirect_uri))
    return { kind: 'fatal', detail: 'redirect_uri is not one the client registered. Nothing was sent back to it.' };
  const redirect = (error: string, description: string): Checked => ({
    kind: 'redirect',
    error,
    description,
    redirectUri: fields.redirect_uri,
  });
  if (fields.code_challenge_method !== 'S256' || !S256.test(fields.code_challenge))
    return redirect('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256');
  const resource = `${origin}${MCP_RESOURCE_PATH}`;
  if (fields.resource !== resource) return redirect('invalid_target', `resource must be this server's MCP endpoint, ${resource}`);
  try {
    scopesFromText(fields.scope);
  } catch (error) {
    if (error instanceof OAuthGrantError) return redirect(error.code, error.message);
    throw error;
  }
  return { kind: 'ok', clientName: client.clientName, redirectUri: client.redirectUris.find((u) => u === fields.redirect_uri)! };
}

/** A request the authorize endpoint cannot serve: an error page, or the error sent back to the client's redirect URI. */
function refuseRequest(reply: FastifyReply, checked: Exclude<Checked, { kind: 'ok' }>, state: string, origin: string): FastifyReply {
  if (checked.kind === 'fatal') return reply.code(400).type('text/html; charset=utf-8').send(renderRequestErrorPage(checked.detail));
  return redirectTo(reply, checked.redirectUri, { error: checked.error, error_description: checked.description }, state, origin);
}

function redirectTo(reply: FastifyReply, redirectUri: string, params: Record<string, string>, state: string, origin: string): FastifyReply {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (state) url.searchParams.set('state', state);
  url.searchParams.set('iss', origin);
  return reply.redirect(url.toString(), 302);
}

/**
 * opsgate as the OAuth 2.1 authorization server of its own MCP endpoint: metadata (RFC 8414),
 * dynamic client registration (RFC 7591), authorization with PKCE S256 and a consent page the
 * signed-in person answers, and the token endpoint. Tokens are bound to the resource (RFC 8707).
 */
export async function registerOAuthRoutes(app: FastifyInstance, deps: OAuthRouteDeps): Promise<void> {
  app.get('/.well-known/oauth-authorization-server', async (request) => {
    const origin = originOf(request);
    return {
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/oauth/token`,
      registration_endpoint: `${origin}/oauth/register`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      scopes_supported: ['use', 'approve', 'admin'],
      authorization_response_iss_parameter_supported: true,
    };
  });

  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16_384 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });

    scope.post('/oauth/register', { config: { rateLimit: { max: 20, timeWindow: 60_000 } } }, async (request, reply) => {
      const parsed = OAuthClientMetadataSchema.safeParse(request.body);
      if (!parsed.success)
        return oauthError(
          reply,
          400,
          'invalid_client_metadata',
          `the client metadata is invalid: ${parsed.error.issues[0]?.message ?? ''}`,
        );
      const metadata = parsed.data;
      const bad = metadata.redirect_uris.find((uri) => !acceptableRedirect(uri));
      if (bad !== undefined || metadata.redirect_uris.length === 0)
        return oauthError(
          reply,
          400,
          'invalid_redirect_uri',
          'redirect_uris must be https, or http on a loopback address, without a fragment',
        );
      const registered = { ...metadata, token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'] };
      const client = await deps.grants.registerClient({
        clientName: (metadata.client_name ?? '').trim().slice(0, 100) || 'unnamed MCP client',
        redirectUris: metadata.redirect_uris,
        metadata: registered,
      });
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ ...registered, client_id: client.clientId, client_id_issued_at: Math.floor(Date.parse(client.createdAt) / 1000) });
    });

    /** The person signed in to opsgate in this browser, if any (the consent is theirs to give). */
    const signedInBy = async (request: FastifyRequest) => {
      const cookie = readSessionCookie(request, deps.security);
      return cookie ? await deps.authenticator.identify({ kind: 'cookie', cookie }) : undefined;
    };

    scope.get('/oauth/authorize', async (request, reply) => {
      const origin = originOf(request);
      const fields = fieldsOf(request.query);
      if (field(request.query, 'response_type') !== 'code')
        return reply.code(400).type('text/html; charset=utf-8').send(renderRequestErrorPage('response_type must be "code".'));
      const checked = await checkRequest(deps.grants, fields, origin);
      if (checked.kind !== 'ok') return refuseRequest(reply, checked, fields.state, origin);
      const signedIn = await signedInBy(request);
      if (!signedIn?.loginSession) return reply.type('text/html; charset=utf-8').send(renderSignInPage(request.url));
      // The form posts here and the answer redirects to the client: CSP form-action must allow that one origin.
      void reply.header(
        'content-security-policy',
        CONTENT_SECURITY_POLICY.replace("form-action 'self'", `form-action 'self' ${new URL(checked.redirectUri).origin}`),
      );
      return reply.type('text/html; charset=utf-8').send(
        renderConsentPage({
          clientName: checked.clientName,
          redirectHost: new URL(checked.redirectUri).host,
          username: signedIn.identity.username,
          csrfToken: signedIn.loginSession.csrfToken,
          fields,
        }),
      );
    });

    scope.post('/oauth/authorize', async (request, reply) => {
      const origin = originOf(request);
      const body = request.body;
      const signedIn = await signedInBy(request);
      const sentOrigin = request.headers.origin;
      if (
        !signedIn?.loginSession ||
        (sentOrigin !== undefined && sentOrigin !== origin) ||
        !LoginSessions.csrfMatches(signedIn.loginSession, field(body, 'csrf_token'))
      )
        return reply
          .code(403)
          .type('text/html; charset=utf-8')
          .send(renderRequestErrorPage('Sign in to opsgate and answer the consent page again.'));
      const fields = fieldsOf(body);
      const checked = await checkRequest(deps.grants, fields, origin);
      if (checked.kind !== 'ok') return refuseRequest(reply, checked, fields.state, origin);
      const identity = signedIn.identity;
      const approved = field(body, 'decision') === 'approve';
      await deps.audit.append({
        type: approved ? 'oauth_consent_granted' : 'oauth_consent_denied',
        actor: userActor(identity.username),
        payload: { clientId: fields.client_id, clientName: checked.clientName, resource: fields.resource, scope: fields.scope || 'use' },
      });
      if (!approved)
        return redirectTo(
          reply,
          checked.redirectUri,
          { error: 'access_denied', error_description: `${identity.username} denied access` },
          fields.state,
          origin,
        );
      const code = await deps.grants.issueCode({
        clientId: fields.client_id,
        userId: identity.userId,
        codeChallenge: fields.code_challenge,
        redirectUri: checked.redirectUri,
        resource: fields.resource,
        scopes: scopesFromText(fields.scope),
      });
      return redirectTo(reply, checked.redirectUri, { code }, fields.state, origin);
    });

    scope.post('/oauth/token', { config: { rateLimit: { max: 60, timeWindow: 60_000 } } }, async (request, reply) => {
      const body = request.body;
      if (field(body, 'grant_type') !== 'authorization_code')
        return oauthError(
          reply,
          400,
          'unsupported_grant_type',
          'only grant_type=authorization_code is supported; sign in again when the token ends',
        );
      const code = field(body, 'code');
      const codeVerifier = field(body, 'code_verifier');
      const clientId = field(body, 'client_id');
      if (!code || !codeVerifier || !clientId)
        return oauthError(reply, 400, 'invalid_request', 'code, code_verifier and client_id are required');
      const redirectUri = field(body, 'redirect_uri');
      const resource = field(body, 'resource');
      try {
        const issued = await deps.grants.exchangeCode({
          clientId,
          code,
          codeVerifier,
          ...(redirectUri ? { redirectUri } : {}),
          ...(resource ? { resource } : {}),
        });
        return reply.header('cache-control', 'no-store').send({
          access_token: issued.accessToken,
          token_type: 'Bearer',
          expires_in: issued.expiresInSeconds,
          scope: issued.scopes.join(' '),
        });
      } catch (error) {
        if (error instanceof OAuthGrantError) return oauthError(reply, 400, error.code, error.message);
        throw error;
      }
    });
  });
}
