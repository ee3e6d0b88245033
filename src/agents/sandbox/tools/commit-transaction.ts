import { z } from 'zod';
import { type AnyToolDefinition, defineTool } from '../../../core/tools/index.ts';
import { WriteOutsideTransactionError } from '../errors.ts';
import { assessCommitRisk } from '../risk.ts';
import { type BridgeFor, lostTransaction, previewOf } from './tool-support.ts';

/** `commit_transaction`: the open transaction, approved against the pending changes shown. */
export function commitTransactionTool(bridgeFor: BridgeFor): AnyToolDefinition {
  return defineTool({
    name: 'commit_transaction',
    description: 'Commit the open transaction of this session. Needs approval; the approval is bound to the pending changes shown.',
    input: z.object({}).strict(),
    mutability: 'mutable',
    risk: 'high',
    assessRisk: (_input, preview) => assessCommitRisk(preview),
    checkRunnable: (_input, context) => lostTransaction(bridgeFor(context)),
    preview: async (_input, context) => {
      const bridge = bridgeFor(context);
      const transaction = bridge.activeTransaction;
      if (!transaction) return { kind: 'sql-changes', summary: 'There is no open transaction to commit.', bindingDigest: 'none' };
      return previewOf(bridge, await transaction.preview());
    },
    execute: async (_input, context) => {
      const bridge = bridgeFor(context);
      const transaction = bridge.activeTransaction;
      if (!transaction) throw new WriteOutsideTransactionError('There is no open transaction to commit.');
      const preview = await transaction.preview();
      // Counted before the commit: afterwards a dropped table's rows are gone, and "1 schema change" hid them.
      const { summary } = await previewOf(bridge, preview);
      await transaction.commit();
      await context.audit('sql_committed', { transactionId: transaction.id, digest: preview.digest, summary });
      return { committed: true, transactionId: transaction.id, summary, digest: preview.digest };
    },
  });
}
