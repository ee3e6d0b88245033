import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { OpsgateError } from '../../../core/errors/index.ts';
import type { QueryResult, SandboxEngine, SqlParam } from '../engines/engine.ts';
import { errorFromJson, SandboxErrors } from '../errors.ts';
import { errorPayload } from './mcp-server.ts';
import { callSandbox, type SandboxToolName } from './sandbox-calls.ts';

/** How the bridge reaches the sandbox's tools: over MCP, or in process for the fast path. */
export interface SandboxChannel {
  readonly kind: 'mcp' | 'direct';
  call(tool: SandboxToolName, args: Record<string, unknown>): Promise<unknown>;
  /**
   * A read outside any transaction, when the channel can skip re-validating arguments the
   * bridge's own types already guarantee (the in-process path). The engine still guards it.
   */
  readonly read?: (sql: string, params: readonly SqlParam[]) => Promise<QueryResult>;
}

/** The bridge as an MCP client of the sandbox server (any transport: in-memory, stdio, HTTP). */
export function mcpChannel(client: Client): SandboxChannel {
  return {
    kind: 'mcp',
    async call(tool, args) {
      let result: Awaited<ReturnType<Client['callTool']>>;
      try {
        result = await client.callTool({ name: tool, arguments: args });
      } catch (error) {
        throw SandboxErrors.SANDBOX_UNAVAILABLE({ detail: error instanceof Error ? error.message : String(error) }, { cause: error });
      }
      const content = result.content as Array<{ type: string; text?: string }> | undefined;
      const text = content?.find((part) => part.type === 'text')?.text ?? 'null';
      let payload: unknown;
      try {
        payload = JSON.parse(text);
      } catch {
        throw SandboxErrors.SANDBOX_UNAVAILABLE({ detail: text.slice(0, 200) });
      }
      if (result.isError) {
        const error = (payload as { error?: { code: string; message: string; fields?: Record<string, unknown> } }).error;
        throw error ? errorFromJson(error) : SandboxErrors.SANDBOX_UNAVAILABLE({ detail: text.slice(0, 200) });
      }
      return payload;
    },
  };
}

/** The same calls without the MCP hop (no serialisation); for embedding and the benchmark. */
export function directChannel(engine: SandboxEngine): SandboxChannel {
  const asTypedError = (error: unknown): OpsgateError => (OpsgateError.isInstance(error) ? error : errorFromJson(errorPayload(error)));
  return {
    kind: 'direct',
    async call(tool, args) {
      try {
        return await callSandbox(engine, tool, args);
      } catch (error) {
        throw asTypedError(error);
      }
    },
    async read(sql, params) {
      try {
        return await engine.query(sql, params);
      } catch (error) {
        throw asTypedError(error);
      }
    },
  };
}
