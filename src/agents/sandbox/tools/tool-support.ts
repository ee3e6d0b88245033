import { z } from 'zod';
import type { ToolContext } from '../../../core/tools/index.ts';
import type { DbBridge } from '../bridge/db-bridge.ts';
import type { ChangePreview } from '../engines/engine.ts';
import { changeImpact, commitHeadline, impactSummary } from '../risk.ts';

/** What the tool files share: the bridge of a session, the SQL parameter shape, the commit preview. */

export const param = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** Gives each opsgate session its own bridge (its own sandbox session) over one shared channel. */
export type BridgeFor = (context: ToolContext) => DbBridge;

/** The commit preview: the engine's pending change plus its impact counted against the committed state. */
export async function previewOf(bridge: DbBridge, preview: ChangePreview) {
  const impact = changeImpact(preview, preview.schema.length > 0 ? await bridge.tables() : []);
  return {
    kind: 'sql-changes',
    summary: impactSummary(impact),
    headline: commitHeadline(preview, impact),
    details: { ...preview, impact },
    bindingDigest: preview.digest,
  };
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
