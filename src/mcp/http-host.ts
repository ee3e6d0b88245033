import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type DirectAnswer, readDirectRequest } from './direct-answer.ts';

/** Where a 401 points an MCP client that wants to sign in (RFC 9728 protected-resource metadata). */
export interface ProtectedResource {
  /** Issuers that hand out tokens for this resource (an OIDC issuer, another opsgate). */
  readonly authorizationServers: readonly string[];
  /** opsgate on the same origin is the OAuth authorization server (`opsgate serve`); listed first. */
  readonly sameOrigin?: boolean;
}

export interface McpHttpHostOptions<Principal> {
  /** Resolves a bearer token presented to `resource` (this endpoint's URL) to who is calling; undefined refuses the request with 401. */
  authenticate(token: string, resource: string): Promise<Principal | undefined>;
  /** Two requests belong to the same caller when these keys are equal (an MCP session never changes hands). */
  principalKey(principal: Principal): string;
  /** Builds the MCP server one client session talks to, acting for `principal`. */
  build(principal: Principal): Promise<McpServer>;
  /** Host names (without port) a request may name; anything else is refused with 403 (DNS rebinding). Default loopback names. */
  readonly allowedHostnames?: readonly string[];
  readonly resource?: ProtectedResource;
  /** Path of the MCP endpoint. Default `/mcp`. */
  readonly path?: string;
  /**
   * Answers one request of an open session at once, as one JSON body, without the SDK's streaming
   * transport (SSE framing, Web Request/Response conversion): for requests that need nothing sent
   * back to the client while they run (the gateway's reads). Undefined hands the request to the
   * transport, which answers it as always.
   */
  answerDirectly?(principal: Principal, method: string, params: Readonly<Record<string, unknown>>): Promise<DirectAnswer | undefined>;
}

