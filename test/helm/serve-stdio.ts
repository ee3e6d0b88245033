/** Serves the Helm MCP server over stdio (what `opsgate mcp-server helm` does), for the stdio test. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from '../../src/agents/helm/mcp-server.ts';

const server = await createMcpServer({ args: process.argv.slice(2) });
await server.connect(new StdioServerTransport());
