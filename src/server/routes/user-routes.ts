import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { userActor } from '../../core/audit/index.ts';
import { CoreErrors } from '../../core/errors/index.ts';
import type { ChangedBy } from '../../core/identity/identity-audit.ts';
import { hasRole, ROLE_ADMIN } from '../../core/identity/index.ts';
import { TOKEN_SCOPES, USER_ROLES, type UserRepository } from '../../core/identity/users.ts';
import { type ApiCatalog, apiRoute } from '../api-route.ts';
import type { IdentityChanges } from '../identity-changes.ts';
import { ServerErrors } from '../server-errors.ts';
import { viaOf } from './auth-routes.ts';

const usernameParams = z.object({ username: z.string().min(1).max(64) });
const createUserBody = z
  .object({
    username: z.string().min(1).max(64),
    password: z.string().min(8).max(1024).optional(),
    roles: z.array(z.enum(USER_ROLES)).min(1).default(['user']),
  })
  .strict();
const rolesBody = z.object({ roles: z.array(z.enum(USER_ROLES)).min(1) }).strict();
const passwordBody = z.object({ password: z.string().min(8).max(1024) }).strict();
const tokenBody = z
  .object({
    name: z.string().min(1).max(100).default('api'),
    scopes: z
      .array(z.enum(TOKEN_SCOPES))
      .min(1)
      .optional()
      .describe(
        "use = sessions and requests, approve = decide others' calls, admin = users, hosts, tokens. Default: what your roles allow (for someone else: use)",
      ),
    expiresInDays: z.number().int().min(1).max(365).optional().describe('Default 90, at most 365'),
  })
  .strict();
const tokenParams = z.object({ tokenId: z.coerce.number().int().min(1) });

function requireAdmin(request: FastifyRequest): void {
  if (!hasRole(request.identity, ROLE_ADMIN)) throw CoreErrors.ROLE_REQUIRED({ role: ROLE_ADMIN });
}

/** The authenticated person, as an identity change names them in the audit. */
function changedBy(request: FastifyRequest): ChangedBy {
  const issuer = request.identity.credentialIssuedBy;
  return {
    actor: userActor(request.identity.username),
    username: request.identity.username,
    via: viaOf(request),
    ...(issuer ? { credentialIssuedBy: issuer } : {}),
  };
}

/**
 * A token never mints a stronger one: through a token the scopes are at most its own, and a
 * token someone else issued passes its issuer on, so a borrowed credential cannot launder itself.
 */
function tokenOptions(body: z.infer<typeof tokenBody>, request: FastifyRequest, holder: string) {
  const held = request.tokenScopes;
  // Defaults: your own token gets what your roles (or this token) allow; someone else's gets `use`.
  const scopes = body.scopes ?? (holder !== request.identity.username ? ['use' as const] : held ? [...held] : undefined);
  const missing = held && scopes?.find((scope) => !held.has(scope));
  if (missing) throw ServerErrors.TOKEN_SCOPE_MISSING({ scope: missing });
  const by = changedBy(request);
  return {
    ...(scopes ? { scopes } : {}),
    ...(body.expiresInDays ? { expiresInMs: body.expiresInDays * 86_400_000 } : {}),
    // A token minted through a borrowed one is issued by the original issuer.
    by: by.credentialIssuedBy ? { ...by, username: by.credentialIssuedBy } : by,
  };
}

/** Users (admins) and API tokens (everyone for themselves; admins for anyone). Every change is audited. */
export function userRoutes(app: FastifyInstance, catalog: ApiCatalog, users: UserRepository, changes: IdentityChanges): void {
  apiRoute(app, catalog, { method: 'GET', path: '/api/users', summary: 'Admins: list users.', tag: 'users' }, async ({ request }) => {
    requireAdmin(request);
    return { users: await users.list() };
  });
  apiRoute(
    app,
    catalog,
    { method: 'POST', path: '/api/users', summary: 'Admins: create a user.', tag: 'users', body: createUserBody },
    async ({ body, request, reply }) => {
      requireAdmin(request);
      const user = await users.create(
        { username: body.username, roles: body.roles, ...(body.password ? { password: body.password } : {}) },
        changedBy(request),
      );
      void reply.status(201);
      return user;
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'PUT',
      path: '/api/users/:username/roles',
      summary: "Admins: set a user's roles (open connections are checked again at once).",
      tag: 'users',
      params: usernameParams,
      body: rolesBody,
    },
    async ({ params, body, request }) => {
      requireAdmin(request);
      // The last way into the admin screens is never lost by a slip.
      if (params.username === request.identity.username && !body.roles.includes(ROLE_ADMIN))
        throw CoreErrors.BAD_REQUEST({ detail: 'You cannot take the admin role from yourself. Ask another admin to do it.' });
      const user = await users.setRoles(params.username, body.roles, changedBy(request));
      changes.changed(user.id);
      return user;
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/users/:username/password',
      summary: "Admins: set a user's password; ends every session of theirs (their API tokens stay).",
      tag: 'users',
      params: usernameParams,
      body: passwordBody,
    },
    async ({ params, body, request }) => {
      requireAdmin(request);
      const user = await users.requireByName(params.username);
      await users.setPassword(params.username, body.password, changedBy(request));
      changes.changed(user.id);
      return { ok: true };
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/users/:username/disable',
      summary: 'Admins: disable a user: no sign-in, every session ended, every API token revoked.',
      tag: 'users',
      params: usernameParams,
    },
    async ({ params, request }) => {
      requireAdmin(request);
      const user = await users.disable(params.username, changedBy(request));
      changes.changed(user.id);
      return user;
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/users/:username/enable',
      summary: 'Admins: enable a disabled user.',
      tag: 'users',
      params: usernameParams,
    },
    async ({ params, request }) => {
      requireAdmin(request);
      return users.enable(params.username, changedBy(request));
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/users/:username/tokens',
      summary:
        'Admins: issue an API token for a user (shown once). It records you as its issuer; its decisions name you, and a borrowed credential cannot approve.',
      tag: 'users',
      params: usernameParams,
      body: tokenBody,
    },
    async ({ params, body, request, reply }) => {
      requireAdmin(request);
      void reply.status(201);
      return users.createToken(params.username, body.name, tokenOptions(body, request, params.username));
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'GET',
      path: '/api/users/:username/tokens',
      summary: "Admins: a user's API tokens with scope, expiry and issuer (never the secret).",
      tag: 'users',
      params: usernameParams,
    },
    async ({ params, request }) => {
      requireAdmin(request);
      return { tokens: await users.listTokens((await users.requireByName(params.username)).id) };
    },
  );
  apiRoute(
    app,
    catalog,
    { method: 'GET', path: '/api/tokens', summary: 'Your API tokens with scope, expiry and issuer (never the secret).', tag: 'users' },
    async ({ request }) => ({
      tokens: await users.listTokens(request.identity.userId),
    }),
  );
  apiRoute(
    app,
    catalog,
    { method: 'POST', path: '/api/tokens', summary: 'Issue yourself an API token (shown once).', tag: 'users', body: tokenBody },
    async ({ body, request, reply }) => {
      void reply.status(201);
      return users.createToken(request.identity.username, body.name, tokenOptions(body, request, request.identity.username));
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'DELETE',
      path: '/api/tokens/:tokenId',
      summary: "Revoke one of your tokens (admins: anyone's).",
      tag: 'users',
      params: tokenParams,
    },
    async ({ params, request }) => {
      await users.revokeToken(request.identity.userId, params.tokenId, hasRole(request.identity, ROLE_ADMIN), changedBy(request));
      return { ok: true };
    },
  );
}
