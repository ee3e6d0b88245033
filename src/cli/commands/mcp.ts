import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { openOpsgate } from '../../app/open-opsgate.ts';
import { UserRepository } from '../../core/identity/users.ts';
import { createAgentMcpServer } from '../../mcp/index.ts';
import { type CliCommand, UsageError } from '../command.ts';
import { parseCommandArgs, parseIntegerOption } from '../parse-args.ts';

const usage = `Usage: opsgate mcp --agent NAME --user NAME [--approval-wait SECONDS]

Serves one agent's guarded tools to an MCP client over stdio (e.g. a desktop assistant's
"command": "opsgate", "args": ["mcp", "--agent", "access", "--user", "john_doe"]).
Read-only tools run at once. A state-changing call waits for a person: the client is asked to
approve through MCP elicitation when it supports it; otherwise the call waits for a decision in
the web approval panel (opsgate serve) for --approval-wait seconds (default 600).
Every call is bound to --user (an existing opsgate user), audited, and shown in the web UI as a
session of that user.`;

export const mcpCommand: CliCommand = {
  name: 'mcp',
  summary: "serve an agent's guarded tools to an MCP client over stdio (approvals by elicitation or the web panel)",
  usage,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { agent: { type: 'string' }, user: { type: 'string' }, 'approval-wait': { type: 'string' } });
    if (!values.agent) throw new UsageError('--agent NAME is required');
    if (!values.user) throw new UsageError('--user NAME is required: MCP calls act for an existing opsgate user');
    const approvalWaitMs = parseIntegerOption('approval-wait', values['approval-wait'], 600, 1, 86_400) * 1000;
    const opsgate = await openOpsgate({ env: io.env, agentNames: [values.agent] });
    try {
      if (opsgate.runtime.agents().length === 0) throw new UsageError(`unknown agent "${values.agent}"`);
      const user = await new UserRepository(opsgate.store).findByName(values.user);
      if (!user) throw new UsageError(`no user named "${values.user}"; create one with "opsgate users add ${values.user}"`);
      const server = await createAgentMcpServer({
        runtime: opsgate.runtime,
        agent: values.agent,
        identity: { userId: user.id, username: user.username, roles: user.roles },
        approvalWaitMs,
      });
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => {
        transport.onclose = () => resolve();
      });
      await server.connect(transport);
      io.stderr.write(`opsgate mcp: serving the ${values.agent} agent for ${user.username} over stdio\n`);
      process.stdin.once('end', () => void server.close());
      await closed;
      return 0;
    } finally {
      await opsgate.close();
    }
  },
};
