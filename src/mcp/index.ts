export { createAgentMcpServer } from './agent-mcp-server.ts';
