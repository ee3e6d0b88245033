import { sanitizeOutputForModel } from '../../../core/text/index.ts';

export interface ModelOutputText {
  /** ANSI-free (AR-09), `\r\n` → `\n`, at most 5,000 characters with a cut marker (AR-14). */
  readonly output: string;
  readonly truncated: boolean;
  readonly originalCharacters: number;
  /** "error", "failed", "denied" found anywhere in the output (AR-15). */
  readonly errorKeywords: readonly string[];
}

/** Raw terminal text → what the model may read. Output is data, never instructions. */
export function toModelText(raw: string): ModelOutputText {
  const sanitized = sanitizeOutputForModel(raw.replace(/\r+\n/g, '\n'));
  return {
    output: sanitized.text,
    truncated: sanitized.truncated,
    originalCharacters: sanitized.originalCharacters,
    errorKeywords: sanitized.errorKeywords,
  };
}

/** Added to a result whose output shows error keywords, so the model does not skip them (AR-15). */
export function errorKeywordHint(keywords: readonly string[]): string | undefined {
  if (keywords.length === 0) return undefined;
  return `The output contains ${keywords.map((k) => `"${k}"`).join(', ')}. Analyse these lines and suggest a fix before moving on; do not ignore them.`;
}
