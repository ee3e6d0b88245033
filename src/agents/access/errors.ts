import { defineErrorCodes, type OpsgateError } from '../../core/errors/index.ts';

/**
 * What the access tools tell the model, verbatim from the spec's tables
 * (docs/agents/access.md, from the access specification's "Tool Error Handling").
 */
export const AccessToolErrors = defineErrorCodes({
  // Network errors.
  ACCESS_BACKEND_TIMEOUT: { status: 504, message: 'Backend API is not responding' },
  ACCESS_BACKEND_REFUSED: { status: 503, message: 'Backend API is unavailable' },
  ACCESS_BACKEND_DNS: { status: 502, message: 'Cannot reach backend API' },
  // HTTP error codes.
  ACCESS_HTTP_FORBIDDEN: { status: 403, message: "You don't have permission for this operation" },
  ACCESS_HTTP_NOT_FOUND: { status: 404, message: 'Resource not found' },
  ACCESS_HTTP_CONFLICT: { status: 409, message: 'You already have this access' },
  ACCESS_HTTP_SERVER_ERROR: { status: 502, message: 'Backend API error, please try again' },
  ACCESS_HTTP_INVALID_RESPONSE: { status: 502, message: 'Invalid response from backend API' },
  // Per-tool rows.
  ACCESS_TOOL_USER_NOT_FOUND: { status: 404, message: 'User not found' },
  ACCESS_TOOL_AUTH_FAILED: { status: 401, message: 'Authentication failed' },
  ACCESS_TOOL_BACKEND_UNAVAILABLE: { status: 503, message: 'Backend API unavailable' },
  ACCESS_TOOL_ACCESS_NOT_FOUND: { status: 404, message: 'Access not found: {accessName}' },
  ACCESS_TOOL_ALREADY_ASSIGNED: { status: 409, message: 'User already has this access' },
  ACCESS_TOOL_INVALID_ACCESS_NAME: { status: 400, message: 'Invalid access name' },
});

export const GRANTED_MESSAGE = 'Access granted successfully';

/** The message text of a code, without fields. */
export function toolMessage(code: keyof typeof AccessToolErrors, fields?: Record<string, unknown>): string {
  // Any code by name: the caller passes the fields its message names (ACCESS_TOOL_ACCESS_NOT_FOUND: accessName).
  const factory = AccessToolErrors[code] as (fields?: Record<string, unknown>) => OpsgateError;
  return factory(fields).message;
}
