import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Clock } from '../../../core/agent/define-agent.ts';
import { OpsgateError } from '../../../core/errors/index.ts';
import type { Store } from '../../../core/store/index.ts';
import { type AccessRow, CatalogRepository } from './catalog-repository.ts';
import { assertDuration, assertEligible } from './eligibility.ts';
import { AccessServiceErrors } from './errors.ts';
import {
  accessSchema,
  grantResponse,
  listAccessesResponse,
  revokeResponse,
  userAccessesResponse,
  userResponse,
} from './response-schemas.ts';
import { parseAccessBody, parseGrantBody, parseId, parsePage, parseTeam, parseUserBody } from './validation.ts';

export interface AccessServiceOptions {
  /** The opsgate store; the catalog tables must be migrated (`accessCatalogMigration`). */
  readonly store: Store;
  /** The key `X-Admin-Key` must carry (from `ACCESS_ADMIN_KEY`). Never logged. */
  readonly adminKey: string;
  /** Default: the system clock. */
  readonly clock?: Clock;
  /** Request log; default none. Headers are never logged. */
  readonly logger?: Logger;
  /** How long a catalog page is served from memory, in ms. Default 1000; 0 disables. */
  readonly catalogCacheMs?: number;
}

const systemClock: Clock = { now: () => new Date() };

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function accessJson(access: AccessRow) {
  return { id: access.id, name: access.name, description: access.description, renewal_period: access.renewal_period, teams: access.teams };
}

/**
 * The access-catalog REST service of the spec (`/admin/accesses`, `/users/{user_id}/accesses`),
 * plus admin endpoints to create accesses and users and revoke grants. Returns the Fastify app,
 * not listening: mount it, `listen` it, or `inject` into it.
 */
