import { userActor } from '../../audit/index.ts';
import { approvalHash, decidePolicy } from '../../policy/index.ts';
import { assessToolRisk } from '../../tools/index.ts';
import { policySubject } from '../approval-policy.ts';
import { proposalAudit } from '../tool-call-lifecycle.ts';
import type { CallOutcome } from '../tool-calls.ts';
import { createToolContext } from '../tool-context.ts';
import { prepareInput } from '../tool-input.ts';
import { authorizeDecision, decisionMarks } from './authorize-decision.ts';
import type { ApprovalDecisionContext } from './decision-context.ts';

/**
 * The person edits the arguments. The edit is checked like a model's call (schema, identity,
 * validator, policy), then the one decision authorizer asks whether this person may approve the
 * call *as edited*, with its new risk. Only then is the edit the approval. An edit its author may
 * not approve, one that needs two people, and one of a tool that binds a preview (a plan, a
 * changeset) become a new proposal that waits for an eligible approver against its own preview.
 */
export async function modifyCall(context: ApprovalDecisionContext, editedArgs: Readonly<Record<string, unknown>>): Promise<CallOutcome> {
  const { session, actor, env, call, interrupt, decidedAt } = context;
  const original = call.row;
  const by = userActor(actor.username);
  const tool = session.agent.registry.resolve(original.tool, session.row.role, session.phase);
  const input = prepareInput(tool, editedArgs, session);
  const toolContext = createToolContext(env, session, tool, original.id);
  const verdict = tool.validate ? await tool.validate(input, toolContext) : undefined;
  const policy = decidePolicy({
    ...(await policySubject(env, session)),
    tool,
    input,
    risk: assessToolRisk(tool, input).level,
    verdict,
    autoApproveRules: [],
    sessionOptions: session.state.options,
  });
  if (policy.action === 'block') {
    env.lifecycle.transition(session.uow, call, {
      to: 'blocked',
      patch: {
        decision: JSON.stringify({ type: 'modify', args: input, by: actor.username }),
        verdict: verdict ? JSON.stringify(verdict) : null,
        decided_at: decidedAt,
      },
      audit: {
        type: 'tool_blocked',
        actor: by,
        payload: { callId: original.id, tool: original.tool, args: input, reason: policy.reason, stage: 'modify', ...decisionMarks(actor) },
      },
    });
    return { kind: 'result', output: { blocked: true, reason: policy.reason, modifiedArguments: input }, isError: true };
  }
  const preview = await tool.preview?.(input, toolContext);
  const callId = `${original.id}.m${Date.now().toString(36)}`;
  const argsHash = approvalHash(callId, tool.name, input, preview?.bindingDigest);
  // The edited arguments carry their own risk (a larger amount, a production target).
  const risk = assessToolRisk(tool, input, preview);
  const requiredApprovals = policy.action === 'ask' ? policy.requiredApprovals : 1;
  const authorization = await authorizeDecision({
    kind: 'modify',
    context,
    edited: { tool, args: input, risk: risk.level, requiredApprovals },
  });
  const marks = authorization.marks;
  // The edit is the approval only where its author may approve the edited call alone and the tool binds nothing more.
  const needsFreshReview = preview?.bindingDigest !== undefined || authorization.kind !== 'allowed';
  const from = JSON.parse(original.args) as unknown;
  env.lifecycle.transition(session.uow, call, {
    to: 'rejected',
    patch: { decision: JSON.stringify({ type: 'modify', replacedBy: callId, by: actor.username }), decided_at: decidedAt },
    audit: {
      type: 'tool_modified',
      actor: by,
      payload: {
        callId: original.id,
        newCallId: callId,
        tool: original.tool,
        from,
        to: input,
        argsHash,
        risk: risk.level,
        approvedByEdit: !needsFreshReview,
        ...(authorization.kind === 'fresh-proposal'
          ? { policyId: authorization.verdict.policyId, refusal: authorization.verdict.reason }
          : {}),
        ...marks,
      },
    },
    live: { type: 'decision', data: { callId: original.id, decision: 'modify', by: actor.username } },
  });
  const row = {
    ...original,
    id: callId,
    seq: session.nextToolCallSeq(),
    args: JSON.stringify(input),
    args_hash: argsHash,
    risk: risk.level,
    preview: preview ? JSON.stringify(preview) : null,
    verdict: verdict ? JSON.stringify(verdict) : null,
    decision: null,
    created_at: decidedAt,
  };
  if (needsFreshReview) {
    env.lifecycle.create(
      session,
      { ...row, status: 'proposed', approved_by: null, decided_at: null },
      {
        audit: proposalAudit(
          by,
          { callId, tool: tool.name, args: input, argsHash, risk: risk.level, verdict, requestedBy: interrupt.requestedBy },
          {
            riskReason: risk.reason,
            modifiedFrom: original.id,
            ...(policy.action === 'ask' ? { policyId: policy.policyId, requiredApprovals: policy.requiredApprovals } : {}),
          },
        ),
      },
    );
    // The authorizer already asked who may approve the edited call.
    const approvers =
      authorization.kind === 'fresh-proposal'
        ? authorization.verdict.eligibleApprovers
        : authorization.kind === 'allowed'
          ? (authorization.eligibleApprovers ?? [])
          : [];
    context.recordOutcome(original.id, original.tool, {
      kind: 'denied',
      reason: `${actor.username} modified the arguments to ${JSON.stringify(input)}; the new proposal waits for approval by ${approvers.join(', ') || 'someone the policy allows'}.`,
    });
    session.state.pendingCalls.unshift({ callId, toolName: original.tool, input: JSON.stringify(input) });
    // What the agent said, previewed and validated was about the old arguments: none of it describes the edit.
    const { text: _oldText, preview: _oldPreview, verdict: _oldVerdict, ...kept } = interrupt;
    return {
      kind: 'interrupt',
      interrupt: {
        ...kept,
        text: `${actor.username} edited this request (was ${JSON.stringify(from)}); the edited call waits for approval.`,
        id: `approval-${callId}`,
        callId,
        args: input,
        argsHash,
        risk: risk.level,
        riskReason: risk.reason,
        ...(preview ? { preview } : {}),
        ...(verdict ? { verdict } : {}),
        ...(policy.action === 'ask' ? { policyId: policy.policyId, requiredApprovals: policy.requiredApprovals } : {}),
        approvals: [],
        eligibleApprovers: approvers,
        requestedAt: decidedAt,
      },
    };
  }
  const approved = env.lifecycle.create(
    session,
    { ...row, status: 'approved', approved_by: actor.username, decided_at: decidedAt },
    {
      audit: {
        type: 'tool_approved',
        actor: by,
        payload: { callId, tool: original.tool, argsHash, approver: actor.username, policyId: authorization.policyId, ...marks },
      },
    },
  );
  session.interrupt = undefined;
  const outcome = await context.processor.execute(session, tool, approved, input, createToolContext(env, session, tool, callId), {
    approvedBy: actor.username,
    argsHash,
  });
  return outcome.kind === 'result' ? { ...outcome, output: { executedWithModifiedArguments: input, result: outcome.output } } : outcome;
}
