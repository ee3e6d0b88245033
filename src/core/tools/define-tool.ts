import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Identity } from '../identity/index.ts';

export type Mutability = 'read-only' | 'mutable';
export type Risk = 'low' | 'medium' | 'high' | 'critical';
/** `'*'` admits every role or phase. */
export type Scope = readonly string[] | '*';

/** What a validator says about a call. A `block` is final: no approval can override it. */
export interface ValidatorVerdict {
  readonly verdict: 'allow' | 'block';
  readonly rule?: string;
  readonly category?: string;
  readonly segment?: string;
  readonly reason: string;
}

/** Live output of a running tool (terminal bytes, progress), fanned out to watchers. */
export interface ToolEventSink {
  emit(type: string, data: unknown): void;
}

/** What a tool may see and do while it runs. */
export interface ToolContext {
  readonly sessionId: string;
  readonly callId: string;
  readonly agent: string;
  /** The signed-in user the session belongs to. */
  readonly identity: Identity;
  readonly phase: string;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  readonly events: ToolEventSink;
  /** The agent's durable state for this session (JSON). Changes are stored with the step. */
  readonly state: Record<string, unknown>;
  /** Move the workflow to another phase; recorded in `phase_history` and the audit. */
  setPhase(phase: string, reason?: string): void;
  /** Appends an agent-specific event to the hash-chained audit log (e.g. `command_executed`). Never put secrets in it. */
  audit(type: string, payload: Record<string, unknown>): Promise<void>;
}

/**
 * Ties tool input fields to the session's identity. The runtime fills these fields from the
 * session and refuses a call whose model-provided value differs.
 */
export interface IdentityBinding {
  readonly userId?: string;
  readonly username?: string;
}

/** Shown on the approval panel: a diff, the row changes, the exact command. */
export interface ApprovalPreview {
  readonly kind: string;
  readonly summary: string;
  /**
   * What is asked, in a few words a person recognises on a lock screen or an inbox line
   * ("DROP TABLE order_items (8 rows)", "DB_WRITE_PROD for john_doe, 30 days"). Chat notifications
   * and inbox titles lead with it instead of the tool's name.
   */
  readonly headline?: string;
  readonly details?: unknown;
  /** Extra material the approval is bound to (a plan hash, a changeset hash). */
  readonly bindingDigest?: string;
}

/**
 * The system a call acts on, as an agent knows it (a registered cluster, a host group): a name and
 * an environment label such as production. Cedar reads them as `context.target` / `context.environment`.
 */
export interface PolicyTarget {
  readonly name: string;
  readonly environment: string;
}

/** A risk scored from a call's arguments, with the one-line reason shown on the approval panel. */
export interface RiskAssessment {
  readonly level: Risk;
  readonly reason: string;
}

export interface ToolDefinition<Input = unknown, Output = unknown> {
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodType<Input>;
  readonly mutability: Mutability;
  /** Default `low` for read-only tools, `medium` for mutable ones. */
  readonly risk: Risk;
  /** Default `'*'`. */
  readonly allowedRoles: Scope;
  /** Default `'*'`. */
  readonly allowedPhases: Scope;
  readonly identity?: IdentityBinding;
  /**
   * A floor under approvals: called when the model proposes and again right before execution,
   * on exactly the arguments that will run.
   */
  readonly validate?: (input: Input, context: ToolContext) => ValidatorVerdict | Promise<ValidatorVerdict>;
  /** Details for the approval panel; its `bindingDigest` joins the approval hash. */
  readonly preview?: (input: Input, context: ToolContext) => ApprovalPreview | Promise<ApprovalPreview>;
  /**
   * Mutable tools: whether what a pending call needs still exists, asked before a person decides
   * (e.g. an open transaction that lived only in a server process that has since restarted).
   * Returns a plain-language sentence saying why the call can no longer run and what re-planning
   * does, or undefined when it can. Must not change anything. Default: it can (the approval
   * binding is still checked against a fresh preview).
   */
  readonly checkRunnable?: (input: Input, context: ToolContext) => string | undefined | Promise<string | undefined>;
  /**
   * The target this call acts on, for the policy; must not change anything and answers at once.
   * Default: none (Cedar sees "" for target and environment).
   */
  readonly policyTarget?: (input: Input) => PolicyTarget | undefined;
  /** Scores this call's risk from its arguments (and the preview, when there is one). Default: the static `risk`. */
  readonly assessRisk?: (input: Input, preview?: ApprovalPreview) => RiskAssessment;
  /**
   * Runs the call. A mutable tool that cannot tell whether its side effect happened (the remote
   * end went away after the request was sent) throws an OpsgateError with the field
   * `outcomeUnknown: true`: the call is recorded `unknown`, never `failed`, so nobody re-runs it.
   */
  readonly execute: (input: Input, context: ToolContext) => Promise<Output>;
  /**
   * Read-only tools only: an identical call later in the session returns the recorded result
   * (until a mutable call executes). Set false for tools whose answer changes by itself. Default true.
   */
  readonly cache?: boolean;
  /** Turns the output into what the model reads. Default: JSON. */
  readonly toModelOutput?: (output: Output) => unknown;
}

export type AnyToolDefinition = ToolDefinition<any, any>;

export type ToolSpec<Input, Output> = Omit<ToolDefinition<Input, Output>, 'risk' | 'allowedRoles' | 'allowedPhases'> &
  Partial<Pick<ToolDefinition<Input, Output>, 'risk' | 'allowedRoles' | 'allowedPhases'>>;

/** Declares a tool with its schema at the edge, its mutability and where it may be used. */
export function defineTool<Input, Output>(spec: ToolSpec<Input, Output>): ToolDefinition<Input, Output> {
  return {
    ...spec,
    risk: spec.risk ?? (spec.mutability === 'mutable' ? 'medium' : 'low'),
    allowedRoles: spec.allowedRoles ?? '*',
    allowedPhases: spec.allowedPhases ?? '*',
  };
}
