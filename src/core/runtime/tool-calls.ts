import { createHash } from 'node:crypto';
import type { ToolCallInvocation } from '../agent/define-agent.ts';
import { canonicalJson } from '../audit/canonical-json.ts';
import { CoreErrors, OpsgateError } from '../errors/index.ts';
import { approvalHash, decidePolicy } from '../policy/index.ts';
import { type AnyToolDefinition, assessToolRisk, type ValidatorVerdict } from '../tools/index.ts';
import { HUMAN_INPUT_TOOL, QUESTION_OPTIONS } from './human-input-tool.ts';
import { toModelValue } from './model-output.ts';
import { newToolCallRow, sessionRepository } from './session-repository.ts';
import type { ToolCallEnvironment } from './tool-call-environment.ts';
import { createToolContext, type ToolContextHandle } from './tool-context.ts';
import { ToolContinuation } from './tool-continuation.ts';
import { prepareInput } from './tool-input.ts';
import type { Interrupt } from './types.ts';
import type { WorkingSession } from './working-session.ts';

/** What the model gets back for one call. */
export type CallOutcome =
  | { readonly kind: 'result'; readonly output: unknown; readonly isError: boolean }
  | { readonly kind: 'denied'; readonly reason: string }
  | { readonly kind: 'interrupt'; readonly interrupt: Interrupt };

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function errorMessage(error: unknown): string {
  if (OpsgateError.isInstance(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
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

    const context = createToolContext(this.#env, session, tool, callId);
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
    const risk = assessToolRisk(tool, input, preview);
    const createdAt = now().toISOString();
    const row = newToolCallRow({
      id: callId,
      session_id: session.id,
      seq: await session.nextToolCallSeq(db),
      tool: tool.name,
      args: JSON.stringify(input),
      args_hash: argsHash,
      mutability: tool.mutability,
      risk: risk.level,
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
          risk: risk.level,
          riskReason: risk.reason,
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
      risk: risk.level,
      riskReason: risk.reason,
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

  /**
   * Executes a call that may run: moves it to `executing` (at most once), re-checks the validator on
   * the exact arguments, runs the middleware chain, sanitises the output and records the result.
   */
  async execute(
    session: WorkingSession,
    tool: AnyToolDefinition,
    callId: string,
    input: Record<string, unknown>,
    context: ToolContextHandle,
    approval?: ToolCallInvocation['approval'],
  ): Promise<CallOutcome> {
    const { db, audit, now } = this.#env;
    const startedAt = now();
    const claimed = await sessionRepository.transitionToolCall(db, callId, ['approved'], {
      status: 'executing',
      started_at: startedAt.toISOString(),
      runner: this.#env.runnerId,
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
    // What the tool announced (phase changes, terminal output) lands before its result.
    await context.settle();
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
        // Who made it run: the approving person, the named rule, or the agent for read-only calls.
        actor: approval
          ? approval.approvedBy.includes(':')
            ? approval.approvedBy
            : `user:${approval.approvedBy}`
          : `agent:${session.agent.definition.name}`,
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
