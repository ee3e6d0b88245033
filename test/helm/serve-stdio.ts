/** Serves the Helm MCP server over stdio (what `opsgate mcp-server helm` does), for the stdio test. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from '../../src/cli/mcp-servers/helm.ts';

const server = await createMcpServer({ args: process.argv.slice(2) });
await server.connect(new StdioServerTransport());
