import { STANDARD_PHASE } from '../agent/define-agent.ts';
import { type AuditLog, userActor } from '../audit/index.ts';
import { CoreErrors } from '../errors/index.ts';
import { type Store, UnitOfWork } from '../store/index.ts';
import type { SessionEvents } from './events.ts';
import { strongestRole } from './session-access.ts';
import { type SessionRow, sessionRepository } from './session-repository.ts';
import { SESSION_STATE_VERSION, type SessionState } from './session-state.ts';
import type { StartSessionInput } from './types.ts';
import { type LoadedAgent, WorkingSession } from './working-session.ts';

export interface SessionStartDeps {
  readonly store: Store;
  readonly audit: AuditLog;
  readonly events: SessionEvents;
  readonly now: () => Date;
  readonly generateId: () => string;
}

/** Stores a new idle session of `agent` for the person in `input`, audited as `session_started`. */
export async function startSession(deps: SessionStartDeps, agent: LoadedAgent, input: StartSessionInput): Promise<WorkingSession> {
  const pillars = agent.definition.pillars ?? [agent.definition.name];
  const pillar = input.pillar ?? pillars[0]!;
  if (!pillars.includes(pillar))
    throw CoreErrors.BAD_REQUEST({
      detail: `Agent ${agent.definition.name} has no pillar "${pillar}"; use one of ${pillars.join(', ')}.`,
    });
  const at = deps.now().toISOString();
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
    id: deps.generateId(),
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
  // Sessions started at once are stored by one statement: nothing in the commit refers to the row.
  uow.share('new_sessions', row, sessionRepository.insertSessions);
  deps.audit.record(uow, {
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
  deps.events.created(row.id);
  deps.events.record(uow, row.id, 'status', { status: 'idle' });
  // Nothing irreversible follows a start: lost in a server crash, the session is started again.
  await uow.commit(deps.store, { effectFollows: false });
  return new WorkingSession(row, state, [], agent);
}
