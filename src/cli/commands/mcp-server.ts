import { randomBytes } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { secretsEqual, startMcpHttpHost } from '../../mcp/http-host.ts';
import { readOnlyView } from '../../mcp/read-only-view.ts';
import { type CliCommand, type CliIo, UsageError } from '../command.ts';
import { parseIntegerOption } from '../parse-args.ts';

/** A module that builds one agent's MCP server from its own arguments. */
export interface McpServerModule {
  createMcpServer(options: { args: readonly string[] }): Promise<McpServer>;
}

/** The MCP servers opsgate ships, by name; each is loaded only when asked for. */
export const mcpServers: Readonly<Record<string, () => Promise<McpServerModule>>> = {
  sandbox: () => import('../mcp-servers/sandbox.ts'),
  helm: () => import('../mcp-servers/helm.ts'),
};

const usage = `Usage: opsgate mcp-server <name> [--http PORT] [server options]

Serves one of opsgate's MCP servers over stdio (default) or streamable HTTP on 127.0.0.1:PORT (path /mcp).
Over HTTP only the read-only tools are offered (no approval gate stands in front of this server;
state changes go through opsgate's agents), every request needs "Authorization: Bearer TOKEN"
(OPSGATE_MCP_SERVER_TOKEN, else a random token printed at start) and a loopback Host header.

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

/** The bearer token HTTP clients must send: `OPSGATE_MCP_SERVER_TOKEN`, else a fresh random one printed at start. */
function serverToken(env: Readonly<Record<string, string | undefined>>): { token: string; generated: boolean } {
  const configured = env.OPSGATE_MCP_SERVER_TOKEN?.trim();
  if (configured) {
    if (configured.length < 24) throw new UsageError('OPSGATE_MCP_SERVER_TOKEN must be at least 24 characters');
    return { token: configured, generated: false };
  }
  return { token: randomBytes(32).toString('base64url'), generated: true };
}

async function serveHttp(name: string, build: () => Promise<McpServer>, port: number, io: CliIo): Promise<number> {
  const { token, generated } = serverToken(io.env);
  const host = await startMcpHttpHost(
    {
      authenticate: async (presented) => (secretsEqual(presented, token) ? 'token-holder' : undefined),
      principalKey: (principal) => principal,
      // Over HTTP no approval gate stands in front of the server, so its state-changing tools are not offered.
      build: async () => readOnlyView(await build(), name),
    },
    { port },
  );
  io.stderr.write(`opsgate mcp-server: listening on ${host.url} (read-only tools only; send "Authorization: Bearer TOKEN")\n`);
  if (generated) io.stderr.write(`opsgate mcp-server: token ${token}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await host.close();
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
    if (port !== undefined) return serveHttp(name, () => module.createMcpServer({ args: rest }), port, io);
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
