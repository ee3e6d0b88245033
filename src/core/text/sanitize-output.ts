import { detectErrorKeywords, type ErrorKeyword } from './error-keywords.ts';
import { stripAnsi } from './strip-ansi.ts';
import { MODEL_OUTPUT_LIMIT, truncateForModelWithInfo } from './truncate-for-model.ts';

export interface SanitizedOutput {
  /** ANSI-free text, at most `limit` characters, with a marker where it was cut. */
  readonly text: string;
  readonly truncated: boolean;
  readonly originalCharacters: number;
  /** Error keywords found in the whole stripped output (AR-15), not only the kept part. */
  readonly errorKeywords: readonly ErrorKeyword[];
}

/** The text pipeline for tool output bound for a model: strip (AR-09), flag (AR-15), truncate (AR-14). */
export function sanitizeOutputForModel(raw: string, limit = MODEL_OUTPUT_LIMIT): SanitizedOutput {
  const clean = stripAnsi(raw);
  const truncation = truncateForModelWithInfo(clean, limit);
  return {
    text: truncation.text,
    truncated: truncation.truncated,
    originalCharacters: truncation.originalCharacters,
    errorKeywords: detectErrorKeywords(clean, 0).keywords,
  };
}
