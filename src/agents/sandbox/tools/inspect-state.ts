import { z } from 'zod';
import { type AnyToolDefinition, defineTool } from '../../../core/tools/index.ts';
import type { BridgeFor } from './tool-support.ts';

/** `inspect_state`: tables and columns. */
export function inspectStateTool(bridgeFor: BridgeFor): AnyToolDefinition {
  return defineTool({
    name: 'inspect_state',
    description: 'List the tables (what: "tables") or the columns of one table (what: "describe", table).',
    input: z.object({ what: z.enum(['tables', 'describe']), table: z.string().max(200).optional() }).strict(),
    mutability: 'read-only',
    execute: async (input, context) => {
      const bridge = bridgeFor(context);
      if (input.what === 'tables') return { tables: await bridge.tables() };
      return { table: input.table, columns: await bridge.describe(input.table ?? '') };
    },
  });
}