export function createAccessService(options: AccessServiceOptions): FastifyInstance {
  if (options.adminKey === '') throw new Error('createAccessService needs a non-empty adminKey (ACCESS_ADMIN_KEY)');
  const repository = new CatalogRepository(options.store);
  const clock = options.clock ?? systemClock;
  const adminKeyDigest = digest(options.adminKey);
  const cacheMs = options.catalogCacheMs ?? 1000;
  const catalogCache = new Map<string, { at: number; value: { accesses: AccessRow[]; total: number } }>();

  const app: FastifyInstance = options.logger
    ? (Fastify({ loggerInstance: options.logger }) as unknown as FastifyInstance)
    : Fastify({ logger: false });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({
      detail: `No route ${request.method} ${request.url.split('?')[0]}. See the access service's endpoints in the spec.`,
      code: 'ACCESS_ROUTE_NOT_FOUND',
    });
  });
  app.setErrorHandler((error, request, reply) => {
    if (OpsgateError.isInstance(error)) {
      reply.code(error.status).send({ detail: error.message, code: error.code });
      return;
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      reply.code(status === 415 ? 415 : 400).send({ detail: `Bad request: ${(error as Error).message}`, code: 'ACCESS_BAD_REQUEST' });
      return;
    }
    request.log.error({ err: error }, 'access service request failed');
    const failure = AccessServiceErrors.ACCESS_SERVICE_FAILED();
    reply.code(500).send({ detail: failure.message, code: failure.code });
  });

  async function listCatalog(page: { limit: number; offset: number; team?: string }) {
    if (cacheMs <= 0) return repository.listAccesses(page);
    const key = `${page.limit}:${page.offset}:${page.team ?? ''}`;
    const cached = catalogCache.get(key);
    const now = performance.now();
    if (cached && now - cached.at < cacheMs) return cached.value;
    const value = await repository.listAccesses(page);
    if (catalogCache.size > 1000) catalogCache.clear();
    catalogCache.set(key, { at: now, value });
    return value;
  }

  // Admin routes: one encapsulated context, the admin key checked once for all of them.
  app.register(async (admin) => {
    admin.addHook('onRequest', async (request) => {
      const given = header(request, 'x-admin-key');
      if (given === undefined || !timingSafeEqual(digest(given), adminKeyDigest)) throw AccessServiceErrors.ACCESS_ADMIN_KEY_INVALID();
    });

    admin.get('/admin/accesses', { schema: { response: listAccessesResponse } }, async (request) => {
      const query = request.query as Record<string, unknown>;
      const page = parsePage(query);
      const team = parseTeam(query.team);
      const { accesses, total } = await listCatalog(team === undefined ? page : { ...page, team });
      return { accesses: accesses.map(accessJson), total, limit: page.limit, offset: page.offset };
    });

    admin.post('/admin/accesses', { schema: { response: { 201: accessSchema } } }, async (request, reply) => {
      const access = await repository.createAccess(parseAccessBody(request.body), clock.now());
      catalogCache.clear();
      reply.code(201);
      return accessJson(access);
    });

    admin.post('/admin/users', { schema: { response: userResponse(201) } }, async (request, reply) => {
      const body = parseUserBody(request.body);
      const user = await repository.createUser(body.username, clock.now(), body.teams);
      reply.code(201);
      return { user_id: user.id, username: user.username, teams: user.teams };
    });

    admin.delete('/admin/users/:user_id/accesses/:access_name', async (request) => {
      const params = request.params as Record<string, string>;
      const userId = parseId('user_id', params.user_id);
      const accessName = params.access_name ?? '';
      const user = await repository.findUserById(userId);
      if (!user) throw AccessServiceErrors.ACCESS_USER_NOT_FOUND({ user: userId });
      const access = await repository.findAccess(accessName);
      if (!access) throw AccessServiceErrors.ACCESS_NOT_FOUND({ accessName });
      const { revoked_at } = await repository.revoke(user.id, access, clock.now());
      return { user_id: user.id, access_name: access.name, revoked_at };
    });
  });

  // User routes: X-Username names the caller; a user acts only on their own account.
  app.register(async (users) => {
    users.decorateRequest('caller', '');
    users.addHook('onRequest', async (request) => {
      const username = header(request, 'x-username');
      if (username === undefined) throw AccessServiceErrors.ACCESS_USERNAME_MISSING();
      (request as FastifyRequest & { caller: string }).caller = username;
    });

    async function ownAccount(request: FastifyRequest) {
      const userId = parseId('user_id', (request.params as Record<string, string>).user_id);
      const user = await repository.findUserById(userId);
      if (!user) throw AccessServiceErrors.ACCESS_USER_NOT_FOUND({ user: userId });
      const caller = (request as FastifyRequest & { caller: string }).caller;
      if (user.username !== caller) throw AccessServiceErrors.ACCESS_FORBIDDEN({ username: caller, userId });
      return user;
    }

    users.get('/me', { schema: { response: userResponse(200) } }, async (request) => {
      const caller = (request as FastifyRequest & { caller: string }).caller;
      const user = await repository.findUserByUsername(caller);
      if (!user) throw AccessServiceErrors.ACCESS_USER_NOT_FOUND({ user: JSON.stringify(caller) });
      return { user_id: user.id, username: user.username, teams: user.teams };
    });

    users.get('/users/:user_id/accesses', { schema: { response: userAccessesResponse } }, async (request) => {
      const user = await ownAccount(request);
      return {
        user_id: user.id,
        username: user.username,
        teams: user.teams,
        accesses: await repository.heldAccesses(user.id, clock.now()),
      };
    });

    users.post(
      '/users/:user_id/accesses',
      { schema: { response: grantResponse } },
      async (request: FastifyRequest, reply: FastifyReply) => {
        const user = await ownAccount(request);
        const { accessName, reason, durationDays } = parseGrantBody(request.body);
        const access = await repository.findAccess(accessName);
        if (!access) throw AccessServiceErrors.ACCESS_NOT_FOUND({ accessName });
        assertEligible(user, access);
        assertDuration(access, durationDays);
        const grant = await repository.grant(user, access, clock.now(), reason, durationDays);
        reply.code(201);
        return { ...accessJson(access), assigned_at: grant.assigned_at, expires_at: grant.expires_at };
      },
    );

    users.delete('/users/:user_id/accesses/:access_name', { schema: { response: revokeResponse } }, async (request) => {
      const user = await ownAccount(request);
      const accessName = (request.params as Record<string, string>).access_name ?? '';
      const access = await repository.findAccess(accessName);
      if (!access) throw AccessServiceErrors.ACCESS_NOT_FOUND({ accessName });
      const { revoked_at } = await repository.revoke(user.id, access, clock.now());
      return { user_id: user.id, access_name: access.name, revoked_at };
    });
  });

  return app;
}
