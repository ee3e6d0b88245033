export { type AgentMcpServerOptions, createAgentMcpServer } from './agent-mcp-server.ts';
