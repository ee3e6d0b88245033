import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { CoreErrors } from '../errors/index.ts';

export type ModelProviderName = 'openai' | 'anthropic' | 'bedrock' | 'compatible';

export interface ModelChoice {
  readonly provider: ModelProviderName;
  readonly modelId: string;
}

const DEFAULT_MODELS: Record<ModelProviderName, string> = {
  openai: 'gpt-4.1',
  anthropic: 'claude-sonnet-4-5',
  bedrock: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
  compatible: 'llama3.1',
};

/**
 * Which model the environment asks for, or undefined for the offline interpreter.
 * `OPSGATE_MODEL=provider:model` picks one explicitly (`offline` forces the interpreter); otherwise
 * a key decides: `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, or `OPSGATE_MODEL_BASE_URL` (Ollama, vLLM, LM Studio).
 */
export function chooseModel(env: Readonly<Record<string, string | undefined>>): ModelChoice | undefined {
  const explicit = env.OPSGATE_MODEL?.trim();
  if (explicit) {
    if (explicit === 'offline') return undefined;
    const [provider, ...rest] = explicit.split(':');
    if (!provider || !(provider in DEFAULT_MODELS)) {
      throw CoreErrors.CONFIG_INVALID({
        detail: `OPSGATE_MODEL="${explicit}" names no known provider; use openai:…, anthropic:…, bedrock:…, compatible:… or offline`,
      });
    }
    const name = provider as ModelProviderName;
    return { provider: name, modelId: rest.join(':') || DEFAULT_MODELS[name] };
  }
  if (env.OPSGATE_MODEL_BASE_URL) return { provider: 'compatible', modelId: DEFAULT_MODELS.compatible };
  if (env.OPENAI_API_KEY) return { provider: 'openai', modelId: DEFAULT_MODELS.openai };
  if (env.ANTHROPIC_API_KEY) return { provider: 'anthropic', modelId: DEFAULT_MODELS.anthropic };
  return undefined;
}

/** Builds the AI SDK model for a choice. Keys are read from the environment by each provider. */
export function createConfiguredModel(choice: ModelChoice, env: Readonly<Record<string, string | undefined>>): LanguageModelV4 {
  switch (choice.provider) {
    case 'openai':
      return createOpenAI({ apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL }).languageModel(choice.modelId) as LanguageModelV4;
    case 'anthropic':
      return createAnthropic({ apiKey: env.ANTHROPIC_API_KEY }).languageModel(choice.modelId) as LanguageModelV4;
    case 'bedrock':
      return createAmazonBedrock({ region: env.AWS_REGION }).languageModel(choice.modelId) as LanguageModelV4;
    case 'compatible': {
      const baseURL = env.OPSGATE_MODEL_BASE_URL;
      if (!baseURL)
        throw CoreErrors.CONFIG_INVALID({
          detail: 'compatible models need OPSGATE_MODEL_BASE_URL, e.g. http://127.0.0.1:11434/v1 for Ollama',
        });
      return createOpenAICompatible({ name: 'compatible', baseURL, apiKey: env.OPSGATE_MODEL_API_KEY }).languageModel(
        choice.modelId,
      ) as LanguageModelV4;
    }
  }
}

/** A one-line description for start-up banners. */
export function describeModelChoice(choice: ModelChoice | undefined): string {
  return choice ? `${choice.provider}:${choice.modelId}` : 'offline interpreter (no model key set)';
}
