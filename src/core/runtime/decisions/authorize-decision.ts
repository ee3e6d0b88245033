import { userActor } from '../../audit/index.ts';
import { CoreErrors } from '../../errors/index.ts';
import type { Channel, Identity } from '../../identity/index.ts';
import { type ApprovalVerdict, PolicyErrors } from '../../policy/index.ts';
import type { AnyToolDefinition, Risk } from '../../tools/index.ts';
import { policyCall, requesterCredentialIssuers, requesterOf } from '../approval-policy.ts';
import type { ApprovalInterrupt } from '../types.ts';
import type { ApprovalDecisionContext, DecisionContext } from './decision-context.ts';

/** Where a decision came from and with whose credential; stored with every decision's audit event. */
export interface DecisionMarks {
  readonly channel: Channel;
  readonly credentialIssuedBy?: string;
}

/** The call as it will run if this decision lets it: the stored proposal, or the edited arguments with their own risk. */
interface CallAsItWillRun {
  readonly tool: AnyToolDefinition;
  readonly args: Readonly<Record<string, unknown>>;
  readonly risk: Risk;
  /** People the policy wants for this call (1, or 2 for a second approver). */
  readonly requiredApprovals: number;
}

export type DecisionRequest =
  | { readonly kind: 'approve'; readonly context: ApprovalDecisionContext }
  | { readonly kind: 'modify'; readonly context: ApprovalDecisionContext; readonly edited: CallAsItWillRun }
  | { readonly kind: 'withdraw'; readonly context: ApprovalDecisionContext }
  | { readonly kind: 'reject' | 'replan' | 'answer' | 'continue'; readonly context: DecisionContext };

export type DecisionAuthorization =
  /** The decision takes effect now; for approve and modify, the call may run with this person as its approver. */
  | {
      readonly kind: 'allowed';
      readonly marks: DecisionMarks;
      readonly policyId?: string;
      /** Modify: who the policy lets approve the edited call (asked with the same question). */
      readonly eligibleApprovers?: readonly string[];
    }
  /** Approve: this approval was recorded, and the call waits for another person. */
  | { readonly kind: 'waiting'; readonly marks: DecisionMarks; readonly interrupt: ApprovalInterrupt }
  /** Modify: this person may not approve the edited call, so the edit becomes a new proposal for someone who may. */
  | { readonly kind: 'fresh-proposal'; readonly marks: DecisionMarks; readonly verdict: ApprovalVerdict };

export function decisionMarks(actor: Identity): DecisionMarks {
  return { channel: actor.channel ?? 'rest', ...(actor.credentialIssuedBy ? { credentialIssuedBy: actor.credentialIssuedBy } : {}) };
}

/**
 * The one door every decision goes through, whatever interface it came from (web, REST, CLI, chat,
 * MCP elicitation, Slack, the gateway). It asks the policy about the call *as it will run*: the
 * stored proposal for an approval, the edited arguments with their new risk for a modification.
 * The channel and the credential's issuer are part of the question, so a policy can weigh them.
 *
 * - approve: a refusal is audited (`approval_refused`), stored with the session still waiting, and
 *   thrown as `APPROVAL_REFUSED` naming who can approve; short of the approvals the policy wants,
 *   the approval is recorded (`approval_recorded`) and the call keeps waiting.
 * - modify: an edit its author may not approve, or that needs two people, is never an execution:
 *   it becomes a fresh proposal for an eligible approver.
 * - withdraw: only the person who asked takes a request back.
 * - reject, replan, answer, continue: anyone who may act on the session may stop or answer; the
 *   door is still recorded.
 */
