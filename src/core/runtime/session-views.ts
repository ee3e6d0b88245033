import type { Route } from '../agent/define-agent.ts';
import { toChatMessages } from './messages.ts';
import { type SessionRow, toToolCallRecord } from './session-repository.ts';
import { parseSessionState, type SessionState } from './session-state.ts';
import type { SessionSnapshot, SessionSummary } from './types.ts';
import type { WorkingSession } from './working-session.ts';

/** A stored session as lists show it. */
export function sessionSummary(row: SessionRow, state: SessionState = parseSessionState(row.state)): SessionSummary {
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
}

/** A session with its chat, calls and state, as a client shows it. */
export function sessionSnapshot(working: WorkingSession): SessionSnapshot {
  const calls = working.calls.map((call) => call.row);
  const statuses = new Map(calls.map((c) => [c.id, c.status as never]));
  const phases = working.agent.parts.workflow?.phases.map((p) => ({ name: p.name, title: p.title }));
  return {
    ...sessionSummary(working.row, working.state),
    messages: toChatMessages(working.messages, statuses),
    toolCalls: calls.map(toToolCallRecord),
    ...(working.interrupt ? { interrupt: working.interrupt } : {}),
    phaseHistory: working.state.phaseHistory,
    ...(phases ? { phases } : {}),
    agentState: working.state.agentState,
    options: working.state.options,
  };
}
