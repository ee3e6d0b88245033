import type { Route } from '../agent/define-agent.ts';
import type { Identity } from '../identity/index.ts';
import type { ApprovalPreview, Risk, ValidatorVerdict } from '../tools/index.ts';

export type ToolCallStatus = 'proposed' | 'approved' | 'executing' | 'executed' | 'failed' | 'rejected' | 'blocked' | 'expired' | 'unknown';

export type SessionStatus = 'idle' | 'running' | 'waiting' | 'closed';

/** A pending mutable call waiting for a person (or shown after a crash as `unknown`). */
export interface ApprovalInterrupt {
  readonly type: 'approval';
  readonly id: string;
  readonly callId: string;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly argsHash: string;
  readonly risk: Risk;
  /** One line saying why the call got its risk (from the tool's `assessRisk`, else generic). */
  readonly riskReason: string;
  readonly preview?: ApprovalPreview;
  readonly verdict?: ValidatorVerdict;
  readonly requestedBy: string;
  /** Who issued credentials the requester acted with in this session, when not the requester: they may not approve it. */
  readonly requesterCredentialIssuers?: readonly string[];
  readonly requestedAt: string;
  readonly expiresAt?: string;
  /** The policy (`@id`) that required approval. */
  readonly policyId: string;
  /** Distinct people who must approve before the call runs (1, or 2 when the policy asks for a second approver). */
  readonly requiredApprovals: number;
  /** Who approved so far (while more approvals are needed). */
  readonly approvals: readonly string[];
  /** Who the policy lets approve this call now (usernames). */
  readonly eligibleApprovers: readonly string[];
  /** What the agent said when it asked. */
  readonly text?: string;
}

/** The agent asks the person (AR-13; helm gates). */
export interface QuestionInterrupt {
  readonly type: 'question';
  readonly id: string;
  readonly callId: string;
  readonly question: string;
  /** Offered choices; `custom` means free text is accepted. */
  readonly options: readonly string[];
  readonly context?: unknown;
}

/** A long-running tool passed its soft timeout (AR-12): the person may read what it has so far and go on. */
export interface ContinueInterrupt {
  readonly type: 'continue';
  readonly id: string;
  readonly callId: string;
  readonly tool: string;
  readonly message: string;
}

export type Interrupt = ApprovalInterrupt | QuestionInterrupt | ContinueInterrupt;

/**
 * Why a pending approval can no longer run as shown:
 * - `state-lost`: what the call needs is gone (the tool's `checkRunnable` says what, e.g. a
 *   transaction that died with the server process);
 * - `binding-changed`: the arguments or the preview no longer hash to what the person was shown;
 * - `expired`: the approval request is past its expiry;
 * - `tool-unavailable`: the tool is no longer offered to this session (agent, role or phase changed).
 */
export type StaleApprovalReason = 'state-lost' | 'binding-changed' | 'expired' | 'tool-unavailable';

/** Whether a pending approval can still run as shown. Asked before a person decides; changes nothing. */
export type ApprovalReadiness =
  | { readonly callId: string; readonly runnable: true }
  | {
      readonly callId: string;
      readonly runnable: false;
      readonly reason: StaleApprovalReason;
      /** A sentence for the person: what is gone and that re-planning proposes the work again. */
      readonly message: string;
    };

export type QuestionAnswer = 'yes' | 'no' | 'skip' | { readonly custom: string };

export type Decision =
  | { readonly type: 'approve'; readonly callId: string }
  | { readonly type: 'reject'; readonly callId: string; readonly reason?: string }
  | { readonly type: 'modify'; readonly callId: string; readonly args: Readonly<Record<string, unknown>> }
  /** Void a pending approval that can no longer run as shown and let the agent plan again (refused while it can still run). */
  | { readonly type: 'replan'; readonly callId: string }
  /** The requester takes a pending approval back before anyone decided it (the owner only). */
  | { readonly type: 'withdraw'; readonly callId: string }
  | { readonly type: 'answer'; readonly callId: string; readonly answer: QuestionAnswer }
  | { readonly type: 'continue'; readonly callId: string };

/** One chat message as a person sees it. */
export interface ChatMessage {
  readonly seq: number;
  readonly role: 'user' | 'assistant' | 'tool' | 'system';
  readonly text: string;
  readonly toolCalls?: ReadonlyArray<{
    readonly callId: string;
    readonly tool: string;
    readonly args: unknown;
    readonly status?: ToolCallStatus;
  }>;
  readonly toolResult?: { readonly callId: string; readonly tool: string; readonly output: unknown; readonly isError: boolean };
  readonly createdAt: string;
}

