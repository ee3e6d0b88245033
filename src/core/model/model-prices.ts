import type { LanguageModelV4 } from '@ai-sdk/provider';
import { CoreErrors } from '../errors/index.ts';

/** US dollars per million tokens. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
}

/**
 * List prices (USD per million tokens, standard tier, no caching) of the models opsgate defaults
 * to and their close kin, from each provider's pricing page in 2025. A model id matches the
 * longest key it contains, so Bedrock's `us.anthropic.claude-sonnet-4-5-20250929-v1:0` finds
 * `claude-sonnet-4-5`. Anything else costs "unknown" unless `OPSGATE_MODEL_PRICE` says.
 */
const LIST_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gpt-5-nano': { input: 0.05, output: 0.4 },
  'claude-sonnet-4-5': { input: 3, output: 15 },
  'claude-sonnet-4': { input: 3, output: 15 },
  'claude-opus-4-1': { input: 15, output: 75 },
  'claude-haiku-4-5': { input: 1, output: 5 },
  'claude-3-5-haiku': { input: 0.8, output: 4 },
  'gemini-2.5-pro': { input: 1.25, output: 10 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4 },
};

const configured = new WeakMap<LanguageModelV4, ModelPrice>();

/** `OPSGATE_MODEL_PRICE="input,output"` in USD per million tokens (e.g. `0,0` for a local model). */
export function parseModelPrice(raw: string | undefined): ModelPrice | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const parts = raw.split(',').map((part) => Number(part.trim()));
  if (parts.length !== 2 || parts.some((n) => !Number.isFinite(n) || n < 0))
    throw CoreErrors.CONFIG_INVALID({
      detail: `OPSGATE_MODEL_PRICE must be "input,output" in USD per million tokens, e.g. "3,15"; got "${raw}"`,
    });
  return { input: parts[0]!, output: parts[1]! };
}

/** Remembers the price configured for a model built from the environment. */
export function setModelPrice(model: LanguageModelV4, price: ModelPrice): void {
  configured.set(model, price);
}

/** The configured price of the model, else its list price, else undefined (unknown). */
export function priceOf(model: LanguageModelV4): ModelPrice | undefined {
  const set = configured.get(model);
  if (set) return set;
  const id = model.modelId.toLowerCase();
  const key = Object.keys(LIST_PRICES)
    .filter((name) => id.includes(name))
    .sort((a, b) => b.length - a.length)[0];
  return key ? LIST_PRICES[key] : undefined;
}

/** The cost in USD of a step's tokens, or null when the price is unknown. */
export function costOf(price: ModelPrice | undefined, inputTokens: number, outputTokens: number): number | null {
  if (!price) return null;
  return (inputTokens * price.input + outputTokens * price.output) / 1_000_000;
}
