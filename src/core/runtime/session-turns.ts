import type { Logger } from 'pino';
import { QUERY_PHASE, STANDARD_PHASE } from '../agent/define-agent.ts';
import { type AuditLog, agentActor, SYSTEM_ACTOR, userActor } from '../audit/index.ts';
import { CoreErrors, OpsgateError } from '../errors/index.ts';
import type { Identity } from '../identity/index.ts';
import { StaleWriteError, type Store } from '../store/index.ts';
import type { RuntimeObserver } from '../telemetry/index.ts';
import { decisionFromText } from './chat-decisions.ts';
import type { SessionEvents } from './events.ts';
import { LocalTurns } from './local-turns.ts';
import { assertRead, mayRead } from './session-access.ts';
import type { SessionLoader } from './session-loader.ts';
import { noteCredentialIssuer } from './session-state.ts';
import { sessionSnapshot } from './session-views.ts';
import type { LoopStatus, TurnEngine } from './turn-engine.ts';
import type { Decision, TurnResult } from './types.ts';
import type { WorkingSession } from './working-session.ts';

/** What a turn on a stale cached session fails with before it stored anything: decided elsewhere, or the session moved on. */
const STALE_DECISION_CODES: ReadonlySet<string> = new Set(['CALL_ALREADY_DECIDED', 'SESSION_BUSY']);

export interface SessionTurnsDeps {
  readonly store: Store;
  readonly audit: AuditLog;
  readonly events: SessionEvents;
  readonly engine: TurnEngine;
  readonly sessions: SessionLoader;
  readonly observer: RuntimeObserver;
  readonly logger: Logger;
  readonly now: () => Date;
  readonly generateId: () => string;
}

/** The three ways a turn starts: a person's message, a client's own tool call, a decision on an interrupt. */
export class SessionTurns {
  readonly #deps: SessionTurnsDeps;
  readonly #local = new LocalTurns();

  constructor(deps: SessionTurnsDeps) {
    this.#deps = deps;
  }

  /**
   * A person's message. On a session this process stored last it is taken without reading the stored
   * version first (`SessionLoader.cachedForMessage`); when the turn's first checkpoint finds the
   * session changed elsewhere — it stored nothing — it is taken again on the session as stored.
   */
  async send(sessionId: string, text: string, actor: Identity): Promise<TurnResult> {
    const { sessions } = this.#deps;
    const turn = this.#local.begin(sessionId);
    try {
      const cached = turn.alone ? sessions.cachedForMessage(sessionId) : undefined;
      if (cached) {
        const version = cached.row.version;
        try {
          return await this.#sendOn(cached, text, actor);
        } catch (error) {
          const stale = OpsgateError.isInstance(error) && STALE_DECISION_CODES.has(error.code) && cached.row.version === version;
          if (!(stale && turn.alone)) throw error;
          sessions.forget(sessionId);
          if (cached.foundStale) sessions.missedUnchecked();
        }
      }
      return await this.#sendOn(await sessions.load(sessionId), text, actor);
    } finally {
      turn.end();
    }
  }

