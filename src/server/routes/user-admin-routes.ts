import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { CoreErrors } from '../../core/errors/index.ts';
import { hasRole, ROLE_ADMIN } from '../../core/identity/index.ts';
import { USER_ROLES, type UserRepository } from '../../core/identity/users.ts';
import { type ApiCatalog, apiRoute } from '../api-route.ts';

const usernameParams = z.object({ username: z.string().min(1).max(64) });
const rolesBody = z.object({ roles: z.array(z.enum(USER_ROLES)).min(1) }).strict();
const passwordBody = z.object({ password: z.string().max(1024) }).strict();

/**
 * Admins change a person's role and reset a password (the Admin screen's user rows). An admin
 * cannot take the admin role from himself, so the last way into these screens is never lost by a
 * slip. Kept apart from `user-routes.ts`, which another change owns.
 */
export function userAdminRoutes(app: FastifyInstance, catalog: ApiCatalog, users: UserRepository): void {
  apiRoute(
    app,
    catalog,
    {
      method: 'PUT',
      path: '/api/users/:username/roles',
      summary: "Admins: set a user's roles.",
      tag: 'users',
      params: usernameParams,
      body: rolesBody,
    },
    async ({ params, body, request }) => {
      if (!hasRole(request.identity, ROLE_ADMIN)) throw CoreErrors.ROLE_REQUIRED({ role: ROLE_ADMIN });
      if (params.username === request.identity.username && !body.roles.includes(ROLE_ADMIN))
        throw CoreErrors.BAD_REQUEST({ detail: 'You cannot take the admin role from yourself. Ask another admin to do it.' });
      return users.setRoles(params.username, body.roles);
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'PUT',
      path: '/api/users/:username/password',
      summary: 'Admins: set a new password for a user (at least 8 characters); tell it to them out of band.',
      tag: 'users',
      params: usernameParams,
      body: passwordBody,
    },
    async ({ params, body, request }) => {
      if (!hasRole(request.identity, ROLE_ADMIN)) throw CoreErrors.ROLE_REQUIRED({ role: ROLE_ADMIN });
      await users.setPassword(params.username, body.password);
      return { ok: true };
    },
  );
}
