// The OpenAI Agents SDK's approval round trip for the HITL benchmark: `needsApproval` on the
// mutable tool, `RunState` serialised to a string and stored, restored, approved, run again.
// Its model is a scripted `Model` making the same decisions as the ledger mock model.
import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  RunState,
  run,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';
import { z } from 'zod';

function lastResult(input: ModelRequest['input']): { name?: string } | undefined {
  if (typeof input === 'string') return undefined;
  const results = (input as AgentInputItem[]).filter((item) => item.type === 'function_call_result');
  return results.at(-1) as { name?: string } | undefined;
}

const scriptedModel: Model = {
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const last = lastResult(request.input);
    const call = (name: string, args: unknown) => ({
      type: 'function_call' as const,
      callId: `c-${name}-${Math.random()}`,
      name,
      arguments: JSON.stringify(args),
      status: 'completed' as const,
    });
    if (!last) return { usage: new Usage(), output: [call('read_balance', {})] };
    if (last.name === 'read_balance') return { usage: new Usage(), output: [call('transfer', { to: 'bob', amount: 30 })] };
    return {
      usage: new Usage(),
      output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Done' }] }],
    };
  },
  getStreamedResponse() {
    throw new Error('not used');
  },
};

/** Where the paused run's state string is kept: one row per pause (SQLite or PostgreSQL). */
export interface StateRows {
  save(state: string): Promise<number> | number;
  load(id: number): Promise<string> | string;
}

/** One scenario per call: message → read → mutable call paused → state stored → restored → approved → final answer. */
export function createOpenAiAgentsScenario(rows: StateRows, onTransfer: () => void = () => {}): () => Promise<void> {
  setTracingDisabled(true);
  const agent = new Agent({
    name: 'ledger',
    instructions: 'You manage a ledger.',
    model: scriptedModel,
    tools: [
      tool({ name: 'read_balance', description: 'Read the balance.', parameters: z.object({}), execute: async () => ({ balance: 100 }) }),
      tool({
        name: 'transfer',
        description: 'Transfer an amount.',
        parameters: z.object({ to: z.string(), amount: z.number() }),
        needsApproval: true,
        execute: async (input) => {
          onTransfer();
          return { ok: true, transferred: input.amount, to: input.to };
        },
      }),
    ],
  });
  return async () => {
    const paused = await run(agent, 'pay bob 30');
    const interruption = paused.interruptions?.[0];
    if (!interruption) throw new Error('expected an approval interruption');
    const id = await rows.save(paused.state.toString());
    const state = await RunState.fromString(agent, await rows.load(id));
    state.approve(interruption);
    const done = await run(agent, state);
    if (done.finalOutput !== 'Done') throw new Error(`unexpected final output: ${String(done.finalOutput)}`);
  };
}
