import { userActor } from '../../audit/index.ts';
import type { TrackedCall } from '../tool-call-lifecycle.ts';
import type { CallOutcome } from '../tool-calls.ts';
import type { QuestionAnswer } from '../types.ts';
import type { DecisionMarks } from './authorize-decision.ts';
import type { DecisionContext } from './decision-context.ts';

function answerValue(answer: QuestionAnswer): { answer: string; text?: string } {
  return typeof answer === 'string' ? { answer } : { answer: 'custom', text: answer.custom };
}

/** The person answers the agent's question; the answer is the question call's result. */
export function answerQuestion(
  { session, actor, env }: DecisionContext,
  call: TrackedCall,
  answer: QuestionAnswer,
  marks: DecisionMarks,
): CallOutcome {
  const value = answerValue(answer);
  const at = env.now().toISOString();
  const callId = call.row.id;
  env.lifecycle.transition(session.uow, call, {
    to: 'executed',
    patch: { result: JSON.stringify(value), approved_by: actor.username, decided_at: at, finished_at: at },
    audit: { type: 'question_answered', actor: userActor(actor.username), payload: { callId, ...value, ...marks } },
    live: { type: 'decision', data: { callId, decision: 'answer', ...value, by: actor.username } },
  });
  return { kind: 'result', output: value, isError: false };
}
