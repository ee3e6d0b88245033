/** A stored tool call and the audit event types found for it. */
export interface ToolCallEvidence {
  readonly id: string;
  readonly tool: string;
  readonly status: string;
  readonly mutability: string;
  readonly approved_by: string | null;
  readonly started_at: string | null;
  readonly decision: string | null;
  readonly events: Set<string>;
}

/** A read-only result served from the session's cache: recorded `executed`, but nothing ran. */
function servedFromCache(call: ToolCallEvidence): boolean {
  if (call.mutability === 'mutable' || call.decision === null) return false;
  try {
    return (JSON.parse(call.decision) as { cachedFrom?: unknown }).cachedFrom !== undefined;
  } catch {
    return false;
  }
}

/**
 * The events a call in this state must have in the chain, following the tool-call lifecycle: an
 * approval when someone (or a rule) approved it and it was not a question's answer; `tool_executing`
 * once a mutable call started; the outcome of a call that ran (a cached read-only answer ran nothing).
 */
function requiredEvents(call: ToolCallEvidence): Array<readonly string[]> {
  const started = call.started_at !== null;
  const answeredQuestion = call.status === 'executed' && !started;
  const required: Array<readonly string[]> = [];
  if (call.approved_by !== null && !answeredQuestion) required.push(['tool_approved', 'tool_auto_approved']);
  if (call.mutability === 'mutable' && (started || call.status === 'executing')) required.push(['tool_executing']);
  if (call.status === 'executed' && started && !servedFromCache(call)) required.push(['tool_executed']);
  if (call.status === 'failed') required.push(['tool_failed']);
  if (call.status === 'unknown') required.push(['tool_unknown']);
  return required;
}

/** One line naming the calls whose events are missing, or undefined when every call has them. */
export function checkToolCallEvents(calls: ReadonlyMap<string, ToolCallEvidence>): string | undefined {
  const gaps: string[] = [];
  for (const call of calls.values()) {
    const absent = requiredEvents(call).filter((anyOf) => !anyOf.some((type) => call.events.has(type)));
    if (absent.length > 0)
      gaps.push(`${call.tool} call ${call.id} (${call.status}) has no ${absent.map((a) => a.join('/')).join(', ')} event`);
  }
  if (gaps.length === 0) return undefined;
  const more = gaps.length > 3 ? ` and ${gaps.length - 3} more call(s)` : '';
  return `${gaps.length} tool call(s) lack their audit events: ${gaps.slice(0, 3).join('; ')}${more}`;
}
