import { userActor } from '../../audit/index.ts';
import type { CallOutcome } from '../tool-calls.ts';
import type { DecisionMarks } from './authorize-decision.ts';
import type { ApprovalDecisionContext } from './decision-context.ts';

/**
 * The person who asked takes the request back while it waits for someone else: the call never
 * runs and the model is told it was withdrawn (not rejected), so it asks what the person wants
 * instead. Only the session's owner may withdraw (the decision authorizer checks it); an approver
 * who disagrees rejects with a reason.
 * It is the lifecycle's `proposed → rejected` change, recorded as `tool_rejected` with
 * `withdrawn: true`, so every reader of the trail already knows it.
 */
export function withdrawCall(context: ApprovalDecisionContext, marks: DecisionMarks): CallOutcome {
  const { session, actor, env, call, decidedAt } = context;
  const { id, tool } = call.row;
  const reason = 'withdrawn by the requester';
  env.lifecycle.transition(session.uow, call, {
    to: 'rejected',
    patch: { decision: JSON.stringify({ type: 'withdraw', by: actor.username, ...marks }), decided_at: decidedAt },
    audit: { type: 'tool_rejected', actor: userActor(actor.username), payload: { callId: id, tool, reason, withdrawn: true, ...marks } },
    live: { type: 'decision', data: { callId: id, decision: 'withdraw', reason, by: actor.username } },
  });
  return {
    kind: 'denied',
    reason: `${actor.username} withdrew this request before anyone decided it. Do not propose it again; ask what they need instead.`,
  };
}