export async function authorizeDecision(request: DecisionRequest): Promise<DecisionAuthorization> {
  const marks = decisionMarks(request.context.actor);
  switch (request.kind) {
    case 'approve':
      return authorizeApproval(request.context, marks);
    case 'modify': {
      const { context, edited } = request;
      // Stryker disable next-line ArrayDeclaration: an edit has no approvals yet; a made-up name in the list changes no verdict (no approver is called that)
      const verdict = await askMayApprove(context, edited, []);
      if (!verdict.allowed || edited.requiredApprovals > 1) return { kind: 'fresh-proposal', marks, verdict };
      return { kind: 'allowed', marks, policyId: verdict.policyId, eligibleApprovers: verdict.eligibleApprovers };
    }
    case 'withdraw': {
      const { session, actor, interrupt } = request.context;
      if (session.row.user_id !== actor.userId)
        throw CoreErrors.DECISION_INVALID({
          detail: `Only ${interrupt.requestedBy}, who asked for this, can withdraw it. An approver rejects it instead, with a reason.`,
        });
      // Stryker disable next-line StringLiteral: the callers of withdraw read only the marks
      return { kind: 'allowed', marks };
    }
    default:
      // Stryker disable next-line StringLiteral: the callers of reject, replan, answer and continue read only the marks
      return { kind: 'allowed', marks };
  }
}

async function askMayApprove(
  context: ApprovalDecisionContext,
  call: Pick<CallAsItWillRun, 'tool' | 'args' | 'risk'>,
  approvalsSoFar: readonly string[],
  approverOverride?: Identity,
): Promise<ApprovalVerdict> {
  const { session, env } = context;
  const actor = approverOverride ?? context.actor;
  const candidates = await env.approverCandidates();
  const requester = await requesterOf(env, session);
  const [approver] = await env.withTeams([{ username: actor.username, roles: actor.roles }]);
  return env.policy.mayApprove({
    approver: approver!,
    requester,
    call: policyCall(session, call.tool, call.args, call.risk),
    approvalsSoFar,
    candidates,
    channel: actor.channel ?? 'rest',
    credentialIssuedBy: actor.credentialIssuedBy ?? '',
    requesterCredentialIssuers: requesterCredentialIssuers(session),
    at: env.now(),
  });
}

async function authorizeApproval(context: ApprovalDecisionContext, marks: DecisionMarks): Promise<DecisionAuthorization> {
  const { session, actor, env, call, interrupt, decidedAt } = context;
  const { id: callId, tool: toolName } = call.row;
  const tool = session.agent.registry.resolve(toolName, session.row.role, session.phase);
  // The call as it will run: the stored arguments, with the risk recorded at the proposal (assessed with its preview).
  const asItWillRun = { tool, args: JSON.parse(call.row.args) as Record<string, unknown>, risk: call.row.risk as Risk };
  // Stryker disable next-line ArrayDeclaration: tool-calls.ts writes approvals and requiredApprovals together, so an interrupt without the list needs one approval and a made-up entry changes nothing
  const approvalsSoFar = interrupt.approvals ?? [];
  const verdict = await askMayApprove(context, asItWillRun, approvalsSoFar);
  if (!verdict.allowed) {
    env.audit.record(session.uow, {
      sessionId: session.id,
      type: 'approval_refused',
      actor: userActor(actor.username),
      payload: {
        callId,
        tool: toolName,
        policyId: verdict.policyId,
        reason: verdict.reason,
        eligibleApprovers: verdict.eligibleApprovers,
        ...marks,
      },
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
  // Stryker disable next-line StringLiteral: the approve path tells only 'waiting' apart from the rest
  if (approvals.length >= (interrupt.requiredApprovals ?? 1)) return { kind: 'allowed', marks, policyId: verdict.policyId };
  const requester = session.identity;
  // Only the eligible approvers of this verdict are read, and those are asked on the candidates' own channel.
  // Stryker disable next-line StringLiteral: the requester's own verdict (the only thing the channel changes) is not read
  const remaining = await askMayApprove(context, asItWillRun, approvals, { ...requester, channel: 'web' });
  env.audit.record(session.uow, {
    sessionId: session.id,
    type: 'approval_recorded',
    actor: userActor(actor.username),
    payload: { callId, tool: toolName, policyId: verdict.policyId, approvals, requiredApprovals: interrupt.requiredApprovals, ...marks },
  });
  env.events.record(session.uow, session.id, 'decision', { callId, decision: 'approve', by: actor.username, approvals, waiting: true });
  return { kind: 'waiting', marks, interrupt: { ...interrupt, approvals, eligibleApprovers: remaining.eligibleApprovers } };
}
