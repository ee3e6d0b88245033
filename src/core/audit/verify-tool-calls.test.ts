import { describe, expect, it } from 'vitest';
import { checkToolCallEvents, type ToolCallEvidence } from './verify-tool-calls.ts';

// The cross-check of stored tool calls against the audit chain: each state a call can be in needs
// the events the lifecycle writes on the way there, and nothing more.
const call = (fields: Partial<Omit<ToolCallEvidence, 'events'>> & { readonly events?: readonly string[] }): ToolCallEvidence => ({
  id: 'c1',
  tool: 'transfer',
  status: 'executed',
  mutability: 'mutable',
  approved_by: 'alice',
  started_at: '2026-11-27T05:00:00.000Z',
  decision: null,
  ...fields,
  events: new Set(fields.events ?? []),
});
const check = (...calls: ToolCallEvidence[]) => checkToolCallEvents(new Map(calls.map((c) => [c.id, c])));

describe('the tool-call cross-check', () => {
  it('an approved mutable call that ran needs its approval, tool_executing and its outcome', () => {
    expect(check(call({ events: ['tool_approved', 'tool_executing', 'tool_executed'] }))).toBeUndefined();
    expect(check(call({ events: ['tool_auto_approved', 'tool_executing', 'tool_executed'] }))).toBeUndefined();
    expect(check(call({ events: [] }))).toBe(
      '1 tool call(s) lack their audit events: transfer call c1 (executed) has no tool_approved/tool_auto_approved, tool_executing, tool_executed event',
    );
    expect(check(call({ events: ['tool_approved', 'tool_executed'] }))).toBe(
      '1 tool call(s) lack their audit events: transfer call c1 (executed) has no tool_executing event',
    );
  });

  it('a call that failed or ended unknown needs that outcome; one still executing needs tool_executing', () => {
    expect(check(call({ status: 'failed', events: ['tool_approved', 'tool_executing'] }))).toBe(
      '1 tool call(s) lack their audit events: transfer call c1 (failed) has no tool_failed event',
    );
    expect(check(call({ status: 'failed', events: ['tool_approved', 'tool_executing', 'tool_failed'] }))).toBeUndefined();
    expect(check(call({ status: 'unknown', events: ['tool_approved', 'tool_executing'] }))).toBe(
      '1 tool call(s) lack their audit events: transfer call c1 (unknown) has no tool_unknown event',
    );
    expect(check(call({ status: 'unknown', events: ['tool_approved', 'tool_executing', 'tool_unknown'] }))).toBeUndefined();
    expect(check(call({ status: 'executing', started_at: null, events: ['tool_approved'] }))).toBe(
      '1 tool call(s) lack their audit events: transfer call c1 (executing) has no tool_executing event',
    );
  });

  it('a read-only call that ran needs its outcome but no tool_executing', () => {
    const read = { tool: 'read_balance', mutability: 'read-only', approved_by: null };
    expect(check(call({ ...read, events: ['tool_executed'] }))).toBeUndefined();
    expect(check(call({ ...read, events: [] }))).toBe(
      '1 tool call(s) lack their audit events: read_balance call c1 (executed) has no tool_executed event',
    );
  });

  it('a read-only answer served from the cache ran nothing, so it needs no outcome; a mutable one always does', () => {
    const cached = JSON.stringify({ cachedFrom: 'c0' });
    expect(check(call({ mutability: 'read-only', approved_by: null, decision: cached }))).toBeUndefined();
    expect(check(call({ mutability: 'read-only', approved_by: null, decision: JSON.stringify({ type: 'run' }) }))).toMatch(
      /has no tool_executed event/,
    );
    expect(check(call({ mutability: 'read-only', approved_by: null, decision: 'not json' }))).toMatch(/has no tool_executed event/);
    expect(check(call({ decision: cached, events: ['tool_approved', 'tool_executing'] }))).toMatch(
      /\(executed\) has no tool_executed event/,
    );
  });

  it("a question's answer (recorded executed, never started) needs no approval event", () => {
    expect(check(call({ tool: 'ask_user', started_at: null, events: [] }))).toBeUndefined();
  });

  it('an approved call that never started needs only its approval', () => {
    expect(check(call({ status: 'approved', started_at: null, events: ['tool_approved'] }))).toBeUndefined();
    expect(check(call({ status: 'rejected', approved_by: null, started_at: null, events: [] }))).toBeUndefined();
  });

  it('names the first three calls with gaps and counts the rest', () => {
    const gaps = ['a', 'b', 'c', 'd', 'e'].map((id) => call({ id, status: 'failed', events: ['tool_approved', 'tool_executing'] }));
    expect(check(...gaps)).toBe(
      '5 tool call(s) lack their audit events: transfer call a (failed) has no tool_failed event; transfer call b (failed) has no tool_failed event; transfer call c (failed) has no tool_failed event and 2 more call(s)',
    );
    expect(check(...gaps.slice(0, 3))).toBe(
      '3 tool call(s) lack their audit events: transfer call a (failed) has no tool_failed event; transfer call b (failed) has no tool_failed event; transfer call c (failed) has no tool_failed event',
    );
  });
});
