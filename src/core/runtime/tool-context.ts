import { agentActor } from '../audit/index.ts';
import { CoreErrors } from '../errors/index.ts';
import type { AnyToolDefinition, ToolContext } from '../tools/index.ts';
import type { ToolCallEnvironment } from './tool-call-environment.ts';
import type { WorkingSession } from './working-session.ts';

/** A tool's context, plus the live events it started and that must land before its result. */
export interface ToolContextHandle extends ToolContext {
  /** Waits for the live events the tool published (terminal output). */
  settle(): Promise<void>;
}

/** The context a tool runs with; phase changes apply to the working session at once. */
export function createToolContext(
  env: ToolCallEnvironment,
  session: WorkingSession,
  tool: AnyToolDefinition,
  callId: string,
): ToolContextHandle {
  const { audit, logger, now, events } = env;
  const actor = agentActor(session.agent.definition.name);
  const workflow = session.agent.parts.workflow;
  const pending: Array<Promise<unknown>> = [];
  const track = (work: Promise<unknown>, what: string) => {
    pending.push(work.catch((error: unknown) => logger.warn({ err: error, sessionId: session.id, tool: tool.name }, `${what} not stored`)));
  };
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
      emit: (type, data) => track(events.publish(session.id, type, data), `event ${type}`),
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
      audit.record(session.uow, { sessionId: session.id, type: 'phase_changed', actor, payload: { from, to: phase, reason } });
      events.record(session.uow, session.id, 'phase', { from, to: phase, reason });
    },
    // Stored with the call's result, in the same transaction.
    audit: async (type, payload) => {
      audit.record(session.uow, { sessionId: session.id, type, actor, payload });
    },
    async settle() {
      while (pending.length > 0) await Promise.all(pending.splice(0));
    },
  };
}
