import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createSandboxMcpServer } from '../../agents/sandbox/bridge/mcp-server.ts';
import { openSandboxEngine } from '../../agents/sandbox/engines/open-engine.ts';
import { UsageError } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';

export const usage = 'opsgate mcp-server sandbox (--db FILE | --url postgres://…)';

/**
 * Entry point for `opsgate mcp-server sandbox`: parses `--db FILE` or `--url postgres://…` and
 * serves that database. It lives in the CLI because parsing a command line is the interface's
 * job; the agent only knows how to build a server over an engine.
 */
export async function createMcpServer(options: { args: readonly string[] }): Promise<McpServer> {
  const { values } = parseCommandArgs(options.args, { db: { type: 'string' }, url: { type: 'string' } });
  if (!values.db && !values.url) throw new UsageError(`name the database: ${usage}`);
  if (values.db && values.url) throw new UsageError('use either --db or --url, not both');
  const engine = await openSandboxEngine(values.url ? { url: values.url } : { db: values.db! });
  return createSandboxMcpServer(engine);
}
