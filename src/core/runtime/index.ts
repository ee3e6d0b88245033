export type { DecidedApproval, PendingApproval } from './approval-inbox.ts';
export { approvalHeadline, approvalNeedsConfirmation, approvalTitle } from './approval-title.ts';
export { decisionFromText } from './chat-decisions.ts';
export { createRuntime } from './create-runtime.ts';
export { HUMAN_INPUT_TOOL, QUESTION_OPTIONS } from './human-input-tool.ts';
export type { AgentInfo, ModelResolver, Runtime, RuntimeOptions, SessionEventFeed } from './runtime-api.ts';
export { SESSION_STATE_VERSION } from './session-state.ts';
export type { SessionUsage } from './session-usage.ts';
export type { TeamDirectory } from './team-directory.ts';
export { ToolContinuation } from './tool-continuation.ts';
export type {
  ApprovalInterrupt,
  ApprovalReadiness,
  ChatMessage,
  ContinueInterrupt,
  Decision,
  DirectRead,
  DirectReadOutcome,
  Interrupt,
  QuestionAnswer,
  QuestionInterrupt,
  SessionEvent,
  SessionSnapshot,
  SessionStatus,
  SessionSummary,
  StaleApprovalReason,
  StartSessionInput,
  ToolCallRecord,
  ToolCallStatus,
  TurnResult,
} from './types.ts';
