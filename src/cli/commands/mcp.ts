import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { openOpsgate } from '../../app/open-opsgate.ts';
import { throughChannel } from '../../core/identity/index.ts';
import { ResourceTokens } from '../../core/identity/oauth-grants.ts';
import { UserRepository } from '../../core/identity/users.ts';
import { LOOPBACK_HOSTNAMES, startMcpHttpHost } from '../../mcp/http-host.ts';
import { createAgentMcpServer } from '../../mcp/index.ts';
import { oidcConfigFromEnv } from '../../server/oidc/index.ts';
import { resolveCliIdentity } from '../cli-identity.ts';
import { type CliCommand, UsageError } from '../command.ts';
import { parseCommandArgs, parseIntegerOption } from '../parse-args.ts';

const usage = `Usage: opsgate mcp --agent NAME [--user NAME] [--approval-wait SECONDS]
       opsgate mcp --agent NAME --http PORT [--host 127.0.0.1] [--allowed-hosts a,b] [--approval-wait SECONDS]

Serves one agent's guarded tools to an MCP client over stdio (e.g. a desktop assistant's
"command": "opsgate", "args": ["mcp", "--agent", "access"], "env": {"OPSGATE_TOKEN": "ogt_…"}:
the token's owner is the requester; without a token, --user NAME acts in local mode, which the
audit names as asserted and which cannot approve another person's call) or over
Streamable HTTP at http://HOST:PORT/mcp. Over HTTP every client sends an opsgate API token
("Authorization: Bearer …", from "opsgate users token NAME"): the person behind the token is the
requester of every call, and only Host names in --allowed-hosts (default loopback) are served.
Read-only tools run at once. A state-changing call waits for a person: the client is asked to
approve through MCP elicitation when it supports it (that answer is the requester's own decision
and counts only where the policy lets the requester decide); otherwise the call waits for a
decision in the web approval panel (opsgate serve) for --approval-wait seconds (default 600).
Every call is audited and shown in the web UI as a session of that user.`;

export const mcpCommand: CliCommand = {
  name: 'mcp',
  summary: "serve an agent's guarded tools to an MCP client over stdio or --http (approvals by elicitation or the web panel)",
  usage,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      agent: { type: 'string' },
      user: { type: 'string' },
      'approval-wait': { type: 'string' },
      http: { type: 'string' },
      host: { type: 'string' },
      'allowed-hosts': { type: 'string' },
    });
    if (!values.agent) throw new UsageError('--agent NAME is required');
    if (values.http !== undefined && values.user)
      throw new UsageError('--user does not go with --http: over HTTP the API token says who calls');
    if (values.http === undefined && !values.user && !io.env.OPSGATE_TOKEN)
      throw new UsageError(
        'set OPSGATE_TOKEN to an API token (or name --user NAME in local mode): MCP calls act for an existing opsgate user',
      );
    const approvalWaitMs = parseIntegerOption('approval-wait', values['approval-wait'], 600, 1, 86_400) * 1000;
    const opsgate = await openOpsgate({ env: io.env, agentNames: [values.agent] });
    try {
      if (!opsgate.runtime.agents().some((a) => a.name === values.agent)) throw new UsageError(`unknown agent "${values.agent}"`);
      const users = new UserRepository(opsgate.store);
      if (values.http !== undefined) {
        const port = parseIntegerOption('http', values.http, 0, 0, 65535);
        const oidc = oidcConfigFromEnv(io.env);
        const tokens = ResourceTokens.forStore(opsgate.store, users);
        const host = await startMcpHttpHost(
          {
            authenticate: async (token, resource) => (await tokens.identify(token, resource))?.identity,
            principalKey: (identity) => String(identity.userId),
            build: (identity) =>
              createAgentMcpServer({
                runtime: opsgate.runtime,
                agent: values.agent!,
                identity: throughChannel(identity, 'mcp'),
                approvalWaitMs,
              }),
            allowedHostnames: values['allowed-hosts'] ? values['allowed-hosts'].split(',').map((h) => h.trim()) : LOOPBACK_HOSTNAMES,
            ...(oidc ? { resource: { authorizationServers: [oidc.issuer] } } : {}),
          },
          { port, host: values.host ?? '127.0.0.1' },
        );
        io.stderr.write(`opsgate mcp: serving the ${values.agent} agent on ${host.url} (bearer opsgate API tokens)\n`);
        await new Promise<void>((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
        await host.close();
        return 0;
      }
      // With OPSGATE_TOKEN the token's owner; otherwise local mode, asserted and named as such in the audit.
      const { identity, mode } = await resolveCliIdentity(io, users, values.user);
      const server = await createAgentMcpServer({
        runtime: opsgate.runtime,
        agent: values.agent,
        identity: throughChannel(identity, 'mcp'),
        approvalWaitMs,
      });
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => {
        transport.onclose = () => resolve();
      });
      await server.connect(transport);
      io.stderr.write(
        `opsgate mcp: serving the ${values.agent} agent for ${identity.username} over stdio${mode === 'local' ? ' (local mode: no OPSGATE_TOKEN)' : ''}\n`,
      );
      process.stdin.once('end', () => void server.close());
      await closed;
      return 0;
    } finally {
      await opsgate.close();
    }
  },
};
