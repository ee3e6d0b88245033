import { z } from 'zod';
import { type AnyToolDefinition, defineTool } from '../../../core/tools/index.ts';
import type { BridgeFor } from './tool-support.ts';

/** `rollback_transaction`: discards the open transaction. */
export function rollbackTransactionTool(bridgeFor: BridgeFor): AnyToolDefinition {
  return defineTool({
    name: 'rollback_transaction',
    description: 'Discard the open transaction of this session; nothing it changed is kept.',
    input: z.object({}).strict(),
    mutability: 'mutable',
    risk: 'low',
    preview: async () => ({ kind: 'sql-rollback', summary: 'Discard the uncommitted changes.' }),
    execute: async (_input, context) => {
      const transaction = bridgeFor(context).activeTransaction;
      if (!transaction) return { rolledBack: false, reason: 'no open transaction' };
      await transaction.rollback();
      await context.audit('sql_rolled_back', { transactionId: transaction.id });
      return { rolledBack: true, transactionId: transaction.id };
    },
  });
}
