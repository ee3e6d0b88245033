import { userActor } from '../../audit/index.ts';
import { CoreErrors } from '../../errors/index.ts';
import { approvalStillBinds } from '../../policy/index.ts';
import type { CallOutcome } from '../tool-calls.ts';
import { createToolContext } from '../tool-context.ts';
import type { ApprovalDecisionContext } from './decision-context.ts';

/**
 * The person approves: the approval must still bind (stored proposal, what the person was shown,
 * and the arguments and preview as they are now all hash alike), then the call runs once.
 */
export async function approveCall(context: ApprovalDecisionContext): Promise<CallOutcome> {
  const { session, actor, env, call, interrupt, decidedAt } = context;
  const { id, tool: toolName } = call.row;
  const tool = session.agent.registry.resolve(toolName, session.row.role, session.phase);
  const input = JSON.parse(call.row.args) as Record<string, unknown>;
  const toolContext = createToolContext(env, session, tool, id);
  const preview = await tool.preview?.(input, toolContext);
  const binds = approvalStillBinds({
    callId: id,
    tool: toolName,
    args: input,
    ...(preview?.bindingDigest !== undefined ? { bindingDigest: preview.bindingDigest } : {}),
    storedHash: call.row.args_hash,
    shownHash: interrupt.argsHash,
  });
  if (!binds) {
    const error = CoreErrors.APPROVAL_BINDING_MISMATCH({ tool: toolName });
    env.lifecycle.transition(session.uow, call, {
      to: 'failed',
      patch: { error: 'approval binding mismatch', decided_at: decidedAt },
      audit: { type: 'tool_failed', actor: userActor(actor.username), payload: { callId: id, tool: toolName, error: error.message } },
    });
    return { kind: 'result', output: { error: error.message, code: error.code }, isError: true };
  }
  env.lifecycle.transition(session.uow, call, {
    to: 'approved',
    patch: { approved_by: actor.username, decided_at: decidedAt, decision: JSON.stringify({ type: 'approve', by: actor.username }) },
    audit: {
      type: 'tool_approved',
      actor: userActor(actor.username),
      payload: { callId: id, tool: toolName, argsHash: call.row.args_hash, approver: actor.username },
    },
    live: { type: 'decision', data: { callId: id, decision: 'approve', by: actor.username } },
  });
  session.interrupt = undefined;
  return context.processor.execute(session, tool, call, input, toolContext, { approvedBy: actor.username, argsHash: call.row.args_hash });
}
