import { randomUUID } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { type AgentDefinition, QUERY_PHASE, type Route, STANDARD_PHASE } from '../agent/define-agent.ts';
import { createStoreSecretStore } from '../agent/secret-store.ts';
import { AuditLog, agentActor, userActor } from '../audit/index.ts';
import { CoreErrors, OpsgateError } from '../errors/index.ts';
import { hasRole, type Identity, ROLE_APPROVER } from '../identity/index.ts';
import { readOnlyRetryMiddleware } from '../middleware/index.ts';
import { createOfflineModel } from '../model/index.ts';
import { createCedarPolicy, loadPolicyDirectory } from '../policy/index.ts';
import { observeTransactions, resolveDataDir, StaleWriteError, shareCommitSlots, UnitOfWork } from '../store/index.ts';
import { NO_OBSERVER } from '../telemetry/index.ts';
import { ToolRegistry } from '../tools/index.ts';
import { listDecidedApprovals, listPendingApprovals } from './approval-inbox.ts';
import { cachedApproverCandidates } from './approver-candidates.ts';
import { decisionFromText } from './chat-decisions.ts';
import { DirectReads } from './direct-reads.ts';
import { SessionEvents } from './events.ts';
import { humanInputTool } from './human-input-tool.ts';
import { toChatMessages } from './messages.ts';
import { readSessionUsage } from './model-usage.ts';
import { recoverInterruptedCalls } from './recovery.ts';
import type { AgentInfo, Runtime, RuntimeOptions } from './runtime-api.ts';
import { RuntimeInstance } from './runtime-instance.ts';
import { SessionCache } from './session-cache.ts';
import { type SessionRow, sessionRepository, type ToolCallRow, toToolCallRecord } from './session-repository.ts';
import { noteCredentialIssuer, parseSessionState, SESSION_STATE_VERSION, type SessionState } from './session-state.ts';
import { SessionVersions } from './session-versions.ts';
import { withTeams } from './team-directory.ts';
import { ToolCallLifecycle, trackStored } from './tool-call-lifecycle.ts';
import { ToolCallProcessor } from './tool-calls.ts';
import { toModelTool } from './tool-schemas.ts';
import { type LoopStatus, TurnEngine } from './turn-engine.ts';
import type { Decision, QuestionAnswer, SessionSnapshot, SessionSummary, TurnResult } from './types.ts';
import { type LoadedAgent, WorkingSession } from './working-session.ts';

const DEFAULT_STEP_LIMIT = 20;
const DEFAULT_APPROVAL_TTL_MS = 24 * 60 * 60 * 1000;
const DEFAULT_HEARTBEAT_MS = 10_000;

function strongestRole(identity: Identity): string {
  for (const role of ['admin', 'approver', 'user']) if (identity.roles.includes(role)) return role;
  return identity.roles[0] ?? 'user';
}

