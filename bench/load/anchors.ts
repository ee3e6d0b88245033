// The three anchors of the load benchmark, each doing the same approval round trip as opsgate
// (read → gated transfer → pause stored in PostgreSQL → restored → approved → executed → answer)
// with the same scripted model decisions, keeping their paused state the way each framework does.

import { randomUUID } from 'node:crypto';
import { Annotation, Command, END, interrupt, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { generateText, type ModelMessage, tool } from 'ai';
import type pg from 'pg';
import { z } from 'zod';
import { createLedgerModel } from '../../src/testing/index.ts';
import { createOpenAiAgentsScenario } from '../openai-agents-anchor.ts';

/** A scenario factory: given a pool, creates what it needs (idempotent) and returns one round trip per call. */
export type AnchorSetup = (pool: pg.Pool) => Promise<(index: number) => Promise<void>>;

export interface AnchorCounters {
  transfers: number;
}

/** The AI SDK's `needsApproval` with its response messages stored as JSON in one row. */
export function aiSdkAnchor(counters: AnchorCounters): AnchorSetup {
  return async (pool) => {
    await pool.query('CREATE TABLE IF NOT EXISTS paused (id bigserial PRIMARY KEY, messages jsonb NOT NULL)');
    const model = createLedgerModel();
    const tools = {
      read_balance: tool({ description: 'Read the current balance.', inputSchema: z.object({}), execute: async () => ({ balance: 100 }) }),
      transfer: tool({
        description: 'Transfer an amount.',
        inputSchema: z.object({ to: z.string(), amount: z.number() }),
        needsApproval: true,
        execute: async (input) => {
          counters.transfers += 1;
          return { ok: true, transferred: input.amount, to: input.to };
        },
      }),
    };
    return async (index) => {
      const messages: ModelMessage[] = [{ role: 'user', content: `pay bob ${index + 1}` }];
      const first = await generateText({ model, tools, messages, stopWhen: () => false });
      const approval = first.content.find((part) => part.type === 'tool-approval-request');
      if (!approval) throw new Error('expected an approval request');
      const saved = await pool.query<{ id: string }>('INSERT INTO paused (messages) VALUES ($1) RETURNING id', [
        JSON.stringify([...messages, ...first.response.messages]),
      ]);
      const loaded = await pool.query<{ messages: ModelMessage[] }>('SELECT messages FROM paused WHERE id = $1', [saved.rows[0]!.id]);
      const restored = loaded.rows[0]!.messages;
      restored.push({ role: 'tool', content: [{ type: 'tool-approval-response', approvalId: approval.approvalId, approved: true }] });
      const second = await generateText({ model, tools, messages: restored, stopWhen: () => false });
      if (!second.text.startsWith('Done')) throw new Error(`unexpected final answer: ${second.text}`);
    };
  };
}

/** The OpenAI Agents SDK's `needsApproval` with `RunState.toString()` in one row. */
export function openAiAgentsAnchor(counters: AnchorCounters): AnchorSetup {
  return async (pool) => {
    await pool.query('CREATE TABLE IF NOT EXISTS agents_state (id bigserial PRIMARY KEY, state text NOT NULL)');
    return createOpenAiAgentsScenario(
      {
        save: async (state) =>
          Number((await pool.query<{ id: string }>('INSERT INTO agents_state (state) VALUES ($1) RETURNING id', [state])).rows[0]!.id),
        load: async (id) => (await pool.query<{ state: string }>('SELECT state FROM agents_state WHERE id = $1', [id])).rows[0]!.state,
      },
      () => {
        counters.transfers += 1;
      },
    );
  };
}

type Step = { readonly tool: string; readonly output: unknown };
type PendingCall = { readonly tool: 'read_balance' } | { readonly tool: 'transfer'; readonly args: { to: string; amount: number } };

const LedgerState = Annotation.Root({
  request: Annotation<string>(),
  steps: Annotation<Step[]>({ reducer: (left, right) => [...left, ...right], default: () => [] }),
  pending: Annotation<PendingCall | null>({ reducer: (_, right) => right, default: () => null }),
  answer: Annotation<string>({ reducer: (_, right) => right, default: () => '' }),
});

/** LangGraph with `PostgresSaver`: the gated tool calls `interrupt()`, resumed by `Command({ resume })`. */
export function langGraphAnchor(counters: AnchorCounters): AnchorSetup {
  return async (pool) => {
    const saver = new PostgresSaver(pool);
    await saver.setup();
    // The ledger model's decisions: read first, then transfer what the request names, then answer.
    const decide = (state: typeof LedgerState.State): Partial<typeof LedgerState.State> => {
      const last = state.steps.at(-1);
      const match = /pay (\w+) (\d+)/.exec(state.request);
      if (!last) return { pending: { tool: 'read_balance' } };
      if (last.tool === 'read_balance' && match)
        return { pending: { tool: 'transfer', args: { to: match[1]!, amount: Number(match[2]) } } };
      return { pending: null, answer: `Done: ${JSON.stringify(last.output)}` };
    };
    const runTool = (state: typeof LedgerState.State): Partial<typeof LedgerState.State> => {
      const call = state.pending!;
      if (call.tool === 'read_balance') return { steps: [{ tool: call.tool, output: { balance: 100 } }], pending: null };
      const approved = interrupt({ tool: call.tool, args: call.args }) as boolean;
      if (!approved) return { steps: [{ tool: call.tool, output: { error: 'rejected' } }], pending: null };
      counters.transfers += 1;
      return { steps: [{ tool: call.tool, output: { ok: true, transferred: call.args.amount, to: call.args.to } }], pending: null };
    };
    const graph = new StateGraph(LedgerState)
      .addNode('model', decide)
      .addNode('tools', runTool)
      .addEdge(START, 'model')
      .addConditionalEdges('model', (state) => (state.pending ? 'tools' : END))
      .addEdge('tools', 'model')
      .compile({ checkpointer: saver });
    return async (index) => {
      const config = { configurable: { thread_id: randomUUID() } };
      const paused = await graph.invoke({ request: `pay bob ${index + 1}` }, config);
      if (!('__interrupt__' in paused)) throw new Error('expected an interrupt');
      const done = await graph.invoke(new Command({ resume: true }), config);
      if (!done.answer.startsWith('Done')) throw new Error(`unexpected final answer: ${done.answer}`);
    };
  };
}
