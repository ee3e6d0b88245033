import { z } from 'zod';
import { type AnyToolDefinition, defineTool } from '../../../core/tools/index.ts';
import { dispatchWriteCall } from '../bridge/orchestrator.ts';
import { assessStagingRisk } from '../risk.ts';
import { type BridgeFor, param } from './tool-support.ts';

/** `execute_write`: one statement staged in the session's transaction (auto-approved by the staging rule). */
export function executeWriteTool(bridgeFor: BridgeFor): AnyToolDefinition {
  return defineTool({
    name: 'execute_write',
    description:
      "Run one statement that changes the database inside this session's transaction (opened if needed). Nothing is saved until commit_transaction is approved; returns the pending changes.",
    input: z.object({ sql: z.string().min(1).max(100_000), params: z.array(param).max(1000).optional() }).strict(),
    mutability: 'mutable',
    risk: 'low',
    assessRisk: (input) => assessStagingRisk(input.sql),
    preview: async (input) => ({ kind: 'sql-statement', summary: `Stage in a transaction (not committed): ${input.sql}` }),
    execute: async (input, context) => {
      const bridge = bridgeFor(context);
      const open = bridge.activeTransaction;
      const { value, transaction } = await dispatchWriteCall(
        bridge,
        async (handle) => ({ result: await handle.execute(input.sql, input.params ?? []), preview: await handle.preview() }),
        { logger: context.logger, ...(open ? { transaction: open } : {}) },
      );
      await context.audit('sql_staged', { transactionId: transaction.id, sql: input.sql, changes: value.result.changes ?? 0 });
      return { transactionId: transaction.id, changes: value.result.changes ?? 0, rows: value.result.rows, preview: value.preview };
    },
  });
}
