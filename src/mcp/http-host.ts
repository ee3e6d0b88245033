import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** Where a 401 points an MCP client that wants to sign in (RFC 9728 protected-resource metadata). */
export interface ProtectedResource {
  /** The OIDC issuer that hands out tokens for this resource. */
  readonly authorizationServers: readonly string[];
}

export interface McpHttpHostOptions<Principal> {
  /** Resolves a bearer token to who is calling; undefined refuses the request with 401. */
  authenticate(token: string): Promise<Principal | undefined>;
  /** Two requests belong to the same caller when these keys are equal (an MCP session never changes hands). */
  principalKey(principal: Principal): string;
  /** Builds the MCP server one client session talks to, acting for `principal`. */
  build(principal: Principal): Promise<McpServer>;
  /** Host names (without port) a request may name; anything else is refused with 403 (DNS rebinding). Default loopback names. */
  readonly allowedHostnames?: readonly string[];
  readonly resource?: ProtectedResource;
  /** Path of the MCP endpoint. Default `/mcp`. */
  readonly path?: string;
}

export interface McpHttpHost {
  readonly server: Server;
  /** The bound port. */
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

export const LOOPBACK_HOSTNAMES: readonly string[] = ['127.0.0.1', 'localhost', '[::1]'];
const METADATA_PATH = '/.well-known/oauth-protected-resource';

/** Constant-time comparison of a presented secret with the expected one. */
export function secretsEqual(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function bearer(request: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

interface Live<Principal> {
  readonly key: string;
  readonly principal: Principal;
  readonly server: McpServer;
  readonly transport: StreamableHTTPServerTransport;
}

/**
 * Serves MCP over Streamable HTTP to authenticated clients only. Every request must name an
 * allowed Host (else 403: a DNS-rebinding page cannot reach it) and carry a bearer token the
 * caller resolves (else 401 with `WWW-Authenticate` pointing at the protected-resource
 * metadata). Each MCP session is bound to the person who opened it; another token cannot use it.
 */
export async function startMcpHttpHost<Principal>(
  options: McpHttpHostOptions<Principal>,
  listen: { readonly port: number; readonly host?: string },
): Promise<McpHttpHost> {
  const path = options.path ?? '/mcp';
  const hostnames = options.allowedHostnames ?? LOOPBACK_HOSTNAMES;
  const sessions = new Map<string, Live<Principal>>();
  let allowedHosts: string[] = [];
  let origin = '';

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (!allowedHosts.includes(request.headers.host ?? '')) {
      json(response, 403, { error: `Host "${request.headers.host ?? ''}" is not allowed; connect to ${origin}${path}` });
      return;
    }
    const url = new URL(request.url ?? '/', origin);
    if (url.pathname === METADATA_PATH || url.pathname === `${METADATA_PATH}${path}`) {
      json(response, 200, {
        resource: `${origin}${path}`,
        authorization_servers: options.resource?.authorizationServers ?? [],
        bearer_methods_supported: ['header'],
      });
      return;
    }
    if (url.pathname !== path) {
      json(response, 404, { error: `no such path; the MCP endpoint is ${path}` });
      return;
    }
    const token = bearer(request);
    const principal = token ? await options.authenticate(token) : undefined;
    if (principal === undefined) {
      json(
        response,
        401,
        { error: 'authentication required: send "Authorization: Bearer <token>" (an opsgate API token: opsgate users token NAME)' },
        { 'www-authenticate': `Bearer resource_metadata="${origin}${METADATA_PATH}"` },
      );
      return;
    }
    const key = options.principalKey(principal);
    const id = request.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const live = sessions.get(id);
      if (!live) return json(response, 404, { error: 'unknown MCP session; initialize again' });
      if (live.key !== key) return json(response, 403, { error: 'this MCP session belongs to someone else' });
      await live.transport.handleRequest(request, response);
      return;
    }
    const server = await options.build(principal);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      // The SDK's own DNS-rebinding check too, so a later edit of the check above cannot open it.
      enableDnsRebindingProtection: true,
      allowedHosts,
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, { key, principal, server, transport });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      void server.close();
    };
    await server.connect(transport);
    await transport.handleRequest(request, response);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) json(response, 500, { error: error instanceof Error ? error.message : String(error) });
    });
  });
  const bindHost = listen.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(listen.port, bindHost, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  allowedHosts = hostnames.flatMap((name) => [name, `${name}:${port}`]);
  origin = `http://${bindHost.includes(':') ? `[${bindHost}]` : bindHost}:${port}`;
  return {
    server,
    port,
    url: `${origin}${path}`,
    async close() {
      for (const live of sessions.values()) await live.server.close();
      sessions.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
