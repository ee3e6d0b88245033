import type { Decision, Runtime, TurnResult } from '../core/runtime/index.ts';
import { observeTransactions } from '../core/store/index.ts';
import type { RuntimeMetrics } from '../core/telemetry/index.ts';

const DECISIONS_ON_PROPOSALS: ReadonlySet<Decision['type']> = new Set(['approve', 'reject', 'modify', 'answer']);

/**
 * Reports what can be seen from outside the runtime: turns and their outcomes, how long proposals
 * waited for a decision, store transactions and conflicts (process-wide), and the lag of live
 * events reaching this process. `close()` of the result stops the reporting too.
 */
export function instrumentRuntime(runtime: Runtime, metrics: RuntimeMetrics, now: () => number = Date.now): Runtime {
  observeTransactions({ transaction: (ms, retries) => metrics.storeTransaction(ms, retries) });
  const unsubscribe = runtime.events.subscribe('*', (event) => metrics.liveEventLag(now() - Date.parse(event.createdAt)));
  const turn = async (run: () => Promise<TurnResult>): Promise<TurnResult> => {
    try {
      const result = await run();
      metrics.turn(result.status);
      return result;
    } catch (error) {
      metrics.turn('error');
      throw error;
    }
  };
  return {
    get store() {
      return runtime.store;
    },
    get events() {
      return runtime.events;
    },
    agents: () => runtime.agents(),
    startSession: (input) => runtime.startSession(input),
    send: (sessionId, text, actor) => turn(() => runtime.send(sessionId, text, actor)),
    callTool: (sessionId, call, actor) => turn(() => runtime.callTool(sessionId, call, actor)),
    decide: (sessionId, decision, actor) =>
      turn(async () => {
        const result = await runtime.decide(sessionId, decision, actor);
        const decided = result.session.toolCalls.find((call) => call.id === decision.callId);
        if (decided && DECISIONS_ON_PROPOSALS.has(decision.type)) metrics.approvalWait(now() - Date.parse(decided.createdAt));
        return result;
      }),
    getSession: (sessionId, actor) => runtime.getSession(sessionId, actor),
    listSessions: (actor, filter) => runtime.listSessions(actor, filter),
    recover: () => runtime.recover(),
    addFeedback: (sessionId, actor, input) => runtime.addFeedback(sessionId, actor, input),
    async close() {
      unsubscribe();
      observeTransactions(undefined);
      await runtime.close();
    },
  };
}
