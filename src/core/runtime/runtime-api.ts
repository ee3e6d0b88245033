import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { Logger } from 'pino';
import type { AgentDefinition, Clock, SecretStore } from '../agent/define-agent.ts';
import type { Identity } from '../identity/index.ts';
import type { CallPolicy } from '../policy/index.ts';
import type { Store } from '../store/index.ts';
import type { RuntimeObserver } from '../telemetry/index.ts';
import type { DecidedApproval, PendingApproval } from './approval-inbox.ts';
import type { SessionUsage } from './session-usage.ts';
import type { TeamDirectory } from './team-directory.ts';
import type {
  ApprovalReadiness,
  Decision,
  DirectRead,
  DirectReadOutcome,
  PlannedRead,
  SessionEvent,
  SessionSnapshot,
  SessionSummary,
  StartSessionInput,
  TurnResult,
} from './types.ts';

/** Picks the language model for an agent. Default: the offline interpreter with the agent's rules. */
export type ModelResolver = (agent: AgentDefinition) => LanguageModelV4 | undefined;

export interface RuntimeOptions {
  readonly store: Store;
  readonly agents: readonly AgentDefinition[];
  readonly model?: ModelResolver;
  readonly logger?: Logger;
  readonly clock?: Clock;
  readonly generateId?: () => string;
  /** Model steps per turn before the turn stops. Default 20 (AR-17). */
  readonly stepLimit?: number;
  /** How long an approval request stays valid. Default 24 h; 0 disables expiry. */
  readonly approvalTtlMs?: number;
  /** Decides which calls run, wait or are blocked, and who may approve. Default: the Cedar policy in `policyDir`. */
  readonly policy?: CallPolicy;
  /** A directory of Cedar policies (`OPSGATE_POLICY_DIR`). Default: the policy shipped in src/core/policy/cedar/default. */
  readonly policyDir?: string;
  /** Where people's teams come from, for the policy's principals. Default none (nobody is in a team). */
  readonly teamDirectory?: TeamDirectory;
  readonly dataDir?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Options per agent name (e.g. `{ sandbox: { db: 'demo.db' } }`). */
  readonly agentOptions?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly secrets?: SecretStore;
  /** Receives what the runtime reports for metrics (turns, call statuses, store and audit latency). Default none. */
  readonly observer?: RuntimeObserver;
  /** How often this instance says it is alive and recovers dead instances' work. Default 10 s. */
  readonly heartbeatMs?: number;
  /** How long another instance may be silent before its work is recovered. Default 30 s. */
  readonly instanceStaleMs?: number;
}

export interface AgentInfo {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly pillars: readonly string[];
  /** Something people must see wherever the agent is offered (e.g. that it works on a simulation). */
  readonly notice?: string;
  readonly phases?: ReadonlyArray<{ readonly name: string; readonly title: string }>;
  /** Lines of the offline command language. */
  readonly help: readonly string[];
  readonly tools: ReadonlyArray<{
    readonly name: string;
    readonly description: string;
    readonly mutability: string;
    readonly risk: string;
    /** JSON Schema of the input, as a model (or an MCP client) is shown it. */
    readonly inputSchema: Readonly<Record<string, unknown>>;
  }>;
}

export interface SessionEventFeed {
  /**
   * Stored events after `afterSeq`, oldest first (for reconnecting clients). Read after subscribing,
   * it misses nothing: it waits until this process hears the other replicas (see `listening`).
   */
  since(sessionId: string, afterSeq: number): Promise<SessionEvent[]>;
  /**
   * Live events of one session, wherever they were written; with `'*'`, the events of every session
   * that this process wrote (each replica delivers its own once). Returns the unsubscribe function.
   */
  subscribe(sessionId: string | '*', listener: (event: SessionEvent) => void): () => void;
  /**
   * Resolves once this process hears the events other replicas write for the sessions followed
   * here (at once on SQLite, or when nothing is followed). A process listens only while it follows
   * a session, so the events a subscriber hears from other replicas are those committed after this.
   */
  listening(): Promise<void>;
}

/** The guarded runtime. Every method checks that `actor` may act on the session. */
export interface Runtime {
  readonly store: Store;
  readonly events: SessionEventFeed;
  agents(): AgentInfo[];
  startSession(input: StartSessionInput): Promise<SessionSnapshot>;
  /** Runs one turn with the person's message; returns at a final answer, an interrupt or the step limit. */
  send(sessionId: string, text: string, actor: Identity): Promise<TurnResult>;
  /**
   * Runs one tool call a client makes itself (an MCP client, a script) through the same guards as
   * a model's call: scope, schema, identity binding, validator, policy and approval. The session
   * moves to the `direct` route. Returns at once for read-only calls; a mutable call returns
   * `waiting` with its approval interrupt, to be answered with `decide`.
   */
  callTool(
    sessionId: string,
    call: { readonly tool: string; readonly args: Readonly<Record<string, unknown>> },
    actor: Identity,
  ): Promise<TurnResult>;
  /** Answers the pending interrupt and continues the turn. */
  /**
   * The read fast path: runs a read-only tool for `actor` outside any session, through the guards a
   * read needs (role, input, identity binding, the policy's `run`), with one `tool_read` audit
   * event batched by group commit. Answers `ran: false` (nothing run or recorded) for anything
   * else; the caller then takes the session path (`callTool`). For tools that keep no session state.
   */
  readDirect(read: DirectRead, actor: Identity): Promise<DirectReadOutcome>;
  /** `readDirect` in two steps: every check now, the run when the caller says (after its own limits). */
  planRead(read: DirectRead, actor: Identity): Promise<PlannedRead>;
  decide(sessionId: string, decision: Decision, actor: Identity): Promise<TurnResult>;
  /**
   * Whether the pending approval `callId` can still run as shown — what approving would find
   * (expiry, the tool still offered, the tool's `checkRunnable`, the approval binding) — asked
   * before a person decides, so a stale approval offers to re-plan instead of Approve. Changes nothing.
   */
  approvalReadiness(sessionId: string, callId: string, actor: Identity): Promise<ApprovalReadiness>;
  getSession(sessionId: string, actor: Identity): Promise<SessionSnapshot>;
  /** Tokens and cost of the session's model steps, per turn (readable by whoever may read the session). */
  sessionUsage(sessionId: string, actor: Identity): Promise<SessionUsage>;
  listSessions(actor: Identity, filter?: { agent?: string; all?: boolean }): Promise<SessionSummary[]>;
  /** Calls waiting for approval in the sessions `actor` may see, each saying whether the policy lets `actor` approve it. */
  pendingApprovals(actor: Identity): Promise<PendingApproval[]>;
  /** Decided approvals, newest first. Default limit 50. */
  approvalHistory(actor: Identity, limit?: number): Promise<DecidedApproval[]>;
  /**
   * Turns calls that dead instances left `executing` into `unknown` (never re-run) and returns
   * their sessions to idle. Runs at start-up and with every heartbeat; live replicas keep theirs.
   */
  recover(): Promise<{ unknownCalls: number; sessions: number }>;
  /** Thumbs up (+1) or down (-1) on the session or one step of it (AR-10/11). */
  addFeedback(sessionId: string, actor: Identity, input: { rating: 1 | -1; target?: string; comment?: string }): Promise<void>;
  close(): Promise<void>;
}
