import type { AnyToolDefinition } from '../../../core/tools/index.ts';
import type { DbBridge, SandboxSession } from '../bridge/db-bridge.ts';
import { commitTransactionTool } from './commit-transaction.ts';
import { executeQueryTool } from './execute-query.ts';
import { executeWriteTool } from './execute-write.ts';
import { inspectStateTool } from './inspect-state.ts';
import { rollbackTransactionTool } from './rollback-transaction.ts';
import { runProfilerTool } from './run-profiler.ts';
import type { BridgeFor } from './tool-support.ts';

export type { BridgeFor } from './tool-support.ts';

/** The tool names whose calls only touch an uncommitted transaction (auto-approved by a named rule). */
export const STAGING_TOOLS: ReadonlySet<string> = new Set(['execute_write', 'rollback_transaction']);

/** The sandbox agent's tools (one file per tool beside this one). Reads are read-only; every change goes through a transaction a person commits. */
export function sandboxTools(bridgeFor: BridgeFor): AnyToolDefinition[] {
  return [
    executeQueryTool(bridgeFor),
    inspectStateTool(bridgeFor),
    runProfilerTool(bridgeFor),
    executeWriteTool(bridgeFor),
    commitTransactionTool(bridgeFor),
    rollbackTransactionTool(bridgeFor),
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