export interface ToolCallRecord {
  readonly id: string;
  readonly sessionId: string;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly argsHash: string;
  readonly mutability: 'read-only' | 'mutable';
  readonly risk: Risk;
  readonly status: ToolCallStatus;
  readonly verdict?: ValidatorVerdict;
  readonly preview?: ApprovalPreview;
  readonly result?: unknown;
  readonly error?: string;
  readonly approvedBy?: string;
  readonly approvalRule?: string;
  /** Who rejected the call and why (status `rejected`). */
  readonly rejection?: { readonly by: string; readonly reason: string };
  /**
   * An approver changed the arguments (Modify): who, the arguments asked for when the change
   * itself was refused (a stale plan: the agent re-plans), or the call that replaced this one.
   */
  readonly modification?: { readonly by: string; readonly args?: Readonly<Record<string, unknown>>; readonly replacedBy?: string };
  /** The requester took the request back (status `rejected`): not a rejection by anyone else. */
  readonly withdrawnBy?: string;
  readonly createdAt: string;
  readonly expiresAt?: string;
  readonly startedAt?: string;
  readonly finishedAt?: string;
}

export interface SessionSummary {
  readonly id: string;
  readonly agent: string;
  readonly userId: number;
  readonly username: string;
  readonly pillar: string;
  readonly route: Route;
  readonly phase: string;
  readonly status: SessionStatus;
  readonly title: string;
  readonly steps: number;
  /** The session waits for a decision. */
  readonly waiting: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface SessionSnapshot extends SessionSummary {
  readonly messages: readonly ChatMessage[];
  readonly toolCalls: readonly ToolCallRecord[];
  readonly interrupt?: Interrupt;
  readonly phaseHistory: ReadonlyArray<{ readonly phase: string; readonly at: string; readonly reason?: string }>;
  readonly phases?: ReadonlyArray<{ readonly name: string; readonly title: string }>;
  readonly agentState: Readonly<Record<string, unknown>>;
  readonly options: Readonly<Record<string, unknown>>;
}

export interface TurnResult {
  /** `completed`: a final answer. `waiting`: an interrupt needs a person. `step_limit`: stopped at the limit. */
  readonly status: 'completed' | 'waiting' | 'step_limit';
  /** Messages added by this turn, in order. */
  readonly messages: readonly ChatMessage[];
  readonly interrupt?: Interrupt;
  readonly session: SessionSnapshot;
}

/** A live event of a session, numbered per session so that a client can resume after `seq`. */
export interface SessionEvent {
  readonly sessionId: string;
  readonly seq: number;
  /** e.g. `message`, `text.delta`, `tool.call`, `tool.result`, `interrupt`, `decision`, `phase`, `terminal.output`, `status`. */
  readonly type: string;
  readonly data: unknown;
  readonly createdAt: string;
}

export interface StartSessionInput {
  readonly agent: string;
  readonly identity: Identity;
  readonly pillar?: string;
  readonly title?: string;
  /** Per-session switches, e.g. `{ agentMode: true, autoApprove: true }` (AR-03) or `{ hostId: 3 }`. */
  readonly options?: Readonly<Record<string, unknown>>;
}

/** A read-only call a client makes outside any session (`Runtime.readDirect`). */
export interface DirectRead {
  readonly agent: string;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** The options a session of this caller would carry, for the policy (e.g. `{ via: 'gateway' }`). */
  readonly options?: Readonly<Record<string, unknown>>;
}

/**
 * What a direct read did: it ran (its exact output, or `{ error, code }` when the tool failed), or
 * it was not one to run directly (`reason`): then nothing was run or recorded, and the caller takes
 * the session path, which records it as before (blocked, asked, invalid input…).
 */
export type DirectReadOutcome =
  | { readonly ran: true; readonly callId: string; readonly output: unknown; readonly isError: boolean }
  | { readonly ran: false; readonly reason: string };

/**
 * A direct read checked and ready to run (`Runtime.planRead`): `run` executes and records it as
 * `readDirect` would, with the decision just made. Or why it is not one (nothing run or recorded).
 */
export type PlannedRead =
  | { readonly ran: false; readonly reason: string }
  | { readonly ran: 'planned'; run(): Promise<Extract<DirectReadOutcome, { ran: true }>> };
