import type { TurnResult } from '../src/core/runtime/index.ts';
import type { Scenario, SuiteContext, Trace } from './scenario.ts';

const MAX_DECISIONS = 15;

/**
 * Plays one scenario through the real runtime: each message in turn; approval requests answered
 * by the approver (another person), questions by the requester, long commands continued.
 */
export async function runScenario(agent: string, scenario: Scenario, context: SuiteContext): Promise<Trace> {
  const { runtime, approver } = context;
  const requester = scenario.user ?? context.requester;
  await scenario.setup?.(context);
  const session = await runtime.startSession({
    agent,
    identity: requester,
    ...(scenario.pillar ? { pillar: scenario.pillar } : {}),
    ...(scenario.options ? { options: scenario.options } : {}),
  });
  const approvalsAsked: string[] = [];
  let answer = '';
  let error: string | undefined;
  try {
    for (const message of scenario.messages) {
      let turn: TurnResult = await runtime.send(session.id, message, requester);
      for (let decisions = 0; turn.status === 'waiting' && turn.interrupt && decisions < MAX_DECISIONS; decisions += 1) {
        const interrupt = turn.interrupt;
        if (interrupt.type === 'approval') {
          approvalsAsked.push(interrupt.callId);
          turn = await runtime.decide(
            session.id,
            scenario.decision === 'reject'
              ? { type: 'reject', callId: interrupt.callId, reason: 'not now (eval)' }
              : { type: 'approve', callId: interrupt.callId },
            approver,
          );
        } else if (interrupt.type === 'question') {
          turn = await runtime.decide(
            session.id,
            { type: 'answer', callId: interrupt.callId, answer: scenario.answer ?? 'yes' },
            requester,
          );
        } else {
          turn = await runtime.decide(session.id, { type: 'continue', callId: interrupt.callId }, requester);
        }
      }
      answer = turn.messages.filter((m) => m.role === 'assistant').at(-1)?.text ?? answer;
    }
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  }
  const snapshot = await runtime.getSession(session.id, requester);
  const stateProblem = await scenario.verify?.(context);
  return { snapshot, approvalsAsked, answer, ...(error ? { error } : {}), ...(stateProblem ? { stateProblem } : {}) };
}
