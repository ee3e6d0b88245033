import { QUERY_PHASE, STANDARD_PHASE } from '../agent/define-agent.ts';
import { canonicalJson, userActor } from '../audit/index.ts';
import { CoreErrors, OpsgateError } from '../errors/index.ts';
import type { Identity } from '../identity/index.ts';
import { decidePolicy } from '../policy/index.ts';
import { UnitOfWork } from '../store/index.ts';
import { withToolSpan } from '../telemetry/index.ts';
import { type AnyToolDefinition, assessToolRisk, type ToolContext } from '../tools/index.ts';
import { HUMAN_INPUT_TOOL } from './human-input-tool.ts';
import type { ToolCallEnvironment } from './tool-call-environment.ts';
import { errorMessage, sha256 } from './tool-calls.ts';
import { prepareInput } from './tool-input.ts';
import type { DirectRead, DirectReadOutcome, PlannedRead } from './types.ts';
import type { LoadedAgent } from './working-session.ts';

export interface DirectReadsOptions {
  readonly env: ToolCallEnvironment;
  readonly agentOf: (name: string) => LoadedAgent;
  /** The role a session of this person would run with (tools are offered per role). */
  readonly roleOf: (identity: Identity) => string;
}

/**
 * The read fast path: a read-only call runs through the guards that apply to a read — the tool is
 * offered to the person's role, the input is checked and bound to their identity, the policy says
 * `run` — and its audit event (`tool_read`: who, which agent and tool, the arguments' digest, the
 * outcome, the call id) is journaled in a unit of work of its own, which group commit batches with
 * whatever else commits at that moment. No session, message or tool-call row is written: a read
 * changes nothing, so there is nothing to approve, resume or recover. Anything that is not a plain
 * read that the policy runs goes back to the caller untouched.
 */
export class DirectReads {
  readonly #env: ToolCallEnvironment;
  readonly #agentOf: DirectReadsOptions['agentOf'];
  readonly #roleOf: DirectReadsOptions['roleOf'];

  constructor(options: DirectReadsOptions) {
    this.#env = options.env;
    this.#agentOf = options.agentOf;
    this.#roleOf = options.roleOf;
  }

  async run(read: DirectRead, identity: Identity): Promise<DirectReadOutcome> {
    const planned = await this.plan(read, identity);
    return planned.ran === 'planned' ? planned.run() : planned;
  }

  /** Every check of `run`, without running: a caller may apply its own limits between the two. */
  async plan(read: DirectRead, identity: Identity): Promise<PlannedRead> {
    const env = this.#env;
    const agent = this.#agentOf(read.agent);
    const phase = agent.parts.workflow ? QUERY_PHASE : STANDARD_PHASE;
    const tool = agent.registry.find(read.tool);
    if (!tool || tool.name === HUMAN_INPUT_TOOL) return { ran: false, reason: 'no such tool' };
    if (tool.mutability !== 'read-only') return { ran: false, reason: 'the tool changes state' };
    if (tool.validate || tool.preview) return { ran: false, reason: 'the tool checks its calls itself' };
    let input: Record<string, unknown>;
    try {
      agent.registry.resolve(read.tool, this.#roleOf(identity), phase);
      input = prepareInput(tool, read.args, { identity });
    } catch (error) {
      if (!OpsgateError.isInstance(error)) throw error;
      return { ran: false, reason: errorMessage(error) };
    }
    const [user] = await env.withTeams([{ username: identity.username, roles: identity.roles }]);
    const decision = decidePolicy({
      policy: env.policy,
      user: user!,
      agent: agent.definition.name,
      channel: identity.channel ?? 'rest',
      at: env.now(),
      tool,
      input,
      risk: assessToolRisk(tool, input).level,
      verdict: undefined,
      autoApproveRules: agent.parts.autoApproveRules ?? [],
      sessionOptions: read.options ?? {},
    });
    if (decision.action !== 'run') return { ran: false, reason: `the policy says ${decision.action}` };
    return { ran: 'planned', run: () => this.#execute(agent, tool, input, identity, decision.policyId) };
  }

  async #execute(
    agent: LoadedAgent,
    tool: AnyToolDefinition,
    input: Record<string, unknown>,
    identity: Identity,
    policyId: string,
  ): Promise<Extract<DirectReadOutcome, { ran: true }>> {
    const { audit, now, generateId, logger, store } = this.#env;
    const callId = generateId();
    const uow = new UnitOfWork();
    const actor = userActor(identity.username);
    const context: ToolContext = {
      sessionId: '',
      callId,
      agent: agent.definition.name,
      identity,
      phase: agent.parts.workflow ? QUERY_PHASE : STANDARD_PHASE,
      signal: new AbortController().signal,
      logger: logger.child({ tool: tool.name, callId, direct: true }),
      // A direct read keeps nothing between calls: there is no session to keep it in.
      state: {},
      events: { emit: () => {} },
      setPhase: () => {
        throw CoreErrors.BAD_REQUEST({ detail: `${tool.name} changes the phase, which a read outside a session cannot.` });
      },
      audit: async (type, payload) => {
        audit.record(uow, { type, actor, payload: { ...payload, callId } });
      },
    };
    const chain = agent.middleware.reduceRight<() => Promise<unknown>>(
      (next, middleware) => () => middleware.wrap({ tool, input, context }, next),
      () => tool.execute(input, context),
    );
    const started = now();
    let output: unknown;
    let failure: unknown;
    try {
      output = await withToolSpan({ tool: tool.name, callId, description: tool.description, mutability: tool.mutability }, chain);
    } catch (error) {
      failure = error;
    }
    const durationMs = now().getTime() - started.getTime();
    const outcome =
      failure === undefined
        ? { outcome: 'executed', outputHash: sha256(canonicalJson(output ?? null)) }
        : {
            outcome: 'failed',
            error: errorMessage(failure),
            ...(OpsgateError.isInstance(failure) ? { code: failure.code } : {}),
          };
    audit.record(uow, {
      type: 'tool_read',
      actor,
      payload: {
        callId,
        agent: agent.definition.name,
        tool: tool.name,
        argsHash: sha256(canonicalJson(input)),
        channel: identity.channel ?? 'rest',
        policyId,
        durationMs,
        ...outcome,
      },
    });
    // Durable before the answer leaves, like the session path's end of turn; group commit shares the transaction.
    await uow.commit(store);
    if (failure !== undefined)
      return {
        ran: true,
        callId,
        output: { error: errorMessage(failure), ...(OpsgateError.isInstance(failure) ? { code: failure.code } : {}) },
        isError: true,
      };
    return { ran: true, callId, output, isError: false };
  }
}
