import { sanitizeOutputForModel } from '../text/index.ts';
import type { AnyToolDefinition } from '../tools/index.ts';

/**
 * What reaches the model: strings are ANSI-stripped and truncated at 5,000 characters with a
 * marker (docs/architecture.md §2); structured output is kept as JSON but its long strings get the same care.
 */
export function toModelValue(tool: AnyToolDefinition, output: unknown): unknown {
  const shaped = tool.toModelOutput ? tool.toModelOutput(output) : output;
  return sanitizeValue(shaped);
}

function sanitizeValue(value: unknown): unknown {
  if (typeof value === 'string') return sanitizeOutputForModel(value).text;
  if (Array.isArray(value)) return value.map(sanitizeValue);
  if (value !== null && typeof value === 'object') {
    const result: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) result[key] = sanitizeValue(inner);
    return result;
  }
  return value === undefined ? null : value;
}
