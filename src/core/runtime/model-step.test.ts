import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { runModelStep } from './model-step.ts';

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

describe('runModelStep', () => {
  it('streams text deltas as they arrive and returns the assembled content with tool calls', async () => {
    const model = new MockLanguageModelV4({
      doStream: async () => ({
        stream: convertArrayToReadableStream([
          { type: 'stream-start', warnings: [] },
          { type: 'text-start', id: 'a' },
          { type: 'text-delta', id: 'a', delta: 'Hello ' },
          { type: 'text-delta', id: 'a', delta: 'there' },
          { type: 'text-end', id: 'a' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'read_balance', input: '{}' },
          { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage },
        ]),
      }),
    });
    const deltas: string[] = [];
    const content = await runModelStep(model, { prompt: [] }, async (text) => deltas.push(text));
    expect(deltas).toEqual(['Hello ', 'there']);
    expect(content).toEqual([
      { type: 'text', text: 'Hello there' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read_balance', input: '{}' },
    ]);
  });

  it('falls back to doGenerate for a model that does not stream', async () => {
    const model = new MockLanguageModelV4({
      doGenerate: async () => ({
        content: [{ type: 'text', text: 'whole' }],
        finishReason: { unified: 'stop', raw: undefined },
        usage,
        warnings: [],
      }),
    });
    expect(await runModelStep(model, { prompt: [] }, async () => undefined)).toEqual([{ type: 'text', text: 'whole' }]);
    expect(await runModelStep(model, { prompt: [] }, async () => undefined)).toEqual([{ type: 'text', text: 'whole' }]);
    expect(model.doGenerateCalls).toHaveLength(2);
  });

  it('turns a stream error part into a thrown error', async () => {
    const model = new MockLanguageModelV4({
      doStream: async () => ({ stream: convertArrayToReadableStream([{ type: 'error', error: new Error('rate limited') }]) }),
    });
    await expect(runModelStep(model, { prompt: [] }, async () => undefined)).rejects.toThrow('rate limited');
  });
});
