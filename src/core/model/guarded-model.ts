import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import {
  BrokenCircuitError,
  ConsecutiveBreaker,
  circuitBreaker,
  DelegateBackoff,
  handleWhen,
  type IRetryBackoffContext,
  retry,
  wrap,
} from 'cockatiel';
import { classifyModelError, isTransientModelError, ModelErrors, requestedRetryDelayMs } from './model-errors.ts';

export interface ModelGuardOptions {
  /** Attempts per model step, the first included. Default 3. */
  readonly attempts?: number;
  /** The longest wait opsgate accepts before another attempt; a longer `retry-after` fails at once. Default 20 s. */
  readonly maxWaitMs?: number;
  /** First backoff when the provider names no wait; doubles each time. Default 500 ms. */
  readonly initialDelayMs?: number;
  /** Failed steps in a row that open the breaker. Default 5. */
  readonly breakerFailures?: number;
  /** How long an open breaker refuses calls before trying one again. Default 30 s. */
  readonly breakerOpenMs?: number;
}

/** What a person reads when a step stops for a reason other than a finished answer. */
const STOP_NOTES: Partial<Record<LanguageModelV4FinishReason['unified'], string>> = {
  length:
    '(The model stopped here: it reached its output token limit, so this answer is cut short. Ask it to continue, or to answer more briefly.)',
  'content-filter':
    "(The model declined to answer: the provider's safety filter stopped it. Rephrase the request; nothing was run for this step.)",
};

/**
 * A provider model behind a retry and a circuit breaker (cockatiel): rate limits and server
 * errors are retried, honouring the provider's `retry-after`, then end in a typed error that says
 * what to do; a model step cut short by the token limit or a refusal says so in its text.
 */
export function guardModel(model: LanguageModelV4, provider: string, options: ModelGuardOptions = {}): LanguageModelV4 {
  const attempts = options.attempts ?? 3;
  const maxWaitMs = options.maxWaitMs ?? 20_000;
  const initialDelayMs = options.initialDelayMs ?? 500;
  const breakerFailures = options.breakerFailures ?? 5;
  const breakerOpenMs = options.breakerOpenMs ?? 30_000;
  const backoff = new DelegateBackoff((context: IRetryBackoffContext<unknown>) => {
    const error = 'error' in context.result ? context.result.error : undefined;
    return requestedRetryDelayMs(error) ?? initialDelayMs * 2 ** (context.attempt - 1);
  });
  // A provider asking for a longer wait than a person should sit through fails at once, clearly.
  const worthRetrying = (error: unknown) => isTransientModelError(error) && (requestedRetryDelayMs(error) ?? 0) <= maxWaitMs;
  const retries = retry(handleWhen(worthRetrying), { maxAttempts: attempts - 1, backoff });
  const breaker = circuitBreaker(handleWhen(isTransientModelError), {
    halfOpenAfter: breakerOpenMs,
    breaker: new ConsecutiveBreaker(breakerFailures),
  });
  const policy = wrap(breaker, retries);

  const guarded = async <T>(call: () => PromiseLike<T>): Promise<T> => {
    let tries = 0;
    try {
      return await policy.execute(() => {
        tries += 1;
        return call();
      });
    } catch (error) {
      if (error instanceof BrokenCircuitError) {
        throw ModelErrors.MODEL_CIRCUIT_OPEN({ provider, failures: breakerFailures, seconds: Math.round(breakerOpenMs / 1000) });
      }
      throw classifyModelError(provider, error, tries);
    }
  };

  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    async doGenerate(options: LanguageModelV4CallOptions) {
      const callOptions = withToolResultsTogether(options);
      const result = await guarded(() => model.doGenerate(callOptions));
      const note = STOP_NOTES[result.finishReason.unified];
      return note ? { ...result, content: withNote(result.content, note) } : result;
    },
    async doStream(options: LanguageModelV4CallOptions) {
      const callOptions = withToolResultsTogether(options);
      const result = await guarded(() => model.doStream(callOptions));
      return { ...result, stream: result.stream.pipeThrough(noteOnStop(provider)) };
    },
  };
}

/**
 * One `tool` message per model step: the turn loop stores each call's result as it arrives (a
 * call approved later comes in its own message), but Gemini refuses a call turn whose answers are
 * split ("the number of function response parts is equal to the number of function call parts").
 */
function withToolResultsTogether(options: LanguageModelV4CallOptions): LanguageModelV4CallOptions {
  const prompt: LanguageModelV4Prompt = [];
  for (const message of options.prompt) {
    const previous = prompt.at(-1);
    if (message.role === 'tool' && previous?.role === 'tool')
      prompt[prompt.length - 1] = { ...previous, content: [...previous.content, ...message.content] };
    else prompt.push(message);
  }
  return prompt.length === options.prompt.length ? options : { ...options, prompt };
}

function withNote(content: LanguageModelV4Content[], note: string): LanguageModelV4Content[] {
  const hasText = content.some((part) => part.type === 'text' && part.text.trim().length > 0);
  return [...content, { type: 'text', text: hasText ? `\n\n${note}` : note }];
}

/** Adds the stop note before `finish`, and turns a provider's in-stream error into the same typed error. */
function noteOnStop(provider: string): TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart> {
  let hasText = false;
  return new TransformStream({
    transform(part, controller) {
      if (part.type === 'text-delta' && part.delta.trim()) hasText = true;
      if (part.type === 'error') {
        controller.enqueue({ type: 'error', error: classifyModelError(provider, part.error, 1) });
        return;
      }
      if (part.type === 'finish') {
        const note = STOP_NOTES[part.finishReason.unified];
        if (note) {
          const id = 'opsgate-stop-note';
          controller.enqueue({ type: 'text-start', id });
          controller.enqueue({ type: 'text-delta', id, delta: hasText ? `\n\n${note}` : note });
          controller.enqueue({ type: 'text-end', id });
        }
      }
      controller.enqueue(part);
    },
  });
}
