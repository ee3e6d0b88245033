import type { LanguageModelV4Content, LanguageModelV4GenerateResult } from '@ai-sdk/provider';

/** A `doGenerate` result for scripted mock models: the content, a matching finish reason, token usage of 1. */
export function generateResult(content: LanguageModelV4Content[]): LanguageModelV4GenerateResult {
  return {
    content,
    finishReason: { unified: content.some((c) => c.type === 'tool-call') ? 'tool-calls' : 'stop', raw: undefined },
    usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
    warnings: [],
  };
}
