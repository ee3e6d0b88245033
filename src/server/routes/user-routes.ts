import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CoreErrors } from '../../core/errors/index.ts';
import { hasRole, ROLE_ADMIN } from '../../core/identity/index.ts';
import { USER_ROLES, type UserRepository } from '../../core/identity/users.ts';
import { type ApiCatalog, apiRoute } from '../api-route.ts';

const usernameParams = z.object({ username: z.string().min(1).max(64) });
const createUserBody = z
  .object({
    username: z.string().min(1).max(64),
    password: z.string().min(8).max(1024).optional(),
    roles: z.array(z.enum(USER_ROLES)).min(1).default(['user']),
  })
  .strict();
const tokenBody = z.object({ name: z.string().min(1).max(100).default('api') }).strict();
const tokenParams = z.object({ tokenId: z.coerce.number().int().min(1) });

function requireAdmin(request: FastifyRequest): void {
  if (!hasRole(request.identity, ROLE_ADMIN)) throw CoreErrors.ROLE_REQUIRED({ role: ROLE_ADMIN });
}

/** Users (admins) and API tokens (everyone for themselves; admins for anyone). */
export function userRoutes(app: FastifyInstance, catalog: ApiCatalog, users: UserRepository): void {
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
      const user = await users.create({
        username: body.username,
        roles: body.roles,
        ...(body.password ? { password: body.password } : {}),
      });
      void reply.status(201);
      return user;
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/users/:username/tokens',
      summary: 'Admins: issue an API token for a user (shown once).',
      tag: 'users',
      params: usernameParams,
      body: tokenBody,
    },
    async ({ params, body, request, reply }) => {
      requireAdmin(request);
      void reply.status(201);
      return users.createToken(params.username, body.name);
    },
  );
  apiRoute(
    app,
    catalog,
    { method: 'GET', path: '/api/tokens', summary: 'Your API tokens (never the secret).', tag: 'users' },
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
      return users.createToken(request.identity.username, body.name);
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
      await users.revokeToken(request.identity.userId, params.tokenId, hasRole(request.identity, ROLE_ADMIN));
      return { ok: true };
    },
  );
}
