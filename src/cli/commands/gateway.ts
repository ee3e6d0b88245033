import { resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { openOpsgate } from '../../app/open-opsgate.ts';
import { SYSTEM_ACTOR } from '../../core/audit/index.ts';
import { ResourceTokens } from '../../core/identity/oauth-grants.ts';
import { UserRepository } from '../../core/identity/users.ts';
import { createGatewayMcpServer, startGatewayHttp } from '../../gateway/index.ts';
import { ToolDefinitions } from '../../gateway/tool-definitions.ts';
import { oidcConfigFromEnv } from '../../server/oidc/index.ts';
import { type CliCommand, type CliIo, UsageError } from '../command.ts';
import { parseCommandArgs, parseIntegerOption } from '../parse-args.ts';
import { writeGatewayCheck } from './gateway-check.ts';

const usage = `Usage: opsgate gateway --config FILE [--port 8790] [--host 127.0.0.1]
       opsgate gateway --config FILE --stdio        (OPSGATE_TOKEN names who calls)
       opsgate gateway --config FILE --check        (each tool and how it is treated; exit 1 on problems)
       opsgate gateway --config FILE --accept-tool UPSTREAM/TOOL   (accept a changed tool definition)

Puts opsgate's four eyes in front of the MCP servers FILE declares (see docs/gateway.md).
Clients connect over Streamable HTTP at http://HOST:PORT/mcp with an opsgate API token as bearer
token ("opsgate users token NAME"); the person behind the token is the requester of every call.
Read-only tools run at once; a state-changing call waits until a person approves it in the web
inbox, "opsgate approvals" or a webhook. Approvers decide through "opsgate serve" started with
OPSGATE_GATEWAY_CONFIG=FILE on the same store (it then serves /mcp too).`;

async function waitForSignal(): Promise<void> {
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}

async function run(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs(args, {
    config: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    stdio: { type: 'boolean' },
    check: { type: 'boolean' },
    'accept-tool': { type: 'string' },
  });
  if (!values.config) throw new UsageError('--config FILE is required: the upstream MCP servers to guard (see docs/gateway.md)');
  const port = parseIntegerOption('port', values.port, 8790, 0, 65535);
  const env = { ...io.env, OPSGATE_GATEWAY_CONFIG: resolve(values.config) };
  const opsgate = await openOpsgate({ env, agentNames: [] });
  try {
    const gateway = opsgate.gateway!;
    if (values.check) return writeGatewayCheck(gateway, await new ToolDefinitions(opsgate.store).changed(), io.stdout) === 0 ? 0 : 1;
    if (values['accept-tool'] !== undefined) {
      const [upstream, tool, extra] = values['accept-tool'].split('/');
      if (!upstream || !tool || extra !== undefined) throw new UsageError('--accept-tool takes UPSTREAM/TOOL, e.g. files/write_file');
      const by = `cli (os user ${io.env.USER ?? 'unknown'})`;
      const change = await new ToolDefinitions(opsgate.store).accept(upstream, tool, { actor: SYSTEM_ACTOR, username: by, via: 'cli' });
      io.stdout.write(`accepted the new definition of ${upstream}/${tool}: ${JSON.stringify(change.changed)}\n`);
      return 0;
    }
    const users = new UserRepository(opsgate.store);
    if (values.stdio) {
      const identity = io.env.OPSGATE_TOKEN ? (await users.authenticateToken(io.env.OPSGATE_TOKEN))?.identity : undefined;
      if (!identity)
        throw new UsageError('set OPSGATE_TOKEN to an opsgate API token ("opsgate users token NAME"): calls act for its owner');
      const server = createGatewayMcpServer(gateway, identity);
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((done) => {
        transport.onclose = () => done();
      });
      await server.connect(transport);
      io.stderr.write(`opsgate gateway: serving ${gateway.upstreams.size} upstream(s) to ${identity.username} over stdio\n`);
      process.stdin.once('end', () => void server.close());
      await closed;
      return 0;
    }
    const oidc = oidcConfigFromEnv(io.env);
    const host = await startGatewayHttp(
      gateway,
      ResourceTokens.forStore(opsgate.store, users),
      { port, host: values.host ?? '127.0.0.1' },
      oidc ? { authorizationServers: [oidc.issuer] } : undefined,
    );
    io.stderr.write(`opsgate gateway: listening on ${host.url}\n`);
    for (const status of gateway.status())
      io.stderr.write(`  ${status.name}: ${status.state}, ${status.tools} tools (${status.transport})\n`);
    await waitForSignal();
    await host.close();
    return 0;
  } finally {
    await opsgate.close();
  }
}

/** `opsgate gateway`: approvals, policy, exactly-once and audit in front of any MCP server. */
export const gatewayCommand: CliCommand = {
  name: 'gateway',
  summary: 'guard any MCP server: clients connect here, state changes wait for a person (Streamable HTTP or --stdio)',
  usage,
  run,
};
