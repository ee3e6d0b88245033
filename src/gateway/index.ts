export { type GatewayConfig, loadGatewayConfig, parseGatewayConfig, type UpstreamConfig } from './config.ts';
export { Gateway } from './gateway.ts';
export { GatewayErrors } from './gateway-errors.ts';
export { createGatewayHandler, startGatewayHttp } from './gateway-http.ts';
export { COLLECT_TOOL, createGatewayMcpServer, NAMESPACE_SEPARATOR } from './gateway-mcp-server.ts';
export { type ToolChangeView, toolChangeView } from './tool-change-view.ts';
export { type ChangedTool, ToolDefinitions } from './tool-definitions.ts';
export type { UpstreamStatus } from './upstream.ts';
export { upstreamAgentName } from './upstream-agent.ts';
