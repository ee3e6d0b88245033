import { z } from 'zod';
import { type AnyToolDefinition, defineTool, type ToolContext } from '../../core/tools/index.ts';
import { assessCommitRisk, assessStagingRisk, changeImpact, impactSummary } from './change-risk.ts';
import type { DbBridge, SandboxSession } from './db-bridge.ts';
import type { ChangePreview } from './engine.ts';
import { WriteOutsideTransactionError } from './errors.ts';
import { dispatchWriteCall } from './orchestrator.ts';

const param = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** Gives each opsgate session its own bridge (its own sandbox session) over one shared channel. */
export type BridgeFor = (context: ToolContext) => DbBridge;

/** The tool names whose calls only touch an uncommitted transaction (auto-approved by a named rule). */
export const STAGING_TOOLS: ReadonlySet<string> = new Set(['execute_write', 'rollback_transaction']);

/** The commit preview: the engine's pending change plus its impact counted against the committed state. */
async function previewOf(bridge: DbBridge, preview: ChangePreview) {
  const impact = changeImpact(preview, preview.schema.length > 0 ? await bridge.tables() : []);
  return { kind: 'sql-changes', summary: impactSummary(impact), details: { ...preview, impact }, bindingDigest: preview.digest };
}

/**
 * Why a pending commit can no longer run, in words for the person, or undefined when its
 * transaction is still open. An open transaction lives only in the server process that began it,
 * so a process that never began one for this session was started after it: the server restarted.
 */
export function lostTransaction(bridge: DbBridge): string | undefined {
  if (bridge.activeTransaction) return undefined;
  const last = bridge.lastTransaction;
  if (last === undefined)
    return 'This commit can no longer run: the transaction was lost when the server restarted (an open transaction lives only in the server process, and nothing in it was saved).';
  if (last.state === 'committed') return 'This commit can no longer run: its transaction was already committed.';
  return 'This commit can no longer run: its transaction was rolled back before it was committed, so none of its changes were saved.';
}

/** The sandbox agent's tools. Reads are read-only; every change goes through a transaction a person commits. */
export function sandboxTools(bridgeFor: BridgeFor): AnyToolDefinition[] {
  return [
    defineTool({
      name: 'execute_query',
      description: 'Run one read-only SQL statement (SELECT, WITH …). A statement that writes is refused: use execute_write for changes.',
      input: z.object({ sql: z.string().min(1).max(100_000), params: z.array(param).max(1000).optional() }).strict(),
      mutability: 'read-only',
      execute: async (input, context) => bridgeFor(context).query(input.sql, input.params ?? []),
    }),
    defineTool({
      name: 'inspect_state',
      description: 'List the tables (what: "tables") or the columns of one table (what: "describe", table).',
      input: z.object({ what: z.enum(['tables', 'describe']), table: z.string().max(200).optional() }).strict(),
      mutability: 'read-only',
      execute: async (input, context) => {
        const bridge = bridgeFor(context);
        if (input.what === 'tables') return { tables: await bridge.tables() };
        return { table: input.table, columns: await bridge.describe(input.table ?? '') };
      },
    }),
    defineTool({
      name: 'run_profiler',
      description: 'Show the query plan (EXPLAIN QUERY PLAN) of one read statement.',
      input: z.object({ sql: z.string().min(1).max(100_000), params: z.array(param).max(1000).optional() }).strict(),
      mutability: 'read-only',
      execute: async (input, context) => bridgeFor(context).explain(input.sql, input.params ?? []),
    }),
    defineTool({
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
    }),
    defineTool({
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
        const transaction = bridgeFor(context).activeTransaction;
        if (!transaction) throw new WriteOutsideTransactionError('There is no open transaction to commit.');
        const preview = await transaction.preview();
        await transaction.commit();
        await context.audit('sql_committed', { transactionId: transaction.id, digest: preview.digest, summary: preview.summary });
        return { committed: true, transactionId: transaction.id, summary: preview.summary, digest: preview.digest };
      },
    }),
    defineTool({
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
    }),
  ];
}

/** One sandbox session per opsgate session, all over the same MCP channel. */
export function bridgesPerSession(
  channel: SandboxSession['channel'],
  dbPath: string,
  create: (session: SandboxSession, dbPath: string) => DbBridge,
): BridgeFor {
  const bridges = new Map<string, DbBridge>();
  return (context) => {
    let bridge = bridges.get(context.sessionId);
    if (!bridge) {
      bridge = create({ id: context.sessionId, channel }, dbPath);
      bridges.set(context.sessionId, bridge);
    }
    return bridge;
  };
}
