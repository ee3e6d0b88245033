/** The audit event types the core writes. Agents may add their own (`command_executed`, …). */
export const CORE_AUDIT_EVENT_TYPES = [
  'session_started',
  'message_received',
  'tool_proposed',
  'tool_blocked',
  'tool_approved',
  'approval_recorded',
  'approval_refused',
  'tool_auto_approved',
  'tool_rejected',
  'tool_modified',
  'tool_expired',
  /** A pending call voided because it could no longer run as shown; the agent was asked to plan again. */
  'tool_voided',
  'tool_executing',
  'tool_executed',
  'tool_failed',
  'tool_unknown',
  /** A read-only call that ran outside any session (the read fast path): who, which tool, the arguments' digest, the outcome. */
  'tool_read',
  'question_asked',
  'question_answered',
  'phase_changed',
  'warning',
  'feedback',
  'step_limit_reached',
  /** A journal row whose MAC did not verify: written by something other than opsgate; sealed as this instead. */
  'audit_journal_forgery',
] as const;

export type AuditEventType = (typeof CORE_AUDIT_EVENT_TYPES)[number];

export const AUDIT_EVENT_TYPES: ReadonlySet<string> = new Set(CORE_AUDIT_EVENT_TYPES);
