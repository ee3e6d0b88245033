import { z } from 'zod';
import { type AnyToolDefinition, defineTool } from '../../../core/tools/index.ts';
import { type BridgeFor, param } from './tool-support.ts';

/** `run_profiler`: the plan of a read. */
export function runProfilerTool(bridgeFor: BridgeFor): AnyToolDefinition {
  return defineTool({
    name: 'run_profiler',
    description: 'Show the query plan (EXPLAIN QUERY PLAN) of one read statement.',
    input: z.object({ sql: z.string().min(1).max(100_000), params: z.array(param).max(1000).optional() }).strict(),
    mutability: 'read-only',
    execute: async (input, context) => bridgeFor(context).explain(input.sql, input.params ?? []),
  });
}
