import { createServer } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type CliCommand, type CliIo, UsageError } from '../command.ts';
import { parseIntegerOption } from '../parse-args.ts';

/** A module that builds one agent's MCP server from its own arguments. */
export interface McpServerModule {
  createMcpServer(options: { args: readonly string[] }): Promise<McpServer>;
}

/** The MCP servers opsgate ships, by name; each is loaded only when asked for. */
export const mcpServers: Readonly<Record<string, () => Promise<McpServerModule>>> = {
  sandbox: () => import('../../agents/sandbox/mcp-server.ts'),
  helm: () => import('../../agents/helm/mcp-server.ts' as string) as Promise<McpServerModule>,
};

const usage = `Usage: opsgate mcp-server <name> [--http PORT] [server options]

Serves one of opsgate's MCP servers over stdio (default) or streamable HTTP on 127.0.0.1:PORT (path /mcp).

Servers:
  sandbox --db FILE | --url postgres://…   the SQL sandbox (execute_query, inspect_state, run_profiler)
  helm    [options]                        the Helm server (see its documentation)`;

/** Splits `--http PORT` off the arguments; the rest belong to the server. */
function takeHttpPort(args: readonly string[]): { port?: number; rest: string[] } {
  const rest: string[] = [];
  let port: number | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--http' || arg.startsWith('--http=')) {
      const value = arg === '--http' ? args[++index] : arg.slice('--http='.length);
      if (value === undefined) throw new UsageError('--http needs a port number');
      port = parseIntegerOption('http', value, 0, 0, 65535);
    } else {
      rest.push(arg);
    }
  }
  return port === undefined ? { rest } : { port, rest };
}

async function serveHttp(build: () => Promise<McpServer>, port: number, io: CliIo): Promise<number> {
  // One server per MCP session (initialize request), routed by the Mcp-Session-Id header.
  const sessions = new Map<string, { server: McpServer; transport: StreamableHTTPServerTransport }>();
  const http = createServer((request, response) => {
    void (async () => {
      if (!request.url?.startsWith('/mcp')) {
        response.writeHead(404).end();
        return;
      }
      const id = request.headers['mcp-session-id'];
      const known = typeof id === 'string' ? sessions.get(id) : undefined;
      if (known) {
        await known.transport.handleRequest(request, response);
        return;
      }
      if (typeof id === 'string') {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"unknown MCP session; initialize again"}');
        return;
      }
      const server = await build();
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, { server, transport });
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
        void server.close();
      };
      await server.connect(transport);
      await transport.handleRequest(request, response);
    })().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(error instanceof Error ? error.message : String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  const address = http.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  io.stderr.write(`opsgate mcp-server: listening on http://127.0.0.1:${bound}/mcp\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  http.close();
  for (const { server } of sessions.values()) await server.close();
  return 0;
}

/** `opsgate mcp-server <name>`: serve an opsgate MCP server over stdio or streamable HTTP. */
export const mcpServerCommand: CliCommand = {
  name: 'mcp-server',
  summary: 'serve one of the shipped MCP servers (sandbox, helm) over stdio or --http PORT',
  usage,
  async run(args, io) {
    const [name, ...others] = args;
    if (!name || name.startsWith('-')) throw new UsageError(`name the server: ${Object.keys(mcpServers).join(', ')}`);
    const load = mcpServers[name];
    if (!load) throw new UsageError(`there is no MCP server named "${name}"; available: ${Object.keys(mcpServers).join(', ')}`);
    const { port, rest } = takeHttpPort(others);
    const module = await load();
    if (port !== undefined) return serveHttp(() => module.createMcpServer({ args: rest }), port, io);
    const server = await module.createMcpServer({ args: rest });
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
    });
    await server.connect(transport);
    process.stdin.once('end', () => void server.close());
    await closed;
    return 0;
  },
};
