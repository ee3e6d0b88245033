import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { OpsgateError } from '../core/errors/index.ts';

/** A tool result of one text part (JSON for anything but a string). */
export function textResult(value: unknown, isError = false): CallToolResult {
  return {
    content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }],
    ...(isError ? { isError: true } : {}),
  };
}

/** An opsgate refusal as an error result the client's model can read; anything else is a fault of the gateway and is thrown on. */
export function failureResult(error: unknown): CallToolResult {
  if (OpsgateError.isInstance(error)) return textResult({ error: error.message, code: error.code }, true);
  throw error;
}
