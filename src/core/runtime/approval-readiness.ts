import { approvalStillBinds } from '../policy/index.ts';
import type { AnyToolDefinition } from '../tools/index.ts';
import type { ToolCallEnvironment } from './tool-call-environment.ts';
import type { TrackedCall } from './tool-call-lifecycle.ts';
import { createToolContext } from './tool-context.ts';
import type { ApprovalInterrupt, ApprovalReadiness, StaleApprovalReason } from './types.ts';
import type { WorkingSession } from './working-session.ts';

/**
 * Checks a pending approval the way approving it would, without approving: expiry, the tool still
 * offered, the tool's own `checkRunnable` (state that may be gone after a restart), and the
 * approval binding against a fresh preview. Tool errors (an unreachable backend) propagate.
 */
export async function checkApprovalReadiness(
  env: ToolCallEnvironment,
  session: WorkingSession,
  call: TrackedCall,
  interrupt: ApprovalInterrupt,
): Promise<ApprovalReadiness> {
  const { id: callId, tool: toolName, expires_at: expiresAt } = call.row;
  const stale = (reason: StaleApprovalReason, message: string): ApprovalReadiness => ({ callId, runnable: false, reason, message });
  if (expiresAt !== null && expiresAt <= env.now().toISOString())
    return stale('expired', `This approval request expired at ${new Date(expiresAt).toUTCString()}, so ${toolName} can no longer run.`);
  let tool: AnyToolDefinition;
  try {
    tool = session.agent.registry.resolve(toolName, session.row.role, session.phase);
  } catch {
    return stale(
      'tool-unavailable',
      `${toolName} is no longer offered in this session (the agent or its phase changed since it was proposed).`,
    );
  }
  const input = JSON.parse(call.row.args) as Record<string, unknown>;
  const context = createToolContext(env, session, tool, callId);
  const lost = await tool.checkRunnable?.(input, context);
  if (lost !== undefined) return stale('state-lost', lost);
  const preview = await tool.preview?.(input, context);
  const binds = approvalStillBinds({
    callId,
    tool: toolName,
    args: input,
    ...(preview?.bindingDigest !== undefined ? { bindingDigest: preview.bindingDigest } : {}),
    storedHash: call.row.args_hash,
    shownHash: interrupt.argsHash,
  });
  if (!binds)
    return stale(
      'binding-changed',
      `What ${toolName} would do changed after it was shown${preview ? ` (now: ${preview.summary})` : ''}, so it can no longer run as approved.`,
    );
  return { callId, runnable: true };
}
