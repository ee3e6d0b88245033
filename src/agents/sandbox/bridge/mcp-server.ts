import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { OpsgateError } from '../../../core/errors/index.ts';
import type { SandboxEngine } from '../engines/engine.ts';
import { callSandbox, executeQueryInput, inspectStateInput, runProfilerInput } from './sandbox-calls.ts';

/** Turns an error into the JSON a client rebuilds a typed error from. */
export function errorPayload(error: unknown): { code: string; message: string; fields: Record<string, unknown> } {
  if (OpsgateError.isInstance(error)) return { code: error.code, message: error.message, fields: { ...error.fields } };
  if (error instanceof Error && error.name === 'ZodError') return { code: 'INVALID_TOOL_INPUT', message: error.message, fields: {} };
  return { code: 'SANDBOX_ERROR', message: error instanceof Error ? error.message : String(error), fields: {} };
}

async function answer(engine: SandboxEngine, name: string, args: unknown): Promise<CallToolResult> {
  try {
    const result = await callSandbox(engine, name, args);
    return { content: [{ type: 'text', text: JSON.stringify(result) }] };
  } catch (error) {
    return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: errorPayload(error) }) }] };
  }
}

/** The sandbox as an MCP server over one engine. Closing the server closes the engine. */
export function createSandboxMcpServer(engine: SandboxEngine): McpServer {
  const server = new McpServer(
    { name: 'opsgate-sandbox', version: '0.1.0' },
    {
      instructions:
        'A guarded SQL sandbox. Reads run on a read-only path; writes run only inside a transaction (execute_query "BEGIN", then statements with transaction_id, then "COMMIT" or "ROLLBACK").',
    },
  );
  server.registerTool(
    'execute_query',
    {
      description: 'Run one SQL statement: a read on the read-only path, or (with transaction_id) a statement inside an open transaction.',
      inputSchema: executeQueryInput,
      annotations: { title: 'Execute SQL', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    (args) => answer(engine, 'execute_query', args),
  );
  server.registerTool(
    'inspect_state',
    {
      description: 'List tables, describe a table, or show the pending changes (rows before/after) of an open transaction.',
      inputSchema: inspectStateInput,
      annotations: { title: 'Inspect state', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) => answer(engine, 'inspect_state', args),
  );
  server.registerTool(
    'run_profiler',
    {
      description: 'Show the query plan of one read statement.',
      inputSchema: runProfilerInput,
      annotations: { title: 'Query plan', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) => answer(engine, 'run_profiler', args),
  );
  const previous = server.server.onclose;
  server.server.onclose = () => {
    previous?.();
    void engine.close();
  };
  return server;
}
