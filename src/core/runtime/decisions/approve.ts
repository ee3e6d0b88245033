import { userActor } from '../../audit/index.ts';
import { CoreErrors, type OpsgateError } from '../../errors/index.ts';
import { approvalStillBinds } from '../../policy/index.ts';
import type { CallOutcome } from '../tool-calls.ts';
import { createToolContext } from '../tool-context.ts';
import type { DecisionMarks } from './authorize-decision.ts';
import type { ApprovalDecisionContext } from './decision-context.ts';

/**
 * The person approves: the approval must still bind (stored proposal, what the person was shown,
 * and the arguments and preview as they are now all hash alike), then the call runs once.
 */
export async function approveCall(context: ApprovalDecisionContext, marks: DecisionMarks): Promise<CallOutcome> {
  const { session, actor, env, call, interrupt, decidedAt } = context;
  const { id, tool: toolName } = call.row;
  const tool = session.agent.registry.resolve(toolName, session.row.role, session.phase);
  const input = JSON.parse(call.row.args) as Record<string, unknown>;
  const toolContext = createToolContext(env, session, tool, id);
  // What the call needs may be gone (state that died with a restarted process): say that, in the
  // tool's words, rather than the binding mismatch its preview would cause.
  const lost = await tool.checkRunnable?.(input, toolContext);
  if (lost !== undefined) return failUnbound(context, CoreErrors.APPROVAL_STALE({ detail: lost }), lost);
  const preview = await tool.preview?.(input, toolContext);
  const binds = approvalStillBinds({
    callId: id,
    tool: toolName,
    args: input,
    ...(preview?.bindingDigest !== undefined ? { bindingDigest: preview.bindingDigest } : {}),
    storedHash: call.row.args_hash,
    shownHash: interrupt.argsHash,
  });
  if (!binds) return failUnbound(context, CoreErrors.APPROVAL_BINDING_MISMATCH({ tool: toolName }), 'approval binding mismatch');
  env.lifecycle.transition(session.uow, call, {
    to: 'approved',
    patch: {
      approved_by: actor.username,
      decided_at: decidedAt,
      decision: JSON.stringify({ type: 'approve', by: actor.username, ...marks }),
    },
    audit: {
      type: 'tool_approved',
      actor: userActor(actor.username),
      payload: { callId: id, tool: toolName, argsHash: call.row.args_hash, approver: actor.username, ...marks },
    },
    live: { type: 'decision', data: { callId: id, decision: 'approve', by: actor.username } },
  });
  session.interrupt = undefined;
  return context.processor.execute(session, tool, call, input, toolContext, { approvedBy: actor.username, argsHash: call.row.args_hash });
}

/** The approval does not hold: the call fails without running and the model reads why. */
function failUnbound(context: ApprovalDecisionContext, error: OpsgateError, stored: string): CallOutcome {
  const { session, actor, env, call, decidedAt } = context;
  env.lifecycle.transition(session.uow, call, {
    to: 'failed',
    patch: { error: stored, decided_at: decidedAt },
    audit: {
      type: 'tool_failed',
      actor: userActor(actor.username),
      payload: { callId: call.row.id, tool: call.row.tool, error: error.message },
    },
  });
  return { kind: 'result', output: { error: error.message, code: error.code }, isError: true };
}
