import type { AutoApproveRule } from '../agent/define-agent.ts';
import type { AnyToolDefinition, Risk, ValidatorVerdict } from '../tools/index.ts';
import type { CallPolicy, PolicyPrincipal } from './cedar/index.ts';

/** What the runtime does with a call, and the policy (by `@id`) that decided it. */
export type PolicyDecision =
  | { readonly action: 'run'; readonly policyId: string }
  | { readonly action: 'ask'; readonly policyId: string; readonly reason: string; readonly requiredApprovals: number }
  | { readonly action: 'auto'; readonly policyId: string; readonly rule: string }
  | { readonly action: 'block'; readonly policyId: string; readonly reason: string; readonly verdict?: ValidatorVerdict };

export interface PolicyInput {
  readonly policy: CallPolicy;
  readonly user: PolicyPrincipal;
  readonly agent: string;
  readonly tool: AnyToolDefinition;
  readonly input: Readonly<Record<string, unknown>>;
  /** The call's risk. Default: the tool's declared risk. */
  readonly risk?: Risk;
  /** The validator's verdict on exactly these arguments, when the tool has a validator. */
  readonly verdict?: ValidatorVerdict;
  readonly autoApproveRules: readonly AutoApproveRule[];
  readonly sessionOptions: Readonly<Record<string, unknown>>;
  /** The door the call came through (the person's channel for a model's call). */
  readonly channel?: string;
  readonly at: Date;
}

/** Policy id named when a validator, not the Cedar policy, blocked the call. */
export const VALIDATOR_POLICY_ID = 'validator';

/**
 * run | ask | auto | block for one call. A validator's block is final; everything else is the
 * Cedar policy's answer: which calls run at once, which wait for how many people, and which of the
 * agent's auto-approve rules may approve (the audit names both the rule and the policy).
 */
export function decidePolicy(input: PolicyInput): PolicyDecision {
  if (input.verdict?.verdict === 'block')
    return {
      action: 'block',
      policyId: input.verdict.rule ? `${VALIDATOR_POLICY_ID}:${input.verdict.rule}` : VALIDATOR_POLICY_ID,
      reason: input.verdict.reason,
      verdict: input.verdict,
    };
  const candidate = input.autoApproveRules.find((rule) =>
    rule.applies({ tool: input.tool, input: input.input, sessionOptions: input.sessionOptions }),
  );
  const target = input.tool.policyTarget?.(input.input);
  const decision = input.policy.decideCall({
    user: input.user,
    call: {
      tool: input.tool.name,
      agent: input.agent,
      mutable: input.tool.mutability === 'mutable',
      risk: input.risk ?? input.tool.risk,
      args: input.input,
      ...(target ? { target } : {}),
    },
    ...(candidate ? { autoApproveRule: candidate.name } : {}),
    sessionOptions: input.sessionOptions,
    ...(input.channel !== undefined ? { channel: input.channel } : {}),
    at: input.at,
  });
  switch (decision.action) {
    case 'run':
      return { action: 'run', policyId: decision.policyId };
    case 'auto':
      return { action: 'auto', policyId: decision.policyId, rule: decision.rule ?? decision.policyId };
    case 'ask':
      return { action: 'ask', policyId: decision.policyId, reason: decision.reason, requiredApprovals: decision.requiredApprovals };
    case 'block':
      return { action: 'block', policyId: decision.policyId, reason: decision.reason };
  }
}
