import { defineErrorCodes, OpsgateError } from './opsgate-error.ts';

/** Codes of the core runtime. Messages say what to do next. */
export const CoreErrors = defineErrorCodes({
  BAD_REQUEST: { status: 400, message: '{detail}' },
  INVALID_TOOL_INPUT: { status: 400, message: 'The arguments for {tool} are invalid: {detail}. Fix them and propose the call again.' },
  IDENTITY_MISMATCH: {
    status: 403,
    message:
      'The call names {field}={given}, but this session belongs to {expected}. Tools act only for the signed-in user; drop the field or use your own identity.',
  },
  // Messages name no raw ids (session and call UUIDs): people read them in the UI. The ids stay in `fields`.
  SESSION_NOT_FOUND: {
    status: 404,
    message:
      'This session does not exist (the link may be old, or the data was reset). Open your sessions list and pick one, or start a new session.',
  },
  SESSION_FORBIDDEN: {
    status: 403,
    message: 'This session belongs to another person, so you cannot see or act on it. Ask its owner, or an approver, to act on it.',
  },
  SESSION_BUSY: {
    status: 409,
    message: 'This session is waiting for a decision on {interrupt}. Answer it before sending a new message.',
  },
  NO_PENDING_INTERRUPT: {
    status: 409,
    message:
      'This session is not waiting for a decision (someone may have decided it already). Reload it to see where it stands, or send a message.',
  },
  DECISION_MISMATCH: {
    status: 409,
    message:
      'This decision is about a request the session no longer waits on (it moved on since the page loaded). Reload the session and decide on what it shows.',
  },
  DECISION_INVALID: { status: 400, message: '{detail}' },
  APPROVAL_EXPIRED: {
    status: 410,
    message: 'The approval request for {tool} expired at {expiresAt}. Ask the agent to propose the call again.',
  },
  APPROVAL_BINDING_MISMATCH: {
    status: 409,
    message: 'The arguments of {tool} changed after they were approved. The call was not run; approve the new arguments explicitly.',
  },
  APPROVAL_STALE: {
    status: 409,
    message: '{detail} Nothing ran. Re-plan: the agent proposes the work again and you approve what it shows then.',
  },
  ROLE_REQUIRED: { status: 403, message: 'This needs the {role} role. Ask an admin to grant it.' },
  CALL_ALREADY_DECIDED: {
    status: 409,
    message:
      'This {tool} call is already {status}, so it cannot run again. Reload to see its outcome; ask the agent again if the work is still needed.',
  },
  CALL_OUTCOME_UNKNOWN: {
    status: 500,
    message:
      '{tool} may have run, but its result could not be recorded ({detail}). It will not be run again: check the system it acts on before asking for it again.',
  },
  UNKNOWN_AGENT: { status: 404, message: 'There is no agent named {agent}. Available agents: {available}.' },
  UNSUPPORTED_VERSION: {
    status: 500,
    message: 'Stored {what} has version {found}; this opsgate reads version {expected}. Upgrade opsgate or migrate the data.',
  },
  STEP_LIMIT_REACHED: {
    status: 200,
    message: 'Stopped after {limit} steps without a final answer. Rephrase the request or split it into smaller ones.',
  },
  AUTH_REQUIRED: { status: 401, message: 'Sign in first (POST /api/login) or send an API token as "Authorization: Bearer …".' },
  CONFIG_INVALID: { status: 500, message: 'Configuration is invalid: {detail}' },
  STORE_UNAVAILABLE: {
    status: 503,
    message: 'The database cannot be reached right now (it may be restarting); nothing was changed. Try again in a few seconds.',
  },
  STORE_RETRY_EXHAUSTED: {
    status: 503,
    message: 'The store stayed too busy to save this change ({attempts} attempts); nothing was changed. Try again in a moment.',
  },
  MODEL_ERROR: { status: 502, message: 'The language model failed: {detail}. Try again, or check the model configuration.' },
});

/** `resolve` found no tool of that name. */
export class ToolNotFoundError extends OpsgateError {
  readonly toolName: string;
  constructor(toolName: string) {
    super('TOOL_NOT_FOUND', `There is no tool named "${toolName}". Use one of the tools offered in this session.`, 404, { toolName });
    this.toolName = toolName;
    this.name = 'ToolNotFoundError';
  }
}

/** The tool exists but the role or the phase (or both) may not use it. */
export class ToolAccessDeniedError extends OpsgateError {
  readonly toolName: string;
  readonly role: string;
  readonly phase: string;
  readonly reason: 'role' | 'phase';
  constructor(toolName: string, role: string, phase: string, reason: 'role' | 'phase') {
    super(
      'TOOL_ACCESS_DENIED',
      reason === 'role'
        ? `The role "${role}" may not use "${toolName}". Use a tool offered for your role.`
        : `"${toolName}" is not allowed in the "${phase}" phase. Finish this phase first or use a tool of this phase.`,
      403,
      { toolName, role, phase, reason },
    );
    this.toolName = toolName;
    this.role = role;
    this.phase = phase;
    this.reason = reason;
    this.name = 'ToolAccessDeniedError';
  }
}

/**
 * A mutable tool was registered where a read-only tool of the same name exists, without
 * `forceOverride`. It is logged as a warning (through pino, into the audit), not thrown.
 */
export class ToolMutabilityWarning extends OpsgateError {
  readonly toolName: string;
  constructor(toolName: string) {
    super(
      'TOOL_MUTABILITY_WARNING',
      `A mutable "${toolName}" would replace its read-only version; the read-only version was kept. Pass { forceOverride: true } to replace it on purpose.`,
      409,
      { toolName },
    );
    this.toolName = toolName;
    this.name = 'ToolMutabilityWarning';
  }
}