/**
 * Creates the guarded runtime: sets up every agent once, recovers calls a crash left `executing`
 * (they become `unknown`, never re-run), and serves turns and decisions from the store.
 */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const store = options.store;
  const logger: Logger = options.logger ?? pino({ level: 'silent' });
  const now = () => options.clock?.now() ?? new Date();
  const generateId = options.generateId ?? randomUUID;
  const observer = options.observer ?? NO_OBSERVER;
  const audit = new AuditLog(store, now);
  audit.observeAppends((ms) => observer.auditSealed(ms));
  if (options.observer) observeTransactions({ transaction: (ms, retries) => observer.storeTransaction(ms, retries) });
  const events = new SessionEvents(store, now, observer);
  const secrets = options.secrets ?? createStoreSecretStore(store, now);
  const env = options.env ?? process.env;
  const instance = new RuntimeInstance(store, generateId(), now, options.instanceStaleMs);
  const approverCandidates = cachedApproverCandidates(store);
  const processor = new ToolCallProcessor({
    store,
    db: store.db,
    audit,
    events,
    lifecycle: new ToolCallLifecycle(audit, events, observer),
    logger,
    now,
    generateId,
    approvalTtlMs: options.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS,
    policy: options.policy ?? createCedarPolicy(loadPolicyDirectory(options.policyDir)),
    approverCandidates: async () => withTeams(options.teamDirectory, await approverCandidates()),
    withTeams: (people) => withTeams(options.teamDirectory, people),
    runnerId: instance.id,
    observer,
  });
  const engine = new TurnEngine(processor, options.stepLimit ?? DEFAULT_STEP_LIMIT);

  await store.migrate(options.agents.flatMap((agent) => agent.migrations ?? []));
  const loaded = new Map<string, LoadedAgent>();
  for (const definition of options.agents) {
    const parts = await definition.setup({
      store,
      logger: logger.child({ agent: definition.name }),
      dataDir: resolveDataDir(options.dataDir),
      env,
      options: options.agentOptions?.[definition.name] ?? {},
      secrets,
      clock: { now },
    });
    const registry = new ToolRegistry({
      logger,
      onWarning: (warning) => {
        void audit.append({
          type: 'warning',
          actor: agentActor(definition.name),
          payload: { code: warning.code, tool: warning.toolName, message: warning.message },
        });
      },
    });
    for (const tool of parts.tools) registry.register(tool);
    // The agent's own later definition is the one to use, even where a read-only tool became a
    // write: keeping the read-only one would run the write unguarded.
    parts.watchTools?.((tools) => {
      for (const tool of tools) registry.register(tool, { forceOverride: true });
    });
    if (parts.workflow) registry.register(humanInputTool);
    else if (!registry.has(humanInputTool.name)) registry.register({ ...humanInputTool, allowedPhases: [STANDARD_PHASE] });
    const model = options.model?.(definition) ?? createOfflineModel(definition.name, parts.interpreter);
    loaded.set(definition.name, {
      definition,
      parts,
      registry,
      model,
      middleware: [...(parts.middleware ?? []), ...(parts.retryReadOnlyTools === false ? [] : [readOnlyRetryMiddleware()])],
    });
  }

  const agentOf = (name: string): LoadedAgent => {
    const agent = loaded.get(name);
    if (!agent) throw CoreErrors.UNKNOWN_AGENT({ agent: name, available: [...loaded.keys()].join(', ') || '(none)' });
    return agent;
  };

  const directReads = new DirectReads({ env: processor.env, agentOf, roleOf: strongestRole });
  const sessions = new SessionCache();
  const versions = new SessionVersions(store);
  /** The session for one turn: from this process's cache while the stored version matches, else read. `callId`: a decision's call, read as stored in the same query. */
  const loadWorking = async (sessionId: string, callId?: string): Promise<WorkingSession> => {
    const cached = sessions.get(sessionId);
    let row: SessionRow | undefined;
    let storedCall: ToolCallRow | undefined;
    if (cached) {
      const stored = await versions.read(sessionId, callId);
      if (stored?.version === cached.row.version) {
        row = cached.row;
        storedCall = stored.call;
      } else sessions.forget(sessionId);
    }
    const fresh = row === undefined;
    row ??= await sessionRepository.loadSession(store.db, sessionId);
    if (!row) throw CoreErrors.SESSION_NOT_FOUND({ sessionId });
    const messages = fresh ? await sessionRepository.loadMessages(store.db, sessionId) : [...cached!.messages];
    const calls = fresh ? await sessionRepository.loadToolCalls(store.db, sessionId) : cached!.calls;
    if (fresh) storedCall = calls.find((call) => call.id === callId);
    const working = new WorkingSession(row, parseSessionState(row.state), messages, agentOf(row.agent), calls.map(trackStored));
    if (storedCall) working.loadedCall(storedCall);
    working.runner = instance.id;
    return working;
  };

  const mayRead = (row: SessionRow, actor: Identity) => row.user_id === actor.userId || hasRole(actor, ROLE_APPROVER);
  const assertRead = (row: SessionRow, actor: Identity) => {
    if (!mayRead(row, actor)) throw CoreErrors.SESSION_FORBIDDEN({ sessionId: row.id });
  };

  const summary = (row: SessionRow, state: SessionState = parseSessionState(row.state)): SessionSummary => {
    return {
      id: row.id,
      agent: row.agent,
      userId: row.user_id,
      username: state.username,
      pillar: row.pillar,
      route: row.route as Route,
      phase: row.phase,
      status: row.status as SessionSummary['status'],
      title: row.title,
      steps: row.steps,
      waiting: row.status === 'waiting',
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  };

  const snapshotOf = (working: WorkingSession): SessionSnapshot => {
    const calls = working.calls.map((call) => call.row);
    const statuses = new Map(calls.map((c) => [c.id, c.status as never]));
    const phases = working.agent.parts.workflow?.phases.map((p) => ({ name: p.name, title: p.title }));
    return {
      ...summary(working.row, working.state),
      messages: toChatMessages(working.messages, statuses),
      toolCalls: calls.map(toToolCallRecord),
      ...(working.interrupt ? { interrupt: working.interrupt } : {}),
      phaseHistory: working.state.phaseHistory,
      ...(phases ? { phases } : {}),
      agentState: working.state.agentState,
      options: working.state.options,
    };
  };
  const snapshot = async (sessionId: string): Promise<SessionSnapshot> => snapshotOf(await loadWorking(sessionId));

  const finish = (working: WorkingSession, status: LoopStatus, firstNewSeq: number): TurnResult => {
    sessions.put(working);
    observer.turn(working.row.agent, status);
    const session = snapshotOf(working);
    const messages = session.messages.filter((m) => m.seq >= firstNewSeq);
    return { status, messages, ...(session.interrupt ? { interrupt: session.interrupt } : {}), session };
  };

  /** A turn that failed unexpectedly leaves the session usable: idle, with the error said in chat. */
  const guarded = async (working: WorkingSession, run: () => Promise<LoopStatus>): Promise<LoopStatus> => {
    try {
      return await run();
    } catch (error) {
      sessions.forget(working.id);
      observer.turn(working.row.agent, 'failed');
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
  };

  // Recovers what dead instances left `executing` or `running`; live replicas keep theirs, and share the commit slots.
  const recover = async () => {
    const alive = await instance.aliveInstances();
    shareCommitSlots(store, alive.size);
    return recoverInterruptedCalls({ store, lifecycle: processor.env.lifecycle, now, load: loadWorking, alive });
  };
  await instance.register();
  await recover();
  let recovering = false;
  const heartbeat = setInterval(() => {
    if (recovering) return;
    recovering = true;
    void (async () => {
      await instance.heartbeat();
      await recover();
    })()
      .catch((error: unknown) => logger.warn({ err: error }, 'heartbeat or recovery failed'))
      .finally(() => {
        recovering = false;
      });
  }, options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
  heartbeat.unref();

  /**
   * A decision on the approval this process's cached session waits for, taken without reading the
   * stored version first: each of its checkpoints checks the session's version and the call's
   * status anyway, and nothing leaves the process before the first one (the side effect waits for
   * `executing` to be stored). Saves a read (a transaction of its own) per decision. Undefined when
   * the cache cannot answer: the session is not cached or does not wait for that approval there.
   */
  const cachedForDecision = (sessionId: string, callId: string): WorkingSession | undefined => {
    const cached = sessions.get(sessionId);
    if (cached?.row.status !== 'waiting' || !cached.row.interrupt) return undefined;
    const interrupt = JSON.parse(cached.row.interrupt) as { type?: string; callId?: string };
    const call = cached.calls.find((stored) => stored.id === callId);
    if (interrupt.type !== 'approval' || interrupt.callId !== callId || call?.status !== 'proposed') return undefined;
    const working = new WorkingSession(
      cached.row,
      parseSessionState(cached.row.state),
      [...cached.messages],
      agentOf(cached.row.agent),
      cached.calls.map(trackStored),
    );
    working.loadedCall(call);
    working.runner = instance.id;
    return working;
  };
  /** What a decision on a stale cached session fails with before it stored anything: decided elsewhere, or the session moved on. */
  const STALE_DECISION_CODES: ReadonlySet<string> = new Set(['CALL_ALREADY_DECIDED', 'SESSION_BUSY']);

  /** A decision on the session as `working` holds it. */
  const decideOn = async (working: WorkingSession, decision: Decision, actor: Identity): Promise<TurnResult> => {
    const sessionId = working.id;
    if (!mayRead(working.row, actor)) {
      // Every refused decision is audited, also one on a session the person may not see.
      await audit.append({
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
    const status = await guarded(working, () => engine.decide(working, decision, actor));
    return finish(working, status, firstNewSeq);
  };

  const runtime: Runtime = {
    store,
    events,
    agents(): AgentInfo[] {
      return [...loaded.values()].map(({ definition, parts, registry }) => ({
        name: definition.name,
        title: definition.title,
        description: definition.description,
        pillars: definition.pillars ?? [definition.name],
        ...(parts.notice ? { notice: parts.notice } : {}),
        ...(parts.workflow ? { phases: parts.workflow.phases.map((p) => ({ name: p.name, title: p.title })) } : {}),
        help: parts.interpreter?.help ?? [],
        tools: registry.all().map((t) => ({
          name: t.name,
          description: t.description,
          mutability: t.mutability,
          risk: t.risk,
          inputSchema: toModelTool(t).inputSchema as Record<string, unknown>,
        })),
      }));
    },

    async startSession(input) {
      const agent = agentOf(input.agent);
      const pillars = agent.definition.pillars ?? [agent.definition.name];
      const pillar = input.pillar ?? pillars[0]!;
      if (!pillars.includes(pillar))
        throw CoreErrors.BAD_REQUEST({
          detail: `Agent ${agent.definition.name} has no pillar "${pillar}"; use one of ${pillars.join(', ')}.`,
        });
      const at = now().toISOString();
      const state: SessionState = {
        v: SESSION_STATE_VERSION,
        username: input.identity.username,
        roles: [...input.identity.roles],
        ...(input.identity.credentialIssuedBy ? { credentialIssuers: [input.identity.credentialIssuedBy] } : {}),
        agentState: {},
        phaseHistory: [],
        options: { ...(input.options ?? {}) },
        pendingCalls: [],
        turnSteps: 0,
        ...(input.title ? { titledByPerson: true } : {}),
      };
      const row: SessionRow = {
        id: generateId(),
        user_id: input.identity.userId,
        agent: agent.definition.name,
        pillar,
        route: 'standard',
        phase: STANDARD_PHASE,
        role: strongestRole(input.identity),
        title: input.title ?? `${agent.definition.title} session`,
        status: 'idle',
        steps: 0,
        state: JSON.stringify(state),
        interrupt: null,
        version: 1,
        runner: null,
        created_at: at,
        updated_at: at,
      };
      const uow = new UnitOfWork();
      uow.write(async (trx) => sessionRepository.insertSession(trx, row));
      audit.record(uow, {
        sessionId: row.id,
        type: 'session_started',
        actor: userActor(input.identity.username),
        payload: {
          agent: row.agent,
          pillar,
          options: state.options,
          ...(input.identity.credentialIssuedBy ? { credentialIssuedBy: input.identity.credentialIssuedBy } : {}),
        },
      });
      events.record(uow, row.id, 'status', { status: 'idle' });
      await uow.commit(store);
      const working = new WorkingSession(row, state, [], agent);
      sessions.put(working);
      return snapshotOf(working);
    },

    async send(sessionId, text, actor) {
      const working = await loadWorking(sessionId);
      assertRead(working.row, actor);
      if (working.row.status === 'waiting') {
        const decision = decisionFromText(working, text);
        if (!decision)
          throw CoreErrors.SESSION_BUSY({
            sessionId,
            interrupt:
              working.interrupt?.type === 'approval' ? `the approval of ${working.interrupt.tool} (answer yes or no)` : 'a question',
          });
        // A plain "yes" in a chat is a decision like any other, through the same door, recorded as chat.
        return runtime.decide(sessionId, decision, { ...actor, channel: 'chat' });
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
      const status = await guarded(working, () => engine.run(working));
      return finish(working, status, firstNewSeq);
    },

    async callTool(sessionId, call, actor) {
      const working = await loadWorking(sessionId);
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
      const status = await guarded(working, () => engine.run(working));
      return finish(working, status, firstNewSeq);
    },

    readDirect(read, actor) {
      return directReads.run(read, actor);
    },

    async decide(sessionId, decision, actor) {
      const cached = cachedForDecision(sessionId, decision.callId);
      if (cached) {
        const version = cached.row.version;
        try {
          return await decideOn(cached, decision, actor);
        } catch (error) {
          // Only a decision that stored nothing may be taken again, on the session as stored now.
          if (!(OpsgateError.isInstance(error) && STALE_DECISION_CODES.has(error.code) && cached.row.version === version)) throw error;
          sessions.forget(sessionId);
        }
      }
      return decideOn(await loadWorking(sessionId, decision.callId), decision, actor);
    },

    async approvalReadiness(sessionId, callId, actor) {
      const working = await loadWorking(sessionId, callId);
      assertRead(working.row, actor);
      return engine.readiness(working, callId);
    },

    async getSession(sessionId, actor) {
      const row = await sessionRepository.loadSession(store.db, sessionId);
      if (!row) throw CoreErrors.SESSION_NOT_FOUND({ sessionId });
      assertRead(row, actor);
      return snapshot(sessionId);
    },

    async sessionUsage(sessionId, actor) {
      const row = await sessionRepository.loadSession(store.db, sessionId);
      if (!row) throw CoreErrors.SESSION_NOT_FOUND({ sessionId });
      assertRead(row, actor);
      return readSessionUsage(store.db, sessionId);
    },

    pendingApprovals(actor) {
      return listPendingApprovals(
        {
          db: store.db,
          policy: processor.env.policy,
          now,
          withTeams: processor.env.withTeams,
          targetOf: (agent, tool, args) => loaded.get(agent)?.registry.find(tool)?.policyTarget?.(args),
        },
        actor,
      );
    },

    approvalHistory(actor, limit) {
      return listDecidedApprovals(store.db, actor, limit);
    },

    async listSessions(actor, filter = {}) {
      let query = store.db.selectFrom('sessions').selectAll().orderBy('updated_at', 'desc').limit(500);
      if (!(filter.all && hasRole(actor, ROLE_APPROVER))) query = query.where('user_id', '=', actor.userId);
      if (filter.agent) query = query.where('agent', '=', filter.agent);
      return (await query.execute()).map((row) => summary(row));
    },

    async addFeedback(sessionId, actor, input) {
      const row = await sessionRepository.loadSession(store.db, sessionId);
      if (!row) throw CoreErrors.SESSION_NOT_FOUND({ sessionId });
      assertRead(row, actor);
      if (input.rating !== 1 && input.rating !== -1)
        throw CoreErrors.BAD_REQUEST({ detail: 'rating must be 1 (thumbs up) or -1 (thumbs down)' });
      const at = now().toISOString();
      const uow = new UnitOfWork();
      const feedback = {
        session_id: sessionId,
        user_id: actor.userId,
        target: input.target ?? null,
        rating: input.rating,
        comment: input.comment ?? null,
        created_at: at,
      };
      uow.write(async (trx) => {
        await trx.insertInto('feedback').values(feedback).execute();
      });
      audit.record(uow, {
        sessionId,
        type: 'feedback',
        actor: userActor(actor.username),
        payload: { rating: input.rating, target: input.target ?? null, comment: input.comment ?? null },
      });
      events.record(uow, sessionId, 'feedback', { rating: input.rating, target: input.target ?? null });
      await uow.commit(store);
    },

    recover,

    async close() {
      clearInterval(heartbeat);
      await instance.unregister().catch(() => {});
      await events.stop();
      await audit.close();
      for (const agent of loaded.values()) await agent.parts.close?.();
    },
  };
  return runtime;
}

export type { AgentDefinition };
