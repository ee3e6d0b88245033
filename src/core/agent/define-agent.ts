import type { Logger } from 'pino';
import type { Identity } from '../identity/index.ts';
import type { InterpreterRules } from '../model/interpreter-rules.ts';
import type { Store, StoreMigration } from '../store/index.ts';
import type { AnyToolDefinition, ToolContext } from '../tools/index.ts';

/** Time and ids come from here so that tests are deterministic. */
export interface Clock {
  now(): Date;
}

/** Named secrets (SSH keys, passwords, admin keys). Values never reach the model, the browser or the audit. */
export interface SecretStore {
  get(name: string): Promise<string | undefined>;
  set(name: string, value: string): Promise<void>;
  delete(name: string): Promise<void>;
}

/** A phase of an agent's workflow path. Tools name the phases they may run in. */
export interface PhaseDefinition {
  readonly name: string;
  readonly title: string;
  /** A human gate ends this phase: the agent must ask (`request_human_input`) before moving on. */
  readonly gate?: 'question' | 'approval';
}

export interface WorkflowDefinition {
  readonly phases: readonly PhaseDefinition[];
}

/**
 * `query`: read-only tools, no gates. `workflow`: phases and gates. `standard`: one phase, mutable
 * calls gated. `direct`: a client (MCP) makes the tool calls itself; no model, the same guards.
 */
export type Route = 'query' | 'workflow' | 'standard' | 'direct';

/** The phase name of sessions on the `query` and `standard` routes. */
export const QUERY_PHASE = 'query';
export const STANDARD_PHASE = 'main';

/** What a middleware sees of a call about to execute. */
export interface ToolCallInvocation {
  readonly tool: AnyToolDefinition;
  readonly input: unknown;
  readonly context: ToolContext;
  /** Present when the call was approved (by a person or a named rule). */
  readonly approval?: { readonly approvedBy: string; readonly rule?: string; readonly argsHash: string };
}

/** Wraps tool execution: caches, safety nets, retries. Called outermost first. */
export interface ToolMiddleware {
  readonly name: string;
  wrap(call: ToolCallInvocation, next: () => Promise<unknown>): Promise<unknown>;
}

/** A named rule under which a mutable call runs without a person (audited with its name). */
export interface AutoApproveRule {
  readonly name: string;
  applies(call: { tool: AnyToolDefinition; input: unknown; sessionOptions: Readonly<Record<string, unknown>> }): boolean;
}

export interface SessionView {
  readonly id: string;
  readonly agent: string;
  readonly identity: Identity;
  readonly route: Route;
  readonly phase: string;
  readonly options: Readonly<Record<string, unknown>>;
}

export interface AgentSetupContext {
  readonly store: Store;
  readonly logger: Logger;
  readonly dataDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Per-agent options from the CLI or config, e.g. `{ db: 'demo.db' }`. */
  readonly options: Readonly<Record<string, string>>;
  readonly secrets: SecretStore;
  readonly clock: Clock;
}

export interface AgentParts {
  readonly tools: readonly AnyToolDefinition[];
  /**
   * For an agent whose tools appear or change after start (an MCP upstream that was down at start,
   * or whose changed definition an admin accepted): the runtime hands it `update` once, and each
   * set of tools the agent passes to it is registered over the earlier definitions of those names.
   */
  readonly watchTools?: (update: (tools: readonly AnyToolDefinition[]) => void) => void;
  readonly workflow?: WorkflowDefinition;
  /** Rules the offline interpreter model follows for this agent. */
  readonly interpreter?: InterpreterRules;
  /** Picks the route of a session from its first message. Default: `standard`. */
  readonly route?: (input: string, session: SessionView) => Route;
  readonly middleware?: readonly ToolMiddleware[];
  /**
   * The core retries failing read-only tools (3 attempts, exponential backoff). Set false for an
   * agent that brings its own retry middleware, so calls are not retried twice over. Default true.
   */
  readonly retryReadOnlyTools?: boolean;
  readonly autoApproveRules?: readonly AutoApproveRule[];
  /**
   * A short notice people must see wherever the agent is offered (e.g. "SIMULATED cluster: no
   * real Kubernetes"). Shown in the server banner, the chat banner and the web UI.
   */
  readonly notice?: string;
  /** Extra text appended to the instructions for a session (e.g. the route's sub-agent prompt). */
  readonly instructionsFor?: (session: SessionView) => string;
  close?(): Promise<void>;
}

export interface AgentDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** The system prompt. */
  readonly instructions: string;
  /** Pillars a session may belong to (troubleshoot: `troubleshoot`, `revive`). Default: the agent name. */
  readonly pillars?: readonly string[];
  /**
   * Most model steps per turn for this agent, a limit its spec fixes. The runtime's own limit
   * (default 20, `OPSGATE_STEP_LIMIT`) applies when it is lower. Default: the runtime's.
   */
  readonly stepLimit?: number;
  readonly migrations?: readonly StoreMigration[];
  setup(context: AgentSetupContext): Promise<AgentParts>;
}

/** Declares an agent. How to add one, and every file that takes: docs/agents/new-agent.md. */
export function defineAgent(definition: AgentDefinition): AgentDefinition {
  return definition;
}
