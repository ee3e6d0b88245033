import pino from 'pino';
import type { Identity } from '../core/identity/index.ts';
import type { ToolContext } from '../core/tools/index.ts';

export interface RecordedToolContext extends ToolContext {
  /** Events the tool emitted, in order. */
  readonly emitted: Array<{ type: string; data: unknown }>;
  /** Audit events the tool appended, in order. */
  readonly audited: Array<{ type: string; payload: Record<string, unknown> }>;
  /** Phase changes the tool asked for. */
  readonly phaseChanges: Array<{ phase: string; reason?: string }>;
}

export const testIdentity: Identity = { userId: 1, username: 'john_doe', roles: ['user'] };

/** A `ToolContext` for calling a tool directly in a unit test, recording what the tool does. */
export function createTestToolContext(overrides: Partial<Omit<ToolContext, 'events' | 'audit' | 'setPhase'>> = {}): RecordedToolContext {
  const emitted: Array<{ type: string; data: unknown }> = [];
  const audited: Array<{ type: string; payload: Record<string, unknown> }> = [];
  const phaseChanges: Array<{ phase: string; reason?: string }> = [];
  const context: RecordedToolContext = {
    sessionId: 'test-session',
    callId: 'test-call',
    agent: 'test',
    identity: testIdentity,
    phase: 'main',
    signal: new AbortController().signal,
    logger: pino({ level: 'silent' }),
    state: {},
    ...overrides,
    emitted,
    audited,
    phaseChanges,
    events: { emit: (type, data) => emitted.push({ type, data }) },
    audit: async (type, payload) => {
      audited.push({ type, payload });
    },
    setPhase: (phase, reason) => {
      phaseChanges.push(reason === undefined ? { phase } : { phase, reason });
    },
  };
  return context;
}
