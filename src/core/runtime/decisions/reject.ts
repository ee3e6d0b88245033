import { userActor } from '../../audit/index.ts';
import type { CallOutcome } from '../tool-calls.ts';
import type { DecisionMarks } from './authorize-decision.ts';
import type { ApprovalDecisionContext } from './decision-context.ts';

/** The person says no: the call never runs, and the model is told why. */
export function rejectCall(
  { session, actor, env, call, decidedAt }: ApprovalDecisionContext,
  reasonGiven: string | undefined,
  marks: DecisionMarks,
): CallOutcome {
  const reason = reasonGiven?.trim() || 'no reason given';
  const { id, tool } = call.row;
  env.lifecycle.transition(session.uow, call, {
    to: 'rejected',
    patch: { decision: JSON.stringify({ type: 'reject', reason, by: actor.username, ...marks }), decided_at: decidedAt },
    audit: { type: 'tool_rejected', actor: userActor(actor.username), payload: { callId: id, tool, reason, ...marks } },
    live: { type: 'decision', data: { callId: id, decision: 'reject', reason, by: actor.username } },
  });
  // Named: the agent repeats it to people ("alice rejected …"), and "the person" left them guessing who.
  return { kind: 'denied', reason: `${actor.username} rejected this call. Reason: ${reason}` };
}
