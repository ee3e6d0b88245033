import { type Identity, throughChannel } from '../core/identity/index.ts';
import type { ResourceTokens } from '../core/identity/oauth-grants.ts';
import {
  createMcpHttpHandler,
  type McpHttpHandler,
  type McpHttpHost,
  type McpHttpHostOptions,
  type ProtectedResource,
  startMcpHttpHost,
} from '../mcp/http-host.ts';
import { failureResult } from './call-results.ts';
import type { Gateway } from './gateway.ts';
import { createGatewayMcpServer } from './gateway-mcp-server.ts';
import { planGatewayRead } from './gateway-read.ts';

/**
 * Serves the gateway over Streamable HTTP at `/mcp`. Clients send an opsgate API token, or an
 * OAuth access token issued for this endpoint, as bearer token; the person behind it (as their
 * session was opened) is the requester of every call.
 */
function hostOptions(gateway: Gateway, tokens: ResourceTokens, resource?: ProtectedResource): McpHttpHostOptions<Identity> {
  return {
    authenticate: async (token, url) => (await tokens.identify(token, url))?.identity,
    principalKey: (identity) => String(identity.userId),
    build: async (identity) => createGatewayMcpServer(gateway, identity),
    // A read the policy runs needs nothing sent back while it runs: one JSON answer, no SSE stream.
    answerDirectly: async (identity, method, params) => {
      if (method !== 'tools/call' || typeof params.name !== 'string') return undefined;
      const args = params.arguments ?? {};
      if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
      const read = await planGatewayRead(gateway, throughChannel(identity, 'gateway'), params.name, args as Record<string, unknown>);
      return read && { result: await read().catch(failureResult) };
    },
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
