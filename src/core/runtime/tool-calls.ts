import { createHash } from 'node:crypto';
import type { ToolCallInvocation } from '../agent/define-agent.ts';
import { agentActor, approverActor, canonicalJson, ruleActor, SYSTEM_ACTOR } from '../audit/index.ts';
import { CoreErrors, OpsgateError } from '../errors/index.ts';
import { approvalHash, decidePolicy } from '../policy/index.ts';
import { isStoreError, StaleWriteError } from '../store/index.ts';
import { withToolSpan } from '../telemetry/index.ts';
import { type AnyToolDefinition, assessToolRisk, type Risk, type ValidatorVerdict } from '../tools/index.ts';
import { eligibleApprovers, policySubject, requesterCredentialMark } from './approval-policy.ts';
import { HUMAN_INPUT_TOOL, QUESTION_OPTIONS } from './human-input-tool.ts';
import { toModelValue } from './model-output.ts';
import { newToolCallRow, sessionRepository } from './session-repository.ts';
import type { ToolCallEnvironment } from './tool-call-environment.ts';
import { proposalAudit, type TrackedCall } from './tool-call-lifecycle.ts';
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

export function errorMessage(error: unknown): string {
  if (OpsgateError.isInstance(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}

function errorResult(error: unknown): CallOutcome {
  return {
    kind: 'result',
    output: { error: errorMessage(error), code: OpsgateError.isInstance(error) ? error.code : 'ERROR' },
    isError: true,
  };
}

/** Who approved a call, as the execution records it. */
export interface ExecutionApproval {
  readonly approvedBy: string;
  readonly rule?: string;
  readonly argsHash: string;
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
    const { db, now, lifecycle } = this.#env;
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
      await this.#recordBlocked(session, callId, toolName, rawInput, errorMessage(error), undefined);
      return errorResult(error);
    }

    let input: Record<string, unknown>;
    try {
      input = prepareInput(tool, rawInput, session);
    } catch (error) {
      if (OpsgateError.isInstance(error) && error.code === 'IDENTITY_MISMATCH')
        await this.#recordBlocked(session, callId, toolName, rawInput, errorMessage(error), undefined);
      return errorResult(error);
    }

    if (tool.name === HUMAN_INPUT_TOOL) return this.#askQuestion(session, callId, input);

    const context = createToolContext(this.#env, session, tool, callId);
    const verdict = tool.validate ? await tool.validate(input, context) : undefined;
    const subject = await policySubject(this.#env, session);
    const decideFor = (riskLevel: Risk) =>
      decidePolicy({
        ...subject,
        tool,
        input,
        risk: riskLevel,
        verdict,
        autoApproveRules: session.agent.parts.autoApproveRules ?? [],
        sessionOptions: session.state.options,
      });
    const assessed = assessToolRisk(tool, input).level;
    let decision = decideFor(assessed);
    const preview = decision.action === 'ask' || decision.action === 'auto' ? await tool.preview?.(input, context) : undefined;
    const risk = assessToolRisk(tool, input, preview);
    // An auto-approval holds only for the risk the preview shows (rows a statement really touches).
    if (decision.action === 'auto' && risk.level !== assessed) decision = decideFor(risk.level);
    if (decision.action === 'block') {
      await this.#recordBlocked(session, callId, toolName, input, decision.reason, verdict, decision.policyId);
      return {
        kind: 'result',
        output: { blocked: true, reason: decision.reason, policyId: decision.policyId, ...(verdict?.rule ? { rule: verdict.rule } : {}) },
        isError: true,
      };
    }

    const argsHash = approvalHash(callId, tool.name, input, preview?.bindingDigest);
    const createdAt = now().toISOString();
    const row = newToolCallRow({
      id: callId,
      session_id: session.id,
      seq: session.nextToolCallSeq(),
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
      if (tool.mutability === 'read-only' && tool.cache !== false) {
        const contentHash = sha256(canonicalJson([tool.name, input]));
        const hit = await sessionRepository.findCachedResult(db, session.id, tool.name, contentHash);
        if (hit?.result) {
          lifecycle.create(
            session,
            {
              ...row,
              args_hash: contentHash,
              status: 'executed',
              result: hit.result,
              started_at: createdAt,
              finished_at: createdAt,
              decision: JSON.stringify({ cachedFrom: hit.id }),
            },
            { live: { type: 'tool.result', data: { callId, tool: tool.name, cached: true } } },
          );
          return { kind: 'result', output: JSON.parse(hit.result) as unknown, isError: false };
        }
        const call = lifecycle.create(session, { ...row, args_hash: contentHash, status: 'approved' });
        return this.execute(session, tool, call, input, context);
      }
      const call = lifecycle.create(session, { ...row, status: 'approved' });
      return this.execute(session, tool, call, input, context);
    }

    if (decision.action === 'auto') {
      const rule = ruleActor(decision.rule);
      const call = lifecycle.create(
        session,
        { ...row, status: 'approved', approved_by: rule, approval_rule: decision.rule, decided_at: createdAt },
        {
          audit: {
            type: 'tool_auto_approved',
            actor: rule,
            payload: {
              callId,
              tool: tool.name,
              args: input,
              argsHash,
              risk: risk.level,
              rule: decision.rule,
              policyId: decision.policyId,
              verdict,
              channel: 'policy',
            },
          },
        },
      );
      return this.execute(session, tool, call, input, context, { approvedBy: rule, rule: decision.rule, argsHash });
    }

    const expiresAt = this.#env.approvalTtlMs > 0 ? new Date(now().getTime() + this.#env.approvalTtlMs).toISOString() : null;
    lifecycle.create(
      session,
      { ...row, expires_at: expiresAt },
      {
        audit: proposalAudit(
          agentActor(session.agent.definition.name),
          { callId, tool: tool.name, args: input, argsHash, risk: risk.level, verdict, requestedBy: session.identity.username },
          {
            riskReason: risk.reason,
            expiresAt,
            policyId: decision.policyId,
            requiredApprovals: decision.requiredApprovals,
            ...requesterCredentialMark(session),
          },
        ),
      },
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
      ...requesterCredentialMark(session),
      requestedAt: createdAt,
      ...(expiresAt ? { expiresAt } : {}),
      policyId: decision.policyId,
      requiredApprovals: decision.requiredApprovals,
      approvals: [],
      eligibleApprovers: await eligibleApprovers(this.#env, session, tool, input, [], risk.level),
      ...(assistantText ? { text: assistantText } : {}),
    };
    return { kind: 'interrupt', interrupt };
  }

  /**
   * Executes a call that may run: moves it to `executing` (stored before a mutable side effect, at
   * most once), re-checks the validator on the exact arguments, runs the middleware chain,
   * sanitises the output and records the result.
   */
  async execute(
    session: WorkingSession,
    tool: AnyToolDefinition,
    call: TrackedCall,
    input: Record<string, unknown>,
    context: ToolContextHandle,
    approval?: ExecutionApproval,
  ): Promise<CallOutcome> {
    const { now, lifecycle, store } = this.#env;
    const callId = call.row.id;
    const startedAt = now();
    const mutable = tool.mutability === 'mutable';
    const runBy = approval ? approverActor(approval.approvedBy) : agentActor(session.agent.definition.name);
    lifecycle.transition(session.uow, call, {
      to: 'executing',
      patch: { started_at: startedAt.toISOString(), runner: this.#env.runnerId },
      ...(mutable
        ? { audit: { type: 'tool_executing', actor: runBy, payload: { callId, tool: tool.name, argsHash: call.row.args_hash } } }
        : {}),
    });
    if (mutable) {
      // `executing` and its audit event are stored before the side effect: a crash from here on
      // shows the call as unknown, never runs it twice, and never leaves a side effect unaudited.
      session.save('running', startedAt.toISOString());
      try {
        await session.commit(store);
      } catch (error) {
        if (error instanceof StaleWriteError)
          throw CoreErrors.CALL_ALREADY_DECIDED({ callId, tool: tool.name, status: 'decided elsewhere' });
        throw error;
      }
    }
    if (tool.validate) {
      const verdict = await tool.validate(input, context);
      if (verdict.verdict === 'block') {
        lifecycle.transition(session.uow, call, {
          to: 'blocked',
          patch: { verdict: JSON.stringify(verdict), finished_at: now().toISOString() },
          audit: {
            type: 'tool_blocked',
            actor: SYSTEM_ACTOR,
            payload: { callId, tool: tool.name, reason: verdict.reason, rule: verdict.rule, stage: 'execute' },
          },
        });
        return { kind: 'result', output: { blocked: true, reason: verdict.reason, rule: verdict.rule }, isError: true };
      }
    }
    session.noteRun();
    const invocation: ToolCallInvocation = { tool, input, context, ...(approval ? { approval } : {}) };
    const chain = session.agent.middleware.reduceRight<() => Promise<unknown>>(
      (next, middleware) => () => middleware.wrap(invocation, next),
      () => tool.execute(input, context),
    );
    let output: unknown;
    let failure: unknown;
    try {
      output = await withToolSpan({ tool: tool.name, callId, description: tool.description, mutability: tool.mutability }, chain);
    } catch (error) {
      failure = error;
    }
    // What the tool announced (phase changes, terminal output) lands before its result.
    await context.settle();
    const finishedAt = now();
    const durationMs = finishedAt.getTime() - startedAt.getTime();
    if (failure !== undefined && mutable && isStoreError(failure)) {
      // The tool got as far as its own bookkeeping: the side effect may well have happened. Saying
      // "failed" would invite a second run, so the call is unknown and is never re-run.
      const unknown = CoreErrors.CALL_OUTCOME_UNKNOWN({ tool: tool.name, detail: errorMessage(failure) });
      lifecycle.transition(session.uow, call, {
        to: 'unknown',
        patch: { error: unknown.message, finished_at: finishedAt.toISOString() },
        audit: {
          type: 'tool_unknown',
          actor: SYSTEM_ACTOR,
          payload: {
            callId,
            tool: tool.name,
            reason: 'store failure after the side effect began',
            error: errorMessage(failure),
            durationMs,
          },
        },
        live: { type: 'tool.result', data: { callId, tool: tool.name, status: 'unknown', error: unknown.message } },
      });
      return { kind: 'result', output: { error: unknown.message, code: unknown.code }, isError: true };
    }
    if (failure !== undefined) {
      const message = errorMessage(failure);
      // A tool that lost its side effect's answer (a remote server died mid-call) says so: the
      // call becomes `unknown`, like one a crash interrupted, and is never offered to run again.
      const status = mutable && OpsgateError.isInstance(failure) && failure.fields.outcomeUnknown === true ? 'unknown' : 'failed';
      lifecycle.transition(session.uow, call, {
        to: status,
        patch: { error: message, finished_at: finishedAt.toISOString() },
        audit: {
          type: status === 'unknown' ? 'tool_unknown' : 'tool_failed',
          actor: agentActor(session.agent.definition.name),
          payload: { callId, tool: tool.name, error: message, durationMs },
        },
        live: { type: 'tool.result', data: { callId, tool: tool.name, status, error: message } },
      });
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
    lifecycle.transition(session.uow, call, {
      to: 'executed',
      patch: { result: resultText, finished_at: finishedAt.toISOString() },
      // Who made it run: the approving person, the named rule, or the agent for read-only calls.
      audit: {
        type: 'tool_executed',
        actor: runBy,
        payload: { callId, tool: tool.name, durationMs, outputHash: sha256(resultText), mutability: tool.mutability },
      },
      live: { type: 'tool.result', data: { callId, tool: tool.name, status: 'executed' } },
    });
    if (continuation) {
      return {
        kind: 'interrupt',
        interrupt: { type: 'continue', id: `continue-${callId}`, callId, tool: tool.name, message: continuation.message },
      };
    }
    return { kind: 'result', output: forModel, isError: false };
  }

  async #askQuestion(session: WorkingSession, callId: string, input: Record<string, unknown>): Promise<CallOutcome> {
    const { now, lifecycle } = this.#env;
    const question = String(input.question);
    lifecycle.create(
      session,
      newToolCallRow({
        id: callId,
        session_id: session.id,
        seq: session.nextToolCallSeq(),
        tool: HUMAN_INPUT_TOOL,
        args: JSON.stringify(input),
        args_hash: sha256(canonicalJson(input)),
        mutability: 'read-only',
        risk: 'low',
        status: 'proposed',
        requested_by: session.identity.userId,
        created_at: now().toISOString(),
      }),
      { audit: { type: 'question_asked', actor: agentActor(session.agent.definition.name), payload: { callId, question } } },
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
    policyId?: string,
  ): Promise<void> {
    const { now, lifecycle } = this.#env;
    const args = typeof input === 'string' ? safeJson(input) : input;
    lifecycle.create(
      session,
      newToolCallRow({
        id: callId,
        session_id: session.id,
        seq: session.nextToolCallSeq(),
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
      {
        audit: {
          type: 'tool_blocked',
          actor: agentActor(session.agent.definition.name),
          payload: {
            callId,
            tool: toolName,
            args,
            reason,
            ...(policyId ? { policyId } : {}),
            ...(verdict ? { rule: verdict.rule, category: verdict.category, segment: verdict.segment } : {}),
          },
        },
        live: { type: 'tool.blocked', data: { callId, tool: toolName, reason } },
      },
    );
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { raw: text };
  }
}
