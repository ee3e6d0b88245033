import type { AutoApproveRule } from '../agent/define-agent.ts';
import type { AnyToolDefinition, ValidatorVerdict } from '../tools/index.ts';

export type PolicyDecision =
  | { readonly action: 'run' }
  | { readonly action: 'ask' }
  | { readonly action: 'auto'; readonly rule: string }
  | { readonly action: 'block'; readonly reason: string; readonly verdict?: ValidatorVerdict };

export interface PolicyInput {
  readonly tool: AnyToolDefinition;
  readonly input: unknown;
  /** The validator's verdict on exactly these arguments, when the tool has a validator. */
  readonly verdict?: ValidatorVerdict;
  readonly autoApproveRules: readonly AutoApproveRule[];
  readonly sessionOptions: Readonly<Record<string, unknown>>;
}

/**
 * run | ask | block for one call. A validator's block is final; read-only tools run; mutable
 * tools ask a person unless a named auto-approve rule applies (and the audit names that rule).
 */
export function decidePolicy(input: PolicyInput): PolicyDecision {
  if (input.verdict?.verdict === 'block') return { action: 'block', reason: input.verdict.reason, verdict: input.verdict };
  if (input.tool.mutability === 'read-only') return { action: 'run' };
  for (const rule of input.autoApproveRules) {
    if (rule.applies({ tool: input.tool, input: input.input, sessionOptions: input.sessionOptions }))
      return { action: 'auto', rule: rule.name };
  }
  return { action: 'ask' };
}
