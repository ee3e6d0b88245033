import { z } from 'zod';
import { type AnyToolDefinition, defineTool } from '../../../core/tools/index.ts';
import { type BridgeFor, param } from './tool-support.ts';

/** `execute_query`: a read-only statement. */
export function executeQueryTool(bridgeFor: BridgeFor): AnyToolDefinition {
  return defineTool({
    name: 'execute_query',
    description: 'Run one read-only SQL statement (SELECT, WITH …). A statement that writes is refused: use execute_write for changes.',
    input: z.object({ sql: z.string().min(1).max(100_000), params: z.array(param).max(1000).optional() }).strict(),
    mutability: 'read-only',
    execute: async (input, context) => bridgeFor(context).query(input.sql, input.params ?? []),
  });
}
