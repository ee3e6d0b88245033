import { APICallError } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { generateResult } from '../../testing/index.ts';
import { guardModel } from './guarded-model.ts';
import { requestedRetryDelayMs } from './model-errors.ts';

const failure = (statusCode: number, headers: Record<string, string> = {}, body = '') =>
  new APICallError({
    message: `HTTP ${statusCode}`,
    url: 'http://model',
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    responseBody: body,
  });

describe('a model behind the retry and the circuit breaker', () => {
  it('opens the breaker after consecutive failed steps and refuses further steps without calling the provider', async () => {
    let calls = 0;
    const model = guardModel(
      new MockLanguageModelV4({
        doGenerate: async () => {
          calls += 1;
          throw failure(503);
        },
      }),
      'anthropic',
      { attempts: 1, breakerFailures: 2, breakerOpenMs: 60_000 },
    );
    const options = { prompt: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }] };
    await expect(model.doGenerate(options)).rejects.toMatchObject({ code: 'MODEL_UNAVAILABLE' });
    await expect(model.doGenerate(options)).rejects.toMatchObject({ code: 'MODEL_UNAVAILABLE' });
    await expect(model.doGenerate(options)).rejects.toMatchObject({
      code: 'MODEL_CIRCUIT_OPEN',
      message: expect.stringContaining('failed 2 times in a row, so opsgate stops calling it for 60 seconds'),
    });
    expect(calls).toBe(2);
  });

  it('fails at once when the provider asks for a longer wait than a person should sit through', async () => {
    let calls = 0;
    const model = guardModel(
      new MockLanguageModelV4({
        doGenerate: async () => {
          calls += 1;
          throw failure(429, { 'retry-after': '120' });
        },
      }),
      'openai',
      { attempts: 3, maxWaitMs: 5_000 },
    );
    await expect(model.doGenerate({ prompt: [] })).rejects.toMatchObject({
      code: 'MODEL_RATE_LIMITED',
      message: expect.stringContaining('OPENAI_API_KEY'),
    });
    expect(calls).toBe(1);
  });

  it('reads the wait from retry-after-ms, retry-after seconds or date, and Google RetryInfo', () => {
    const now = Date.parse('2026-11-24T12:00:00Z');
    expect(requestedRetryDelayMs(failure(429, { 'retry-after-ms': '250' }), now)).toBe(250);
    expect(requestedRetryDelayMs(failure(429, { 'retry-after': '3' }), now)).toBe(3000);
    expect(requestedRetryDelayMs(failure(429, { 'retry-after': 'Tue, 24 Nov 2026 12:00:05 GMT' }), now)).toBe(5000);
    expect(requestedRetryDelayMs(failure(429, {}, '{"error":{"details":[{"retryDelay":"34.4s"}]}}'), now)).toBe(34_400);
    expect(requestedRetryDelayMs(failure(429), now)).toBeUndefined();
  });

  it('a non-streamed step cut by the token limit says so after its text', async () => {
    const model = guardModel(
      new MockLanguageModelV4({
        doGenerate: async () => ({
          ...generateResult([{ type: 'text', text: 'Partial' }]),
          finishReason: { unified: 'length', raw: 'max_tokens' },
        }),
      }),
      'anthropic',
    );
    const result = await model.doGenerate({ prompt: [] });
    expect(result.content.map((c) => (c.type === 'text' ? c.text : '')).join('')).toMatch(/^Partial\n\n\(The model stopped here/);
  });
});
