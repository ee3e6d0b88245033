import type { AutoApproveRule, ToolMiddleware } from '../../../core/agent/define-agent.ts';
import type { ValidatorVerdict } from '../../../core/tools/index.ts';
import type { ApprovalInfo } from '../tools/deps.ts';

export const AUTO_APPROVE_RULE = 'agent-mode-auto-approve';

/** A synchronous validator check for the rule (the runtime has already blocked what the validator blocks). */
export type SyncCommandCheck = (command: string, os: 'linux' | 'windows') => ValidatorVerdict;

/**
 * AR-03: a proposed command runs without a person only in Agent Mode with "Auto-approve" checked
 * (`{ agentMode: true, autoApprove: true }`), and only when the validator allows it under both the
 * Linux and the Windows rules. Every auto-approval is audited with this rule's name by the runtime.
 */
export function agentModeAutoApprove(check?: SyncCommandCheck): AutoApproveRule {
  return {
    name: AUTO_APPROVE_RULE,
    applies({ tool, input, sessionOptions }) {
      if (tool.name !== 'suggest_ssh_command') return false;
      if (sessionOptions.agentMode !== true || sessionOptions.autoApprove !== true) return false;
      const command = typeof input === 'object' && input !== null ? (input as { command?: unknown }).command : undefined;
      if (typeof command !== 'string' || command.length === 0) return false;
      if (!check) return true;
      return check(command, 'linux').verdict === 'allow' && check(command, 'windows').verdict === 'allow';
    },
  };
}

/** Remembers who approved each call (person or rule) so `command_history` and the audit can name them. */
export function approvalRecorder(approvals: Map<string, ApprovalInfo>): ToolMiddleware {
  return {
    name: 'troubleshoot-approval-recorder',
    async wrap(call, next) {
      if (call.approval && call.tool.name === 'suggest_ssh_command') {
        approvals.set(call.context.callId, {
          approvedBy: call.approval.approvedBy,
          ...(call.approval.rule ? { rule: call.approval.rule } : {}),
        });
      }
      return next();
    },
  };
}
