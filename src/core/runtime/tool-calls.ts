import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { ToolCallInvocation } from '../agent/define-agent.ts';
import { canonicalJson } from '../audit/canonical-json.ts';
import type { AuditLog } from '../audit/index.ts';
import { CoreErrors, OpsgateError } from '../errors/index.ts';
import { approvalHash, decidePolicy } from '../policy/index.ts';
import { sanitizeOutputForModel } from '../text/index.ts';
import type { AnyToolDefinition, ApprovalPreview, ToolContext, ValidatorVerdict } from '../tools/index.ts';
import type { SessionEvents } from './events.ts';
import { HUMAN_INPUT_TOOL, QUESTION_OPTIONS } from './human-input-tool.ts';
import { type Db, newToolCallRow, sessionRepository } from './session-repository.ts';
import { ToolContinuation } from './tool-continuation.ts';
import type { Interrupt } from './types.ts';
import type { WorkingSession } from './working-session.ts';

/** What the model gets back for one call. */
export type CallOutcome =
  | { readonly kind: 'result'; readonly output: unknown; readonly isError: boolean }
  | { readonly kind: 'denied'; readonly reason: string }
  | { readonly kind: 'interrupt'; readonly interrupt: Interrupt };

export interface ToolCallEnvironment {
  readonly db: Db;
  readonly audit: AuditLog;
  readonly events: SessionEvents;
  readonly logger: Logger;
  readonly now: () => Date;
  readonly generateId: () => string;
  readonly approvalTtlMs: number;
  readonly fourEyesTools: ReadonlySet<string>;
  /** Makes the stored state durable before a side effect. */
  readonly flush: () => Promise<void>;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function errorMessage(error: unknown): string {
  if (OpsgateError.isInstance(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** Fills identity fields from the session; a model value naming someone else is refused. */
export function bindIdentity(tool: AnyToolDefinition, raw: Record<string, unknown>, session: WorkingSession): Record<string, unknown> {
  const binding = tool.identity;
  if (!binding) return raw;
  const bound = { ...raw };
  const pairs: Array<[string | undefined, string | number]> = [
    [binding.userId, session.identity.userId],
    [binding.username, session.identity.username],
  ];
  for (const [field, expected] of pairs) {
    if (!field) continue;
    const given = bound[field];
    if (given !== undefined && given !== null && String(given) !== String(expected)) {
      throw CoreErrors.IDENTITY_MISMATCH({
        field,
        given: String(given),
        expected: `${session.identity.username} (${session.identity.userId})`,
      });
    }
    bound[field] = expected;
  }
  return bound;
}

/** Parses, binds and validates a model's raw input; throws typed errors. */
export function prepareInput(tool: AnyToolDefinition, rawInput: unknown, session: WorkingSession): Record<string, unknown> {
  let parsedRaw: unknown = rawInput;
  if (typeof rawInput === 'string') {
    try {
      parsedRaw = rawInput.trim() === '' ? {} : JSON.parse(rawInput);
    } catch {
      throw CoreErrors.INVALID_TOOL_INPUT({ tool: tool.name, detail: 'the input is not valid JSON' });
    }
  }
  if (parsedRaw === null || typeof parsedRaw !== 'object' || Array.isArray(parsedRaw)) {
    throw CoreErrors.INVALID_TOOL_INPUT({ tool: tool.name, detail: 'the input must be a JSON object' });
  }
  const bound = bindIdentity(tool, parsedRaw as Record<string, unknown>, session);
  const result = tool.input.safeParse(bound);
  if (!result.success) {
    const detail = result.error.issues.map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`).join('; ');
    throw CoreErrors.INVALID_TOOL_INPUT({ tool: tool.name, detail });
  }
  return result.data as Record<string, unknown>;
}

/** Runs one tool call through the guards: resolve, validate, bind identity, policy, and run or ask. */
export class ToolCallProcessor {
  readonly #env: ToolCallEnvironment;

  constructor(env: ToolCallEnvironment) {
    this.#env = env;
  }

  get env(): ToolCallEnvironment {
    return this.#env;
  }

  async process(session: WorkingSession, callId: string, toolName: string, rawInput: string, assistantText: string): Promise<CallOutcome> {
    const { db, audit, now } = this.#env;
    const actor = `agent:${session.agent.definition.name}`;
    let tool: AnyToolDefinition;
    try {
      tool = session.agent.registry.resolve(toolName, session.row.role, session.phase);
      if (session.route === 'query' && tool.mutability === 'mutable') {
        throw CoreErrors.BAD_REQUEST({
          detail: `"${toolName}" changes state and is not available on the read-only query path. Ask for the change explicitly so it goes through the workflow.`,
        });
      }
      if (session.route === 'query' && tool.name === HUMAN_INPUT_TOOL) {
        throw CoreErrors.BAD_REQUEST({ detail: 'Questions are not available on the read-only query path; answer directly.' });
      }
    } catch (error) {
      await this.#recordBlocked(session, callId, toolName, rawInput, errorMessage(error), undefined, actor);
      return {
        kind: 'result',
        output: { error: errorMessage(error), code: OpsgateError.isInstance(error) ? error.code : 'ERROR' },
        isError: true,
      };
    }

    let input: Record<string, unknown>;
    try {
      input = prepareInput(tool, rawInput, session);
    } catch (error) {
      const blockedByIdentity = OpsgateError.isInstance(error) && error.code === 'IDENTITY_MISMATCH';
      if (blockedByIdentity) await this.#recordBlocked(session, callId, toolName, rawInput, errorMessage(error), undefined, actor);
      return {
        kind: 'result',
        output: { error: errorMessage(error), code: OpsgateError.isInstance(error) ? error.code : 'ERROR' },
        isError: true,
      };
    }

    if (tool.name === HUMAN_INPUT_TOOL) return this.#askQuestion(session, callId, input);

    const context = this.createContext(session, tool, callId);
    let verdict: ValidatorVerdict | undefined;
    if (tool.validate) verdict = await tool.validate(input, context);
    const decision = decidePolicy({
      tool,
      input,
      verdict,
      autoApproveRules: session.agent.parts.autoApproveRules ?? [],
      sessionOptions: session.state.options,
    });
    if (decision.action === 'block') {
      await this.#recordBlocked(session, callId, toolName, input, decision.reason, verdict, actor);
      return {
        kind: 'result',
        output: { blocked: true, reason: decision.reason, ...(verdict?.rule ? { rule: verdict.rule } : {}) },
        isError: true,
      };
    }

    const preview = decision.action === 'ask' || decision.action === 'auto' ? await tool.preview?.(input, context) : undefined;
    const argsHash = approvalHash(callId, tool.name, input, preview?.bindingDigest);
    const createdAt = now().toISOString();
    const row = newToolCallRow({
      id: callId,
      session_id: session.id,
      seq: await session.nextToolCallSeq(db),
      tool: tool.name,
      args: JSON.stringify(input),
      args_hash: argsHash,
      mutability: tool.mutability,
      risk: tool.risk,
      status: 'proposed',
      verdict: verdict ? JSON.stringify(verdict) : null,
      preview: preview ? JSON.stringify(preview) : null,
      requested_by: session.identity.userId,
      created_at: createdAt,
    });

    if (decision.action === 'run') {
      const cacheable = tool.mutability === 'read-only' && tool.cache !== false;
      if (cacheable) {
        const contentHash = sha256(canonicalJson([tool.name, input]));
        const hit = await sessionRepository.findCachedResult(db, session.id, tool.name, contentHash);
        if (hit?.result) {
          await sessionRepository.insertToolCall(db, {
            ...row,
            args_hash: contentHash,
            status: 'executed',
            result: hit.result,
            started_at: createdAt,
            finished_at: createdAt,
            decision: JSON.stringify({ cachedFrom: hit.id }),
          });
          await this.#publish(session, 'tool.result', { callId, tool: tool.name, cached: true });
          return { kind: 'result', output: JSON.parse(hit.result) as unknown, isError: false };
        }
        await sessionRepository.insertToolCall(db, { ...row, args_hash: contentHash, status: 'approved' });
      } else {
        await sessionRepository.insertToolCall(db, { ...row, status: 'approved' });
      }
      return this.execute(session, tool, callId, input, context);
    }

    if (decision.action === 'auto') {
      await sessionRepository.insertToolCall(db, {
        ...row,
        status: 'approved',
        approved_by: `rule:${decision.rule}`,
        approval_rule: decision.rule,
        decided_at: createdAt,
      });
      await audit.append(
        {
          sessionId: session.id,
          type: 'tool_auto_approved',
          actor: `rule:${decision.rule}`,
          payload: { callId, tool: tool.name, args: input, argsHash, rule: decision.rule, verdict },
        },
        db,
      );
      return this.execute(session, tool, callId, input, context, { approvedBy: `rule:${decision.rule}`, rule: decision.rule, argsHash });
    }

    const expiresAt = this.#env.approvalTtlMs > 0 ? new Date(now().getTime() + this.#env.approvalTtlMs).toISOString() : null;
    await sessionRepository.insertToolCall(db, { ...row, expires_at: expiresAt });
    await audit.append(
      {
        sessionId: session.id,
        type: 'tool_proposed',
        actor,
        payload: {
          callId,
          tool: tool.name,
          args: input,
          argsHash,
          risk: tool.risk,
          verdict,
          requestedBy: session.identity.username,
          expiresAt,
        },
      },
      db,
    );
    const interrupt: Interrupt = {
      type: 'approval',
      id: `approval-${callId}`,
      callId,
      tool: tool.name,
      args: input,
      argsHash,
      risk: tool.risk,
      ...(preview ? { preview } : {}),
      ...(verdict ? { verdict } : {}),
      requestedBy: session.identity.username,
      requestedAt: createdAt,
      ...(expiresAt ? { expiresAt } : {}),
      fourEyes: this.#env.fourEyesTools.has(tool.name),
      ...(assistantText ? { text: assistantText } : {}),
    };
    return { kind: 'interrupt', interrupt };
  }

  /** The context a tool runs with; phase changes apply to the working session at once. */
  createContext(session: WorkingSession, tool: AnyToolDefinition, callId: string): ToolContext {
    const { audit, db, logger, now } = this.#env;
    const workflow = session.agent.parts.workflow;
    const pendingAudits: Array<Promise<unknown>> = [];
    return {
      sessionId: session.id,
      callId,
      agent: session.agent.definition.name,
      identity: session.identity,
      get phase() {
        return session.phase;
      },
      signal: new AbortController().signal,
      logger: logger.child({ sessionId: session.id, tool: tool.name, callId }),
      state: session.state.agentState,
      events: {
        emit: (type, data) => {
          pendingAudits.push(this.#publish(session, type, data).catch((error: unknown) => logger.warn({ err: error }, 'event not stored')));
        },
      },
      setPhase: (phase, reason) => {
        if (workflow && !workflow.phases.some((p) => p.name === phase)) {
          throw CoreErrors.BAD_REQUEST({ detail: `unknown phase "${phase}"; phases: ${workflow.phases.map((p) => p.name).join(', ')}` });
        }
        if (phase === session.row.phase) return;
        const at = now().toISOString();
        const from = session.row.phase;
        session.row = { ...session.row, phase };
        session.state.phaseHistory.push(reason === undefined ? { phase, at } : { phase, at, reason });
        pendingAudits.push(
          audit.append(
            {
              sessionId: session.id,
              type: 'phase_changed',
              actor: `agent:${session.agent.definition.name}`,
              payload: { from, to: phase, reason },
            },
            db,
          ),
        );
        pendingAudits.push(this.#publish(session, 'phase', { from, to: phase, reason }));
      },
      audit: async (type, payload) => {
        await audit.append({ sessionId: session.id, type, actor: `agent:${session.agent.definition.name}`, payload }, db);
      },
    };
  }

  /**
   * Executes a call that may run: moves it to `executing` (at most once), re-checks the validator on
   * the exact arguments, runs the middleware chain, sanitises the output and records the result.
   */
  async execute(
    session: WorkingSession,
    tool: AnyToolDefinition,
    callId: string,
    input: Record<string, unknown>,
    context: ToolContext,
    approval?: ToolCallInvocation['approval'],
  ): Promise<CallOutcome> {
    const { db, audit, now } = this.#env;
    const startedAt = now();
    const claimed = await sessionRepository.transitionToolCall(db, callId, ['approved'], {
      status: 'executing',
      started_at: startedAt.toISOString(),
    });
    if (!claimed) {
      const row = await sessionRepository.getToolCall(db, callId);
      throw CoreErrors.CALL_ALREADY_DECIDED({ callId, status: row?.status ?? 'missing' });
    }
    // `executing` must be on disk before the side effect, so a crash shows the call as unknown.
    if (tool.mutability === 'mutable') await this.#env.flush();
    if (tool.validate) {
      const verdict = await tool.validate(input, context);
      if (verdict.verdict === 'block') {
        await sessionRepository.transitionToolCall(db, callId, ['executing'], {
          status: 'blocked',
          verdict: JSON.stringify(verdict),
          finished_at: now().toISOString(),
        });
        await audit.append(
          {
            sessionId: session.id,
            type: 'tool_blocked',
            actor: 'system',
            payload: { callId, tool: tool.name, reason: verdict.reason, rule: verdict.rule, stage: 'execute' },
          },
          db,
        );
        return { kind: 'result', output: { blocked: true, reason: verdict.reason, rule: verdict.rule }, isError: true };
      }
    }
    const invocation: ToolCallInvocation = { tool, input, context, ...(approval ? { approval } : {}) };
    const chain = session.agent.middleware.reduceRight<() => Promise<unknown>>(
      (next, middleware) => () => middleware.wrap(invocation, next),
      () => tool.execute(input, context),
    );
    let output: unknown;
    let failure: unknown;
    try {
      output = await chain();
    } catch (error) {
      failure = error;
    }
    const finishedAt = now();
    const durationMs = finishedAt.getTime() - startedAt.getTime();
    if (failure !== undefined) {
      const message = errorMessage(failure);
      await sessionRepository.transitionToolCall(db, callId, ['executing'], {
        status: 'failed',
        error: message,
        finished_at: finishedAt.toISOString(),
      });
      await audit.append(
        {
          sessionId: session.id,
          type: 'tool_failed',
          actor: `agent:${session.agent.definition.name}`,
          payload: { callId, tool: tool.name, error: message, durationMs },
        },
        db,
      );
      await this.#publish(session, 'tool.result', { callId, tool: tool.name, status: 'failed', error: message });
      return {
        kind: 'result',
        output: { error: message, ...(OpsgateError.isInstance(failure) ? { code: failure.code } : {}) },
        isError: true,
      };
    }
    let continuation: ToolContinuation | undefined;
    if (output instanceof ToolContinuation) {
      continuation = output;
      output = output.output;
    }
    const forModel = toModelValue(tool, output);
    const resultText = JSON.stringify(forModel);
    await sessionRepository.transitionToolCall(db, callId, ['executing'], {
      status: 'executed',
      result: resultText,
      finished_at: finishedAt.toISOString(),
    });
    await audit.append(
      {
        sessionId: session.id,
        type: 'tool_executed',
        actor: approval?.approvedBy ?? `agent:${session.agent.definition.name}`,
        payload: { callId, tool: tool.name, durationMs, outputHash: sha256(resultText), mutability: tool.mutability },
      },
      db,
    );
    await this.#publish(session, 'tool.result', { callId, tool: tool.name, status: 'executed' });
    if (continuation) {
      return {
        kind: 'interrupt',
        interrupt: { type: 'continue', id: `continue-${callId}`, callId, tool: tool.name, message: continuation.message },
      };
    }
    return { kind: 'result', output: forModel, isError: false };
  }

  async #askQuestion(session: WorkingSession, callId: string, input: Record<string, unknown>): Promise<CallOutcome> {
    const { db, audit, now } = this.#env;
    const question = String(input.question);
    await sessionRepository.insertToolCall(
      db,
      newToolCallRow({
        id: callId,
        session_id: session.id,
        seq: await session.nextToolCallSeq(db),
        tool: HUMAN_INPUT_TOOL,
        args: JSON.stringify(input),
        args_hash: sha256(canonicalJson(input)),
        mutability: 'read-only',
        risk: 'low',
        status: 'proposed',
        requested_by: session.identity.userId,
        created_at: now().toISOString(),
      }),
    );
    await audit.append(
      { sessionId: session.id, type: 'question_asked', actor: `agent:${session.agent.definition.name}`, payload: { callId, question } },
      db,
    );
    return {
      kind: 'interrupt',
      interrupt: {
        type: 'question',
        id: `question-${callId}`,
        callId,
        question,
        options: [...QUESTION_OPTIONS],
        ...(input.context !== undefined ? { context: input.context } : {}),
      },
    };
  }

  async #recordBlocked(
    session: WorkingSession,
    callId: string,
    toolName: string,
    input: unknown,
    reason: string,
    verdict: ValidatorVerdict | undefined,
    actor: string,
  ): Promise<void> {
    const { db, audit, now } = this.#env;
    const args = typeof input === 'string' ? safeJson(input) : input;
    await sessionRepository.insertToolCall(
      db,
      newToolCallRow({
        id: callId,
        session_id: session.id,
        seq: await session.nextToolCallSeq(db),
        tool: toolName,
        args: JSON.stringify(args ?? {}),
        args_hash: sha256(canonicalJson(args ?? {})),
        mutability: 'unknown',
        risk: 'low',
        status: 'blocked',
        verdict: verdict ? JSON.stringify(verdict) : null,
        error: reason,
        requested_by: session.identity.userId,
        created_at: now().toISOString(),
      }),
    );
    await audit.append(
      {
        sessionId: session.id,
        type: 'tool_blocked',
        actor,
        payload: {
          callId,
          tool: toolName,
          args,
          reason,
          ...(verdict ? { rule: verdict.rule, category: verdict.category, segment: verdict.segment } : {}),
        },
      },
      db,
    );
    await this.#publish(session, 'tool.blocked', { callId, tool: toolName, reason });
  }

  #publish(session: WorkingSession, type: string, data: unknown): Promise<unknown> {
    return this.#env.events.publish(session.id, type, data);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { raw: text };
  }
}

/**
 * What reaches the model: strings are ANSI-stripped and truncated at 5,000 characters with a
 * marker (DESIGN §3.6); structured output is kept as JSON but its long strings get the same care.
 */
export function toModelValue(tool: AnyToolDefinition, output: unknown): unknown {
  const shaped = tool.toModelOutput ? tool.toModelOutput(output) : output;
  return sanitizeValue(shaped);
}

function sanitizeValue(value: unknown): unknown {
  if (typeof value === 'string') return sanitizeOutputForModel(value).text;
  if (Array.isArray(value)) return value.map(sanitizeValue);
  if (value !== null && typeof value === 'object') {
    const result: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) result[key] = sanitizeValue(inner);
    return result;
  }
  return value === undefined ? null : value;
}

export type { ApprovalPreview };