  async #sendOn(working: WorkingSession, text: string, actor: Identity): Promise<TurnResult> {
    const { audit, events, now } = this.#deps;
    const sessionId = working.id;
    assertRead(working.row, actor);
    if (working.row.status === 'waiting') {
      const decision = decisionFromText(working, text);
      if (!decision)
        throw CoreErrors.SESSION_BUSY({
          sessionId,
          interrupt: working.interrupt?.type === 'approval' ? `the approval of ${working.interrupt.tool} (answer yes or no)` : 'a question',
        });
      // A plain "yes" in a chat is a decision like any other, through the same door, recorded as chat.
      return this.decide(sessionId, decision, { ...actor, channel: 'chat' });
    }
    if (working.row.user_id !== actor.userId) throw CoreErrors.SESSION_FORBIDDEN({ sessionId });
    if (working.row.status === 'running') throw CoreErrors.SESSION_BUSY({ sessionId, interrupt: 'a turn that is still running' });
    const trimmed = text.trim();
    if (!trimmed) throw CoreErrors.BAD_REQUEST({ detail: 'The message is empty. Type what you need.' });
    const at = now().toISOString();
    const route = working.agent.parts.route?.(trimmed, working.view()) ?? 'standard';
    const phases = working.agent.parts.workflow?.phases;
    const phase = route === 'workflow' && phases?.[0] ? phases[0].name : route === 'query' ? QUERY_PHASE : STANDARD_PHASE;
    if (route !== working.row.route || phase !== working.row.phase) {
      working.row = { ...working.row, route, phase };
      working.state.phaseHistory.push({ phase, at, reason: `route ${route}` });
      audit.record(working.uow, {
        sessionId,
        type: 'phase_changed',
        actor: agentActor(working.row.agent),
        payload: { to: phase, route },
      });
      events.record(working.uow, sessionId, 'phase', { to: phase, route });
    }
    if (working.messages.length === 0 && working.row.title.endsWith(' session'))
      working.row = { ...working.row, title: trimmed.slice(0, 80) };
    working.state.turnSteps = 0;
    working.channel = actor.channel ?? 'rest';
    noteCredentialIssuer(working.state, actor.credentialIssuedBy);
    const firstNewSeq = working.nextMessageSeq();
    working.save('running', at);
    working.addMessages([{ role: 'user', content: [{ type: 'text', text: trimmed }] }], at);
    events.record(working.uow, sessionId, 'message', { role: 'user', text: trimmed, by: actor.username });
    const status = await this.#guarded(working, () => this.#deps.engine.run(working));
    return this.#finish(working, status, firstNewSeq);
  }

  async callTool(
    sessionId: string,
    call: { readonly tool: string; readonly args: Readonly<Record<string, unknown>> },
    actor: Identity,
  ): Promise<TurnResult> {
    const turn = this.#local.begin(sessionId);
    try {
      return await this.#callTool(sessionId, call, actor);
    } finally {
      turn.end();
    }
  }

  async #callTool(
    sessionId: string,
    call: { readonly tool: string; readonly args: Readonly<Record<string, unknown>> },
    actor: Identity,
  ): Promise<TurnResult> {
    const { events, now, generateId } = this.#deps;
    const working = await this.#deps.sessions.load(sessionId);
    if (working.row.user_id !== actor.userId) throw CoreErrors.SESSION_FORBIDDEN({ sessionId });
    if (working.row.status !== 'idle')
      throw CoreErrors.SESSION_BUSY({
        sessionId,
        interrupt: working.interrupt ? `the pending ${working.interrupt.type}` : 'a turn that is still running',
      });
    const at = now().toISOString();
    // Workflow agents serve their query-phase tools directly; the others their one phase.
    const phase = working.agent.parts.workflow ? QUERY_PHASE : STANDARD_PHASE;
    if (working.row.route !== 'direct' || working.row.phase !== phase) {
      working.row = { ...working.row, route: 'direct', phase };
      working.state.phaseHistory.push({ phase, at, reason: 'route direct' });
    }
    const callId = generateId();
    working.state.turnSteps = 0;
    working.channel = actor.channel ?? 'rest';
    noteCredentialIssuer(working.state, actor.credentialIssuedBy);
    working.state.pendingCalls = [{ callId, toolName: call.tool, input: JSON.stringify(call.args ?? {}) }];
    const firstNewSeq = working.nextMessageSeq();
    working.save('running', at);
    working.addMessages(
      [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: callId, toolName: call.tool, input: call.args ?? {} }] }],
      at,
    );
    events.record(working.uow, sessionId, 'message', {
      role: 'assistant',
      text: '',
      toolCalls: [{ callId, tool: call.tool, args: call.args }],
      by: actor.username,
    });
    const status = await this.#guarded(working, () => this.#deps.engine.run(working));
    return this.#finish(working, status, firstNewSeq);
  }

  async decide(sessionId: string, decision: Decision, actor: Identity): Promise<TurnResult> {
    const turn = this.#local.begin(sessionId);
    try {
      return await this.#decide(sessionId, decision, actor);
    } finally {
      turn.end();
    }
  }

  async #decide(sessionId: string, decision: Decision, actor: Identity): Promise<TurnResult> {
    const { sessions } = this.#deps;
    const cached = sessions.cachedForDecision(sessionId, decision.callId);
    if (cached) {
      const version = cached.row.version;
      try {
        return await this.#decideOn(cached, decision, actor);
      } catch (error) {
        // Only a decision that stored nothing may be taken again, on the session as stored now.
        if (!(OpsgateError.isInstance(error) && STALE_DECISION_CODES.has(error.code) && cached.row.version === version)) throw error;
        sessions.forget(sessionId);
      }
    }
    return this.#decideOn(await sessions.load(sessionId, decision.callId), decision, actor);
  }

  /** A decision on the session as `working` holds it. */
  async #decideOn(working: WorkingSession, decision: Decision, actor: Identity): Promise<TurnResult> {
    const sessionId = working.id;
    if (!mayRead(working.row, actor)) {
      // Every refused decision is audited, also one on a session the person may not see.
      await this.#deps.audit.append({
        sessionId,
        type: 'approval_refused',
        actor: userActor(actor.username),
        payload: { callId: decision.callId, reason: 'not the owner of the session and not an approver' },
      });
      throw CoreErrors.SESSION_FORBIDDEN({ sessionId });
    }
    if (working.row.status !== 'waiting' || !working.interrupt) throw CoreErrors.NO_PENDING_INTERRUPT({ sessionId });
    const firstNewSeq = working.nextMessageSeq();
    working.channel = actor.channel ?? 'rest';
    const status = await this.#guarded(working, () => this.#deps.engine.decide(working, decision, actor));
    return this.#finish(working, status, firstNewSeq);
  }

  #finish(working: WorkingSession, status: LoopStatus, firstNewSeq: number): TurnResult {
    this.#deps.sessions.remember(working);
    this.#deps.observer.turn(working.row.agent, status);
    const session = sessionSnapshot(working);
    const messages = session.messages.filter((m) => m.seq >= firstNewSeq);
    return { status, messages, ...(session.interrupt ? { interrupt: session.interrupt } : {}), session };
  }

  /** A turn that failed unexpectedly leaves the session usable: idle, with the error said in chat. */
  async #guarded(working: WorkingSession, run: () => Promise<LoopStatus>): Promise<LoopStatus> {
    const { store, logger, now } = this.#deps;
    try {
      return await run();
    } catch (error) {
      this.#deps.sessions.forget(working.id);
      this.#deps.observer.turn(working.row.agent, 'failed');
      await this.#keepStrandedAudit(working);
      // Keep what the turn did so far (the person's message, calls that ran) and free the session.
      if (!(error instanceof StaleWriteError) && !working.uow.isEmpty) {
        working.save('idle', now().toISOString());
        await working
          .commit(store)
          .catch((commitError: unknown) => logger.warn({ err: commitError, sessionId: working.id }, 'could not store a failed turn'));
      } else {
        working.uow.discard();
      }
      if (error instanceof StaleWriteError) throw CoreErrors.SESSION_BUSY({ sessionId: working.id, interrupt: 'another process' });
      if (OpsgateError.isInstance(error)) throw error;
      logger.error({ err: error, sessionId: working.id }, 'turn failed');
      throw CoreErrors.MODEL_ERROR({ detail: error instanceof Error ? error.message : String(error) }, { cause: error });
    }
  }

  /**
   * Tools that ran before a checkpoint found the session changed elsewhere are audited all the same:
   * their events are stored on their own, with a warning that says why the rest of the turn is not.
   */
  async #keepStrandedAudit(working: WorkingSession): Promise<void> {
    const stranded = working.takeStrandedAudit();
    if (!stranded) return;
    this.#deps.audit.record(stranded, {
      sessionId: working.id,
      type: 'warning',
      actor: SYSTEM_ACTOR,
      payload: {
        code: 'SESSION_CHANGED_ELSEWHERE',
        message: 'Another process changed this session during the turn: the tools above ran, the rest of the turn was not stored.',
      },
    });
    await stranded
      .commit(this.#deps.store)
      .catch((error: unknown) =>
        this.#deps.logger.error({ err: error, sessionId: working.id }, 'could not store the audit of a stale turn'),
      );
  }
}
