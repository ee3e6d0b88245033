import { userActor } from '../../audit/index.ts';
import { CoreErrors } from '../../errors/index.ts';
import type { CallOutcome } from '../tool-calls.ts';
import type { ApprovalReadiness } from '../types.ts';
import type { DecisionMarks } from './authorize-decision.ts';
import type { ApprovalDecisionContext } from './decision-context.ts';

/**
 * The person asks the agent to plan again because the pending call can no longer run as shown
 * (`readiness` says why). The call is voided — it never runs — and the model gets an error with
 * the stable code `APPROVAL_STALE`, so it proposes the work again against the state as it is now
 * and the person approves the new preview.
 */
export function replanCall(
  context: ApprovalDecisionContext,
  readiness: Extract<ApprovalReadiness, { runnable: false }>,
  marks: DecisionMarks,
): CallOutcome {
  const { session, actor, env, call, decidedAt } = context;
  const { id, tool } = call.row;
  const stale = CoreErrors.APPROVAL_STALE({ detail: readiness.message });
  env.lifecycle.transition(session.uow, call, {
    to: 'expired',
    patch: {
      decided_at: decidedAt,
      error: readiness.message,
      decision: JSON.stringify({ type: 'replan', by: actor.username, reason: readiness.reason, ...marks }),
    },
    audit: {
      type: 'tool_voided',
      actor: userActor(actor.username),
      payload: { callId: id, tool, reason: readiness.reason, message: readiness.message, ...marks },
    },
    live: { type: 'decision', data: { callId: id, decision: 'replan', reason: readiness.message, by: actor.username } },
  });
  return { kind: 'result', isError: true, output: { error: stale.message, code: stale.code, stale: readiness.reason, replan: true } };
}
