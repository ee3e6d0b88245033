import { CoreErrors } from '../errors/index.ts';
import type { Identity } from '../identity/index.ts';
import type { AnyToolDefinition } from '../tools/index.ts';

/** Whose call it is: a working session, or the caller of a read outside any session. */
export interface CallOwner {
  readonly identity: Identity;
}

/** Fills identity fields from the session; a model value naming someone else is refused. */
export function bindIdentity(tool: AnyToolDefinition, raw: Record<string, unknown>, session: CallOwner): Record<string, unknown> {
  const binding = tool.identity;
  if (!binding) return raw;
  const bound = { ...raw };
  const pairs: Array<[string | undefined, string | number]> = [
    [binding.userId, session.identity.userId],
    [binding.username, session.identity.username],
  ];
  for (const [field, expected] of pairs) {
    if (!field) continue;
    const given = bound[field];
    if (given !== undefined && given !== null && String(given) !== String(expected)) {
      throw CoreErrors.IDENTITY_MISMATCH({
        field,
        given: String(given),
        expected: `${session.identity.username} (${session.identity.userId})`,
      });
    }
    bound[field] = expected;
  }
  return bound;
}

/** Parses, binds and validates a model's raw input; throws typed errors. */
export function prepareInput(tool: AnyToolDefinition, rawInput: unknown, session: CallOwner): Record<string, unknown> {
  let parsedRaw: unknown = rawInput;
  if (typeof rawInput === 'string') {
    try {
      parsedRaw = rawInput.trim() === '' ? {} : JSON.parse(rawInput);
    } catch {
      throw CoreErrors.INVALID_TOOL_INPUT({ tool: tool.name, detail: 'the input is not valid JSON' });
    }
  }
  if (parsedRaw === null || typeof parsedRaw !== 'object' || Array.isArray(parsedRaw)) {
    throw CoreErrors.INVALID_TOOL_INPUT({ tool: tool.name, detail: 'the input must be a JSON object' });
  }
  const bound = bindIdentity(tool, parsedRaw as Record<string, unknown>, session);
  const result = tool.input.safeParse(bound);
  if (!result.success) {
    const detail = result.error.issues.map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`).join('; ');
    throw CoreErrors.INVALID_TOOL_INPUT({ tool: tool.name, detail });
  }
  return result.data as Record<string, unknown>;
}
