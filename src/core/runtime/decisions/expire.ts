import { userActor } from '../../audit/index.ts';
import { CoreErrors, type OpsgateError } from '../../errors/index.ts';
import type { ApprovalDecisionContext } from './decision-context.ts';

/** Whether the approval request had expired when the person decided. */
export function hasExpired({ call, decidedAt }: ApprovalDecisionContext): boolean {
  // Stryker disable next-line ConditionalExpression: null <= an ISO time is false in JS too; the null check says it plainly
  return call.row.expires_at !== null && call.row.expires_at <= decidedAt;
}

/**
 * An approval that came too late: the call is marked expired and never runs, the rest of the step
 * is dropped, and the session is free again. Returns the error to give the person.
 */
export async function expireCall(context: ApprovalDecisionContext): Promise<OpsgateError> {
  const { session, actor, env, call, decidedAt } = context;
  const { id, tool, expires_at: expiresAt } = call.row;
  env.lifecycle.transition(session.uow, call, {
    to: 'expired',
    patch: { decided_at: decidedAt },
    audit: { type: 'tool_expired', actor: userActor(actor.username), payload: { callId: id, tool, expiresAt } },
  });
  session.interrupt = undefined;
  context.recordOutcome(id, tool, { kind: 'denied', reason: `The approval request expired at ${expiresAt}; the call did not run.` });
  context.dropPendingCalls('not run: an earlier call in the same step expired');
  session.save('idle', decidedAt);
  await session.commit(env.store);
  return CoreErrors.APPROVAL_EXPIRED({ tool, expiresAt: expiresAt ?? decidedAt });
}
