import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * Offers only the read-only tools of `inner` (those it annotates `readOnlyHint: true`). Used where
 * no approval gate stands between a client and the server: a state-changing tool that is not
 * offered cannot be called, whatever the client sends. Closing the view closes `inner`.
 */
export async function readOnlyView(inner: McpServer, name: string): Promise<McpServer> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await inner.connect(serverSide);
  const client = new Client({ name: `${name}-read-only-view`, version: '0.1.0' });
  await client.connect(clientSide);
  const readOnly: Tool[] = (await client.listTools()).tools.filter((tool) => tool.annotations?.readOnlyHint === true);
  const view = new McpServer(
    { name: `${name} (read-only over HTTP)`, version: '0.1.0' },
    {
      capabilities: { tools: {} },
      instructions: `Only the read-only tools of ${name} are offered over HTTP; state changes go through opsgate's agents, where a person approves them.`,
    },
  );
  view.server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: readOnly }));
  view.server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    if (!readOnly.some((tool) => tool.name === request.params.name)) {
      return {
        isError: true,
        content: [
          {
            type: 'text',
            text: `"${request.params.name}" is not offered over HTTP: only read-only tools are. Make state changes through "opsgate chat" or the web UI, where a person approves them.`,
          },
        ],
      };
    }
    return (await client.callTool({ name: request.params.name, arguments: request.params.arguments ?? {} })) as CallToolResult;
  });
  view.server.onclose = () => {
    void client.close();
  };
  return view;
}
