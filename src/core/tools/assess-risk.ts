import type { AnyToolDefinition, ApprovalPreview, RiskAssessment } from './define-tool.ts';

/**
 * The risk of one call: the tool's own `assessRisk` when it has one, else its static `risk` with a
 * generic reason naming the tool's mutability.
 */
export function assessToolRisk(tool: AnyToolDefinition, input: unknown, preview?: ApprovalPreview): RiskAssessment {
  if (tool.assessRisk) return tool.assessRisk(input, preview);
  const kind = tool.mutability === 'mutable' ? 'changes state' : 'only reads';
  return { level: tool.risk, reason: `${tool.name} ${kind}; ${tool.risk} is its declared risk` };
}
