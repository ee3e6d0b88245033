import type { ToolCallInvocation, ToolMiddleware } from '../../../core/agent/define-agent.ts';
import { HelmErrors } from '../errors.ts';
import { MUTATING_TOOLS } from '../mcp/tool-catalog.ts';

/**
 * The safety net under gate 2: a call of a mutable tool (by opsgate's own mapping — the tool's
 * declared mutability or the helm operation names) that reaches execution without a recorded
 * approval is refused and never runs, whatever the model or a misconfigured policy did.
 */
export class HelmApprovalHITLMiddleware implements ToolMiddleware {
  readonly name = 'HelmApprovalHITLMiddleware';

  async wrap(call: ToolCallInvocation, next: () => Promise<unknown>): Promise<unknown> {
    const mutable = call.tool.mutability === 'mutable' || call.tool.name in MUTATING_TOOLS;
    if (mutable && (!call.approval?.argsHash || !call.approval.approvedBy)) {
      await call.context.audit('helm_unapproved_call_refused', { tool: call.tool.name, phase: call.context.phase });
      throw HelmErrors.HELM_APPROVAL_REQUIRED({ tool: call.tool.name });
    }
    return next();
  }
}
