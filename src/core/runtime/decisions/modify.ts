import { userActor } from '../../audit/index.ts';
import { approvalHash, decidePolicy } from '../../policy/index.ts';
import { proposalAudit } from '../tool-call-lifecycle.ts';
import type { CallOutcome } from '../tool-calls.ts';
import { createToolContext } from '../tool-context.ts';
import { prepareInput } from '../tool-input.ts';
import type { ApprovalDecisionContext } from './decision-context.ts';

/**
 * The person edits the arguments. The edit is checked like a model's call (schema, identity,
 * validator, policy). Where the tool binds a preview (a plan, a changeset) the edited call is a
 * new proposal that must be approved against its new preview; otherwise the edit is the approval.
 */
export async function modifyCall(context: ApprovalDecisionContext, editedArgs: Readonly<Record<string, unknown>>): Promise<CallOutcome> {
  const { session, actor, env, call, interrupt, decidedAt } = context;
  const original = call.row;
  const by = userActor(actor.username);
  const tool = session.agent.registry.resolve(original.tool, session.row.role, session.phase);
  const input = prepareInput(tool, editedArgs, session);
  const toolContext = createToolContext(env, session, tool, original.id);
  const verdict = tool.validate ? await tool.validate(input, toolContext) : undefined;
  const policy = decidePolicy({ tool, input, verdict, autoApproveRules: [], sessionOptions: session.state.options });
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
        payload: { callId: original.id, tool: original.tool, args: input, reason: policy.reason, stage: 'modify' },
      },
    });
    return { kind: 'result', output: { blocked: true, reason: policy.reason, modifiedArguments: input }, isError: true };
  }
  const preview = await tool.preview?.(input, toolContext);
  const callId = `${original.id}.m${Date.now().toString(36)}`;
  const argsHash = approvalHash(callId, tool.name, input, preview?.bindingDigest);
  const from = JSON.parse(original.args) as unknown;
  env.lifecycle.transition(session.uow, call, {
    to: 'rejected',
    patch: { decision: JSON.stringify({ type: 'modify', replacedBy: callId, by: actor.username }), decided_at: decidedAt },
    audit: {
      type: 'tool_modified',
      actor: by,
      payload: { callId: original.id, newCallId: callId, tool: original.tool, from, to: input, argsHash },
    },
    live: { type: 'decision', data: { callId: original.id, decision: 'modify', by: actor.username } },
  });
  const needsFreshReview = preview?.bindingDigest !== undefined;
  const row = {
    ...original,
    id: callId,
    seq: session.nextToolCallSeq(),
    args: JSON.stringify(input),
    args_hash: argsHash,
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
          { callId, tool: tool.name, args: input, argsHash, risk: tool.risk, verdict, requestedBy: interrupt.requestedBy },
          { modifiedFrom: original.id },
        ),
      },
    );
    // The tool binds more than the arguments: the person must see the new preview and approve it.
    context.recordOutcome(original.id, original.tool, {
      kind: 'denied',
      reason: `The person modified the arguments to ${JSON.stringify(input)}; the new proposal waits for approval.`,
    });
    session.state.pendingCalls.unshift({ callId, toolName: original.tool, input: JSON.stringify(input) });
    return {
      kind: 'interrupt',
      interrupt: {
        ...interrupt,
        id: `approval-${callId}`,
        callId,
        args: input,
        argsHash,
        ...(preview ? { preview } : {}),
        ...(verdict ? { verdict } : {}),
        requestedAt: decidedAt,
      },
    };
  }
  const approved = env.lifecycle.create(
    session,
    { ...row, status: 'approved', approved_by: actor.username, decided_at: decidedAt },
    { audit: { type: 'tool_approved', actor: by, payload: { callId, tool: original.tool, argsHash, approver: actor.username } } },
  );
  session.interrupt = undefined;
  const outcome = await context.processor.execute(session, tool, approved, input, createToolContext(env, session, tool, callId), {
    approvedBy: actor.username,
    argsHash,
  });
  return outcome.kind === 'result' ? { ...outcome, output: { executedWithModifiedArguments: input, result: outcome.output } } : outcome;
}
