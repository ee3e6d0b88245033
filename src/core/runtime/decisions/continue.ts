import type { CallOutcome } from '../tool-calls.ts';
import type { DecisionContext } from './decision-context.ts';

/** "Read Output & Continue": the long-running call's output so far becomes its result for the model. */
export async function continueAfterSoftTimeout({ env }: DecisionContext, callId: string): Promise<CallOutcome> {
  const row = await env.db.selectFrom('tool_calls').select('result').where('id', '=', callId).executeTakeFirst();
  return { kind: 'result', output: row?.result ? (JSON.parse(row.result) as unknown) : null, isError: false };
}
