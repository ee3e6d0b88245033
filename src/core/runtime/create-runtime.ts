import { randomUUID } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { createStoreSecretStore } from '../agent/secret-store.ts';
import { AuditLog } from '../audit/index.ts';
import { CoreErrors } from '../errors/index.ts';
import { hasRole, type Identity, ROLE_APPROVER } from '../identity/index.ts';
import { createCedarPolicy, loadPolicyDirectory } from '../policy/index.ts';
import { observeTransactions } from '../store/index.ts';
import { NO_OBSERVER } from '../telemetry/index.ts';
import { listDecidedApprovals, listPendingApprovals } from './approval-inbox.ts';
import { cachedApproverCandidates } from './approver-candidates.ts';
import { DirectReads } from './direct-reads.ts';
import { SessionEvents } from './events.ts';
import { InstanceHeartbeat } from './instance-heartbeat.ts';
import { LoadedAgents } from './loaded-agents.ts';
import { readSessionUsage } from './model-usage.ts';
import type { Runtime, RuntimeOptions } from './runtime-api.ts';
import { RuntimeInstance } from './runtime-instance.ts';
import { assertRead, strongestRole } from './session-access.ts';
import { recordFeedback } from './session-feedback.ts';
import { SessionLoader } from './session-loader.ts';
import { type SessionRow, sessionRepository } from './session-repository.ts';
import { startSession } from './session-start.ts';
import { SessionTurns } from './session-turns.ts';
import { sessionSnapshot, sessionSummary } from './session-views.ts';
import { withTeams } from './team-directory.ts';
import { ToolCallLifecycle } from './tool-call-lifecycle.ts';
import { ToolCallProcessor } from './tool-calls.ts';
import { TurnEngine } from './turn-engine.ts';

const DEFAULT_STEP_LIMIT = 20;
const DEFAULT_APPROVAL_TTL_MS = 24 * 60 * 60 * 1000;
const DEFAULT_HEARTBEAT_MS = 10_000;

/**
 * Creates the guarded runtime: sets up every agent once, recovers calls a crash left `executing`
 * (they become `unknown`, never re-run), and serves turns and decisions from the store. The parts,
 * by role: `LoadedAgents` (agent setup), `SessionLoader` (sessions for a turn), `SessionTurns`
 * (message, client call, decision), `InstanceHeartbeat` (liveness and recovery), `session-access`
 * (who may read), `session-views` (what clients see).
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

  const agents = await LoadedAgents.setUp(options, { store, audit, logger, secrets, env: options.env ?? process.env, now });
  const agentOf = (name: string) => agents.get(name);
  const directReads = new DirectReads({ env: processor.env, agentOf, roleOf: strongestRole });
  const sessions = new SessionLoader(store, agentOf, instance.id);
  const turns = new SessionTurns({ store, audit, events, engine, sessions, observer, logger, now, generateId });
  const heartbeat = new InstanceHeartbeat({
    store,
    audit,
    instance,
    lifecycle: processor.env.lifecycle,
    now,
    load: (sessionId) => sessions.load(sessionId),
    logger,
    intervalMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
  });
  await heartbeat.start();

  const readableRow = async (sessionId: string, actor: Identity): Promise<SessionRow> => {
    const row = await sessionRepository.loadSession(store.db, sessionId);
    if (!row) throw CoreErrors.SESSION_NOT_FOUND({ sessionId });
    assertRead(row, actor);
    return row;
  };

  return {
    store,
    events,
    agents: () => agents.infos(),

    async startSession(input) {
      const working = await startSession({ store, audit, events, now, generateId }, agents.get(input.agent), input);
      sessions.remember(working);
      return sessionSnapshot(working);
    },

    send: (sessionId, text, actor) => turns.send(sessionId, text, actor),
    callTool: (sessionId, call, actor) => turns.callTool(sessionId, call, actor),
    readDirect: (read, actor) => directReads.run(read, actor),
    planRead: (read, actor) => directReads.plan(read, actor),
    decide: (sessionId, decision, actor) => turns.decide(sessionId, decision, actor),

    async approvalReadiness(sessionId, callId, actor) {
      const working = await sessions.load(sessionId, callId);
      assertRead(working.row, actor);
      return engine.readiness(working, callId);
    },

    async getSession(sessionId, actor) {
      await readableRow(sessionId, actor);
      return sessionSnapshot(await sessions.load(sessionId));
    },

    async sessionUsage(sessionId, actor) {
      await readableRow(sessionId, actor);
      return readSessionUsage(store.db, sessionId);
    },

    pendingApprovals(actor) {
      return listPendingApprovals(
        {
          db: store.db,
          policy: processor.env.policy,
          now,
          withTeams: processor.env.withTeams,
          targetOf: (agent, tool, args) => agents.find(agent)?.registry.find(tool)?.policyTarget?.(args),
        },
        actor,
      );
    },

    approvalHistory: (actor, limit) => listDecidedApprovals(store.db, actor, limit),

    async listSessions(actor, filter = {}) {
      let query = store.db.selectFrom('sessions').selectAll().orderBy('updated_at', 'desc').limit(500);
      if (!(filter.all && hasRole(actor, ROLE_APPROVER))) query = query.where('user_id', '=', actor.userId);
      if (filter.agent) query = query.where('agent', '=', filter.agent);
      return (await query.execute()).map((row) => sessionSummary(row));
    },

    async addFeedback(sessionId, actor, input) {
      await readableRow(sessionId, actor);
      await recordFeedback({ store, audit, events, now }, sessionId, actor, input);
    },

    recover: () => heartbeat.recover(),

    async close() {
      await heartbeat.stop();
      await events.stop();
      await audit.close();
      await agents.close();
    },
  };
}