export interface McpHttpHost {
  readonly server: Server;
  /** The bound port. */
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/** The MCP endpoint as a plain Node request handler, to mount in any HTTP server (opsgate serve, a stand-alone host). */
export interface McpHttpHandler {
  /** Handles a request to the MCP path or the protected-resource metadata; returns false for any other path. */
  handle(request: IncomingMessage, response: ServerResponse, parsedBody?: unknown): Promise<boolean>;
  close(): Promise<void>;
}

export const LOOPBACK_HOSTNAMES: readonly string[] = ['127.0.0.1', 'localhost', '[::1]'];
export const METADATA_PATH = '/.well-known/oauth-protected-resource';

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

/** The host name of an Origin header (`http://[::1]:3000` → `[::1]`); "" when it is not a URL (`null`). */
function originHostname(origin: string): string {
  try {
    return new URL(origin).hostname;
  } catch {
    return '';
  }
}

/** The host name of a Host header, without its port (`[::1]:80` → `[::1]`). */
function hostnameOf(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? '');
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
export function createMcpHttpHandler<Principal>(options: McpHttpHostOptions<Principal>): McpHttpHandler {
  const path = options.path ?? '/mcp';
  const hostnames = options.allowedHostnames ?? LOOPBACK_HOSTNAMES;
  const sessions = new Map<string, Live<Principal>>();

  /** A request of an open session: answered directly when the host can, else by the session's transport. */
  const answer = async (live: Live<Principal>, request: IncomingMessage, response: ServerResponse, parsedBody: unknown): Promise<void> => {
    if (!options.answerDirectly) return live.transport.handleRequest(request, response, parsedBody);
    const read = await readDirectRequest(request, parsedBody);
    if (read.kind === 'refused') return json(response, read.status, read.body);
    if (read.kind === 'request') {
      let answered: DirectAnswer | undefined;
      try {
        answered = await options.answerDirectly(live.principal, read.message.method, read.message.params);
      } catch (error) {
        // What the SDK's protocol layer answers for a handler that throws: an internal error, its message.
        answered = { error: { code: -32603, message: error instanceof Error ? error.message : String(error) } };
      }
      if (answered) {
        response
          .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': live.transport.sessionId ?? '' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: read.message.id, ...answered }));
        return;
      }
    }
    return live.transport.handleRequest(request, response, read.parsedBody);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse, parsedBody?: unknown): Promise<boolean> => {
    const url = new URL(request.url ?? '/', 'http://local');
    const isMetadata = url.pathname === METADATA_PATH || url.pathname === `${METADATA_PATH}${path}`;
    if (url.pathname !== path && !isMetadata) return false;
    const host = request.headers.host ?? '';
    if (!hostnames.includes(hostnameOf(host))) {
      json(response, 403, { error: `Host "${host}" is not allowed here; connect through one of: ${hostnames.join(', ')}` });
      return true;
    }
    // A browser names the page that sends a request; only pages served from an allowed host may call (defence in depth beside Host).
    const pageOrigin = request.headers.origin;
    if (pageOrigin !== undefined && !hostnames.includes(originHostname(pageOrigin))) {
      json(response, 403, {
        error: `Origin "${pageOrigin}" is not allowed here; MCP clients connect from one of: ${hostnames.join(', ')}`,
      });
      return true;
    }
    const origin = `http://${host}`;
    const resource = `${origin}${path}`;
    if (isMetadata) {
      json(response, 200, {
        resource,
        authorization_servers: [...(options.resource?.sameOrigin ? [origin] : []), ...(options.resource?.authorizationServers ?? [])],
        bearer_methods_supported: ['header'],
      });
      return true;
    }
    const token = bearer(request);
    const principal = token ? await options.authenticate(token, resource) : undefined;
    if (principal === undefined) {
      const invalid = token ? ', error="invalid_token"' : '';
      json(
        response,
        401,
        {
          error: token
            ? `the bearer token is not valid for ${resource} (expired, revoked, its holder disabled, or issued for another resource); sign in again or use an opsgate API token`
            : 'authentication required: send "Authorization: Bearer <token>" (an opsgate API token: opsgate users token NAME) or sign in with OAuth',
        },
        { 'www-authenticate': `Bearer resource_metadata="${origin}${METADATA_PATH}"${invalid}` },
      );
      return true;
    }
    const key = options.principalKey(principal);
    const id = request.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const live = sessions.get(id);
      if (!live) json(response, 404, { error: 'unknown MCP session; initialize again' });
      else if (live.key !== key) json(response, 403, { error: 'this MCP session belongs to someone else' });
      else await answer(live, request, response, parsedBody);
      return true;
    }
    const server = await options.build(principal);
    const port = host.slice(hostnameOf(host).length + 1);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      // The SDK's own DNS-rebinding check too, so a later edit of the check above cannot open it.
      enableDnsRebindingProtection: true,
      allowedHosts: hostnames.flatMap((name) => (port ? [name, `${name}:${port}`] : [name])),
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, { key, principal, server, transport });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      void server.close();
    };
    await server.connect(transport);
    await transport.handleRequest(request, response, parsedBody);
    return true;
  };

  return {
    handle,
    async close() {
      for (const live of sessions.values()) await live.server.close();
      sessions.clear();
    },
  };
}

/** A stand-alone HTTP server for one MCP endpoint (`opsgate mcp-server --http`, `opsgate gateway`). */
export async function startMcpHttpHost<Principal>(
  options: McpHttpHostOptions<Principal>,
  listen: { readonly port: number; readonly host?: string },
): Promise<McpHttpHost> {
  const handler = createMcpHttpHandler(options);
  const server = createServer((request, response) => {
    handler
      .handle(request, response)
      .then((handled) => {
        if (!handled) json(response, 404, { error: `no such path; the MCP endpoint is ${options.path ?? '/mcp'}` });
      })
      .catch((error: unknown) => {
        if (!response.headersSent) json(response, 500, { error: error instanceof Error ? error.message : String(error) });
      });
  });
  const bindHost = listen.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(listen.port, bindHost, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  return {
    server,
    port,
    url: `http://${bindHost.includes(':') ? `[${bindHost}]` : bindHost}:${port}${options.path ?? '/mcp'}`,
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
