import type { AnyToolDefinition, ApprovalPreview, RiskAssessment } from './define-tool.ts';

/**
 * The risk of one call: the tool's own `assessRisk` when it has one, else its static `risk` with a
 * generic reason naming the tool's mutability.
 */
export function assessToolRisk(tool: AnyToolDefinition, input: unknown, preview?: ApprovalPreview): RiskAssessment {
  if (tool.assessRisk) return tool.assessRisk(input, preview);
  // Said to approvers: what the step does, in words, not the tool's configuration ("declared risk").
  const kind = tool.mutability === 'mutable' ? 'changes the system' : 'only reads';
  return { level: tool.risk, reason: `${tool.name.replace(/_/g, ' ')} ${kind}` };
}
