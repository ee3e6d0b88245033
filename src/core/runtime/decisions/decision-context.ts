import type { Identity } from '../../identity/index.ts';
import type { ToolCallEnvironment } from '../tool-call-environment.ts';
import type { TrackedCall } from '../tool-call-lifecycle.ts';
import type { CallOutcome, ToolCallProcessor } from '../tool-calls.ts';
import type { ApprovalInterrupt } from '../types.ts';
import type { WorkingSession } from '../working-session.ts';

/** What every decision module gets: the session, the call decided on, who decides, and the runtime's parts. */
export interface DecisionContext {
  readonly session: WorkingSession;
  readonly actor: Identity;
  readonly env: ToolCallEnvironment;
  readonly processor: ToolCallProcessor;
  /** Answers a call in the model's history and drops it from the pending calls. */
  recordOutcome(callId: string, toolName: string, outcome: CallOutcome): void;
  /** Answers every pending call not yet run with `reason`. */
  dropPendingCalls(reason: string): void;
}

/** A decision on a pending approval. */
export interface ApprovalDecisionContext extends DecisionContext {
  readonly interrupt: ApprovalInterrupt;
  /** The stored proposal, still `proposed`. */
  readonly call: TrackedCall;
  readonly decidedAt: string;
}
