export { loadGatewayConfig, parseGatewayConfig } from './config.ts';
export { Gateway } from './gateway.ts';
export { createGatewayHandler, startGatewayHttp } from './gateway-http.ts';
export { createGatewayMcpServer } from './gateway-mcp-server.ts';
export { toolChangeView } from './tool-change-view.ts';
export { type ChangedTool, ToolDefinitions } from './tool-definitions.ts';
