import type { Identity } from '../core/identity/index.ts';
import type { ResourceTokens } from '../core/identity/oauth-grants.ts';
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
 * Serves the gateway over Streamable HTTP at `/mcp`. Clients send an opsgate API token, or an
 * OAuth access token issued for this endpoint, as bearer token; the person behind it is the
 * requester of every call.
 */
function hostOptions(gateway: Gateway, tokens: ResourceTokens, resource?: ProtectedResource): McpHttpHostOptions<Identity> {
  return {
    authenticate: async (token, url) => (await tokens.identify(token, url))?.identity,
    principalKey: (identity) => String(identity.userId),
    build: async (identity) => createGatewayMcpServer(gateway, identity),
    allowedHostnames: gateway.config.allowedHosts,
    ...(resource ? { resource } : {}),
  };
}

export function startGatewayHttp(
  gateway: Gateway,
  tokens: ResourceTokens,
  listen: { readonly port: number; readonly host?: string },
  resource?: ProtectedResource,
): Promise<McpHttpHost> {
  return startMcpHttpHost(hostOptions(gateway, tokens, resource), listen);
}

/** The gateway endpoint as a request handler, for `opsgate serve`. */
export function createGatewayHandler(gateway: Gateway, tokens: ResourceTokens, resource?: ProtectedResource): McpHttpHandler {
  return createMcpHttpHandler(hostOptions(gateway, tokens, resource));
}
