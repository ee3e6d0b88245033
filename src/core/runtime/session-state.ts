import { CoreErrors } from '../errors/index.ts';

/** Version of the stored session state; an unknown version fails naming both. */
export const SESSION_STATE_VERSION = 1;

interface PendingToolCall {
  readonly callId: string;
  readonly toolName: string;
  /** The raw JSON input the model produced. */
  readonly input: string;
}

/** What a session keeps beside its messages and tool calls. */
export interface SessionState {
  readonly v: typeof SESSION_STATE_VERSION;
  readonly username: string;
  readonly roles: readonly string[];
  /**
   * People who issued a credential the owner acted with in this session (an admin who minted a
   * token for them). Kept for the session's life: whatever the session proposes may have been asked
   * by them, so each counts as a requester and may not approve its calls. Absent: only own credentials.
   */
  credentialIssuers?: string[];
  agentState: Record<string, unknown>;
  phaseHistory: Array<{ phase: string; at: string; reason?: string }>;
  options: Record<string, unknown>;
  /** Tool calls of the current model step still to process after the pending interrupt. */
  pendingCalls: PendingToolCall[];
  /** Model steps taken in the current turn (AR-17 counts per turn). */
  turnSteps: number;
  /**
   * The person named the session; otherwise its title follows what it waits on (absent in
   * sessions stored before this field: they are titled automatically).
   */
  titledByPerson?: boolean;
  /** The title was taken from the session's first approval request; later requests keep it. */
  titledByRequest?: boolean;
}

export function parseSessionState(text: string): SessionState {
  const parsed = JSON.parse(text) as Partial<SessionState> & { v?: unknown };
  if (parsed.v !== SESSION_STATE_VERSION) {
    throw CoreErrors.UNSUPPORTED_VERSION({ what: 'session state', found: String(parsed.v), expected: String(SESSION_STATE_VERSION) });
  }
  return parsed as SessionState;
}

/** Remembers that the owner acted with a credential `issuer` issued; true when it is new to this session. */
export function noteCredentialIssuer(state: SessionState, issuer: string | undefined): boolean {
  if (!issuer || state.credentialIssuers?.includes(issuer)) return false;
  state.credentialIssuers = [...(state.credentialIssuers ?? []), issuer];
  return true;
}
