import type { LanguageModelV4CallOptions, LanguageModelV4Content } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { type AgentDefinition, defineAgent } from '../core/agent/index.ts';
import { readInterpreterTurn } from '../core/model/index.ts';
import { defineTool } from '../core/tools/index.ts';
import { generateResult } from './mock-model-results.ts';

/** What the ledger agent's tools did, for assertions. Shared by every runtime in the process. */
export interface LedgerRecorder {
  reads: number;
  transfers: Array<{ to: string; amount: number; user_id: number }>;
  /** When set, `transfer` waits on it (lets a test kill the process mid-execution). */
  holdTransfer?: Promise<void>;
  onTransferStart?: () => void;
}

/**
 * A tiny agent with one read-only tool (`read_balance`) and one mutable tool (`transfer`, bound
 * to the session's user id): the scenario every core acceptance test and the HITL benchmark use.
 */
export function createLedgerAgent(recorder: LedgerRecorder): AgentDefinition {
  return defineAgent({
    name: 'ledger',
    title: 'Ledger',
    description: 'Reads a balance and transfers money (a test double).',
    instructions: 'You manage a ledger. Read the balance before transferring.',
    async setup() {
      return {
        tools: [
          defineTool({
            name: 'read_balance',
            description: 'Read the current balance.',
            input: z.object({}),
            mutability: 'read-only',
            cache: false,
            execute: async () => {
              recorder.reads += 1;
              return { balance: 100 };
            },
          }),
          defineTool({
            name: 'transfer',
            description: 'Transfer an amount to someone.',
            input: z.object({ to: z.string().min(1), amount: z.number().positive(), user_id: z.number().int() }),
            mutability: 'mutable',
            // Medium: under the default policy the requester may approve it; self-approval of high risk is refused.
            risk: 'medium',
            identity: { userId: 'user_id' },
            execute: async (input) => {
              recorder.onTransferStart?.();
              if (recorder.holdTransfer) await recorder.holdTransfer;
              recorder.transfers.push(input);
              return { ok: true, transferred: input.amount, to: input.to };
            },
          }),
        ],
      };
    },
  });
}

let callCounter = 0;
const call = (toolName: string, input: unknown): LanguageModelV4Content => ({
  type: 'tool-call',
  toolCallId: `mock-${++callCounter}`,
  toolName,
  input: JSON.stringify(input),
});

/**
 * A scripted mock model for the ledger: user message → `read_balance` → `transfer` (amount and
 * recipient from the message "pay NAME AMOUNT") → a final answer that repeats what the tools said.
 * It decides from the prompt alone, so it behaves the same after a restart.
 */
export function createLedgerModel(options: { userId?: number } = {}): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async (callOptions: LanguageModelV4CallOptions) => {
      const turn = readInterpreterTurn(callOptions);
      const last = turn.steps[turn.steps.length - 1];
      const match = /pay (\w+) (\d+)/.exec(turn.userText);
      if (!last) return generateResult([call('read_balance', {})]);
      if (last.toolName === 'read_balance' && match) {
        return generateResult([
          { type: 'text', text: `Transferring ${match[2]} to ${match[1]}.` },
          call('transfer', { to: match[1], amount: Number(match[2]), ...(options.userId ? { user_id: options.userId } : {}) }),
        ]);
      }
      return generateResult([{ type: 'text', text: `Done: ${JSON.stringify(last.output)}` }]);
    },
  });
}
