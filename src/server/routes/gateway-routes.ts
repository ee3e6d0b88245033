import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { CoreErrors } from '../../core/errors/index.ts';
import { hasRole, ROLE_ADMIN } from '../../core/identity/index.ts';
import { ResourceTokens } from '../../core/identity/oauth-grants.ts';
import type { UserRepository } from '../../core/identity/users.ts';
import type { Store } from '../../core/store/index.ts';
import { createGatewayHandler, type Gateway } from '../../gateway/index.ts';
import { METADATA_PATH } from '../../mcp/http-host.ts';

/**
 * The gateway section of `opsgate serve`: the MCP endpoint `/mcp` (bearer opsgate API tokens or
 * OAuth access tokens issued for it, allowed Hosts only), its protected-resource metadata, and the upstreams' status for admins.
 */
export async function registerGatewayRoutes(
  app: FastifyInstance,
  options: { readonly gateway: Gateway; readonly users: UserRepository; readonly store: Store; readonly oidcIssuer?: string },
): Promise<void> {
  // opsgate itself issues OAuth tokens for this endpoint (the consent page is on this origin).
  const handler = createGatewayHandler(options.gateway, ResourceTokens.forStore(options.store, options.users), {
    sameOrigin: true,
    authorizationServers: options.oidcIssuer ? [options.oidcIssuer] : [],
  });
  app.addHook('onClose', async () => handler.close());
  const mcp = async (request: { raw: IncomingMessage; body?: unknown }, reply: { hijack(): void; raw: ServerResponse }) => {
    reply.hijack();
    await handler.handle(request.raw, reply.raw, request.body);
  };
  app.route({ method: ['GET', 'POST', 'DELETE'], url: '/mcp', handler: mcp });
  app.get(METADATA_PATH, mcp);
  app.get(`${METADATA_PATH}/mcp`, mcp);
  app.get('/api/gateway/upstreams', async (request) => {
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    const identity = match ? (await options.users.authenticateToken(match[1]!))?.identity : undefined;
    if (!identity) throw CoreErrors.AUTH_REQUIRED();
    if (!hasRole(identity, ROLE_ADMIN)) throw CoreErrors.ROLE_REQUIRED({ role: ROLE_ADMIN });
    return { upstreams: options.gateway.status() };
  });
}
