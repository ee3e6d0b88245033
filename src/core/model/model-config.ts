import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { CoreErrors } from '../errors/index.ts';
import { guardModel, type ModelGuardOptions } from './guarded-model.ts';
import { parseModelPrice, setModelPrice } from './model-prices.ts';

/** `openai` speaks OpenAI's Responses API, `openai-chat` its Chat Completions API. */
export type ModelProviderName = 'openai' | 'openai-chat' | 'anthropic' | 'bedrock' | 'google' | 'compatible';

export interface ModelChoice {
  readonly provider: ModelProviderName;
  readonly modelId: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_MODELS: Record<ModelProviderName, string> = {
  openai: 'gpt-4.1',
  'openai-chat': 'gpt-4.1',
  anthropic: 'claude-sonnet-4-5',
  bedrock: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
  google: 'gemini-2.5-flash',
  compatible: 'llama3.1',
};

/**
 * The variable that points each provider somewhere else than its public endpoint (a proxy, a
 * gateway, a regional endpoint, or the test suite's wire server). Unset: the provider's default.
 */
export const BASE_URL_VARIABLES: Readonly<Record<ModelProviderName, string>> = {
  openai: 'OPENAI_BASE_URL',
  'openai-chat': 'OPENAI_BASE_URL',
  anthropic: 'ANTHROPIC_BASE_URL',
  bedrock: 'AWS_ENDPOINT_URL_BEDROCK_RUNTIME',
  google: 'GOOGLE_GENERATIVE_AI_BASE_URL',
  compatible: 'OPSGATE_MODEL_BASE_URL',
};

/**
 * Which model the environment asks for, or undefined for the offline interpreter.
 * `OPSGATE_MODEL=provider:model` picks one explicitly (`offline` forces the interpreter); otherwise
 * a key decides: `OPSGATE_MODEL_BASE_URL` (Ollama, vLLM, LM Studio), `OPENAI_API_KEY`,
 * `ANTHROPIC_API_KEY`, or `GOOGLE_GENERATIVE_AI_API_KEY`.
 */
export function chooseModel(env: Env): ModelChoice | undefined {
  const explicit = env.OPSGATE_MODEL?.trim();
  if (explicit) {
    if (explicit === 'offline') return undefined;
    const [provider, ...rest] = explicit.split(':');
    if (!provider || !(provider in DEFAULT_MODELS)) {
      throw CoreErrors.CONFIG_INVALID({
        detail: `OPSGATE_MODEL="${explicit}" names no known provider; use openai:…, openai-chat:…, anthropic:…, bedrock:…, google:…, compatible:… or offline`,
      });
    }
    const name = provider as ModelProviderName;
    return { provider: name, modelId: rest.join(':') || DEFAULT_MODELS[name] };
  }
  if (env.OPSGATE_MODEL_BASE_URL) return { provider: 'compatible', modelId: DEFAULT_MODELS.compatible };
  if (env.OPENAI_API_KEY) return { provider: 'openai', modelId: DEFAULT_MODELS.openai };
  if (env.ANTHROPIC_API_KEY) return { provider: 'anthropic', modelId: DEFAULT_MODELS.anthropic };
  if (env.GOOGLE_GENERATIVE_AI_API_KEY) return { provider: 'google', modelId: DEFAULT_MODELS.google };
  return undefined;
}

/** `undefined` for an unset or blank variable, so the provider keeps its default. */
function setting(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/** The provider's own AI SDK model, unguarded. Keys and base URLs come from `env`. */
function providerModel(choice: ModelChoice, env: Env): LanguageModelV4 {
  const baseURL = setting(env, BASE_URL_VARIABLES[choice.provider]);
  switch (choice.provider) {
    case 'openai':
      return createOpenAI({ apiKey: env.OPENAI_API_KEY, baseURL }).responses(choice.modelId);
    case 'openai-chat':
      return createOpenAI({ apiKey: env.OPENAI_API_KEY, baseURL }).chat(choice.modelId);
    case 'anthropic':
      return createAnthropic({ apiKey: env.ANTHROPIC_API_KEY, baseURL }).languageModel(choice.modelId);
    case 'google':
      return createGoogleGenerativeAI({ apiKey: env.GOOGLE_GENERATIVE_AI_API_KEY, baseURL }).languageModel(choice.modelId);
    case 'bedrock':
      return createAmazonBedrock({
        baseURL,
        region: setting(env, 'AWS_REGION'),
        accessKeyId: setting(env, 'AWS_ACCESS_KEY_ID'),
        secretAccessKey: setting(env, 'AWS_SECRET_ACCESS_KEY'),
        sessionToken: setting(env, 'AWS_SESSION_TOKEN'),
        apiKey: setting(env, 'AWS_BEARER_TOKEN_BEDROCK'),
      }).languageModel(choice.modelId);
    case 'compatible': {
      if (!baseURL)
        throw CoreErrors.CONFIG_INVALID({
          detail: 'compatible models need OPSGATE_MODEL_BASE_URL, e.g. http://127.0.0.1:11434/v1 for Ollama',
        });
      return createOpenAICompatible({ name: 'compatible', baseURL, apiKey: env.OPSGATE_MODEL_API_KEY, includeUsage: true }).languageModel(
        choice.modelId,
      );
    }
  }
}

/**
 * Builds the AI SDK model for a choice, behind opsgate's retry and circuit breaker
 * (`guardModel`): the same provider code runs against the real API or any base URL set.
 */
export function createConfiguredModel(choice: ModelChoice, env: Env, guard: ModelGuardOptions = {}): LanguageModelV4 {
  const price = parseModelPrice(env.OPSGATE_MODEL_PRICE);
  const model = guardModel(providerModel(choice, env), choice.provider, guard);
  if (price) setModelPrice(model, price);
  return model;
}

/** A one-line description for start-up banners. */
export function describeModelChoice(choice: ModelChoice | undefined): string {
  return choice ? `${choice.provider}:${choice.modelId}` : 'offline interpreter (no model key set)';
}
