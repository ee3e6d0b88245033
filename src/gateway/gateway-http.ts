import type { Identity } from '../core/identity/index.ts';
import type { UserRepository } from '../core/identity/users.ts';
import {
  createMcpHttpHandler,
  type McpHttpHandler,
  type McpHttpHost,
  type McpHttpHostOptions,
  type ProtectedResource,
  startMcpHttpHost,
} from '../mcp/http-host.ts';
import type { Gateway } from './gateway.ts';
import { createGatewayMcpServer } from './gateway-mcp-server.ts';

/**
 * Serves the gateway over Streamable HTTP at `/mcp`. Clients send an opsgate API token as bearer
 * token; the person behind it is the requester of every call.
 */
function hostOptions(gateway: Gateway, users: UserRepository, resource?: ProtectedResource): McpHttpHostOptions<Identity> {
  return {
    authenticate: async (token) => (await users.authenticateToken(token))?.identity,
    principalKey: (identity) => String(identity.userId),
    build: async (identity) => createGatewayMcpServer(gateway, identity),
    allowedHostnames: gateway.config.allowedHosts,
    ...(resource ? { resource } : {}),
  };
}

export function startGatewayHttp(
  gateway: Gateway,
  users: UserRepository,
  listen: { readonly port: number; readonly host?: string },
  resource?: ProtectedResource,
): Promise<McpHttpHost> {
  return startMcpHttpHost(hostOptions(gateway, users, resource), listen);
}

/** The gateway endpoint as a request handler, for `opsgate serve`. */
export function createGatewayHandler(gateway: Gateway, users: UserRepository, resource?: ProtectedResource): McpHttpHandler {
  return createMcpHttpHandler(hostOptions(gateway, users, resource));
}
