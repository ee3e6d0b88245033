import { userActor } from '../../audit/index.ts';
import { PolicyErrors } from '../../policy/index.ts';
import type { Risk } from '../../tools/index.ts';
import { policyCall, requesterOf } from '../approval-policy.ts';
import type { ApprovalInterrupt } from '../types.ts';
import type { ApprovalDecisionContext } from './decision-context.ts';

/** `approved`: the call may go on. `waiting`: this approval was recorded and the call waits for another person. */
export type ApproverCheck = { readonly kind: 'approved' } | { readonly kind: 'waiting'; readonly interrupt: ApprovalInterrupt };

/**
 * Separation of duties: asks the policy whether this person may approve (or edit) the pending call.
 * `kind` is the decision: an edit is checked like an approval but never counts as one (an edited
 * call that needs two people becomes a new proposal).
 * A refusal is audited (`approval_refused`), stored with the session still waiting, and thrown as
 * `APPROVAL_REFUSED` (403) naming who can approve. When the policy wants more approvers than have
 * approved so far, the approval is recorded (`approval_recorded`) and the call keeps waiting.
 */
export async function authorizeApprover(context: ApprovalDecisionContext, kind: 'approve' | 'modify'): Promise<ApproverCheck> {
  const { session, actor, env, call, interrupt, decidedAt } = context;
  const { id: callId, tool: toolName } = call.row;
  const tool = session.agent.registry.resolve(toolName, session.row.role, session.phase);
  // The risk recorded at the proposal, assessed with its preview (rows touched, a plan).
  const subject = policyCall(session, tool, JSON.parse(call.row.args) as Record<string, unknown>, call.row.risk as Risk);
  const approvalsSoFar = interrupt.approvals ?? [];
  const candidates = await env.approverCandidates();
  const requester = await requesterOf(env, session);
  const [approver] = await env.withTeams([{ username: actor.username, roles: actor.roles }]);
  const verdict = env.policy.mayApprove({
    approver: approver!,
    requester,
    call: subject,
    approvalsSoFar,
    candidates,
    at: env.now(),
  });
  if (!verdict.allowed) {
    env.audit.record(session.uow, {
      sessionId: session.id,
      type: 'approval_refused',
      actor: userActor(actor.username),
      payload: { callId, tool: toolName, policyId: verdict.policyId, reason: verdict.reason, eligibleApprovers: verdict.eligibleApprovers },
    });
    session.save('waiting', decidedAt);
    await session.commit(env.store);
    throw PolicyErrors.APPROVAL_REFUSED({
      approver: actor.username,
      tool: toolName,
      reason: verdict.reason,
      policyId: verdict.policyId,
      eligible:
        verdict.eligibleApprovers.length > 0 ? verdict.eligibleApprovers.join(', ') : 'nobody under the current policy; ask an admin',
      eligibleApprovers: verdict.eligibleApprovers,
    });
  }
  const approvals = [...approvalsSoFar, actor.username];
  if (kind === 'modify' || approvals.length >= (interrupt.requiredApprovals ?? 1)) return { kind: 'approved' };
  const remaining = env.policy.mayApprove({
    approver: requester,
    requester,
    call: subject,
    approvalsSoFar: approvals,
    candidates,
    at: env.now(),
  });
  env.audit.record(session.uow, {
    sessionId: session.id,
    type: 'approval_recorded',
    actor: userActor(actor.username),
    payload: { callId, tool: toolName, policyId: verdict.policyId, approvals, requiredApprovals: interrupt.requiredApprovals },
  });
  env.events.record(session.uow, session.id, 'decision', { callId, decision: 'approve', by: actor.username, approvals, waiting: true });
  return { kind: 'waiting', interrupt: { ...interrupt, approvals, eligibleApprovers: remaining.eligibleApprovers } };
}
