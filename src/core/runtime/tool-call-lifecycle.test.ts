import { afterAll, describe, expect, it } from 'vitest';
import { type AuditEventType, AuditLog, CORE_AUDIT_EVENT_TYPES } from '../audit/index.ts';
import { openStore, UnitOfWork } from '../store/index.ts';
import { SessionEvents } from './events.ts';
import type { ToolCallRow } from './session-repository.ts';
import { IllegalTransitionError, NEW_CALL, ToolCallLifecycle } from './tool-call-lifecycle.ts';
import type { ToolCallStatus } from './types.ts';

// The lifecycle written out here independently of the table in tool-call-lifecycle.ts (a change
// to one without the other turns this red): every other move (and every move with another audit event) is refused
// before anything is queued. `null` is a move that writes no audit event.
const LEGAL: Record<string, readonly (AuditEventType | null)[]> = {
  'new→proposed': ['tool_proposed', 'question_asked'],
  'new→approved': [null, 'tool_auto_approved', 'tool_approved'],
  'new→blocked': ['tool_blocked'],
  'new→executed': [null],
  'proposed→approved': ['tool_approved'],
  'proposed→rejected': ['tool_rejected', 'tool_modified'],
  'proposed→expired': ['tool_expired', 'tool_voided'],
  'proposed→blocked': ['tool_blocked'],
  'proposed→failed': ['tool_failed'],
  'proposed→executed': ['question_answered'],
  'approved→executing': [null, 'tool_executing'],
  'approved→failed': ['tool_failed'],
  'executing→executed': ['tool_executed'],
  'executing→failed': ['tool_failed'],
  'executing→blocked': ['tool_blocked'],
  'executing→unknown': ['tool_unknown'],
};
const STATUSES: readonly ToolCallStatus[] = [
  'proposed',
  'approved',
  'executing',
  'executed',
  'failed',
  'rejected',
  'blocked',
  'expired',
  'unknown',
];
const EVENTS: readonly (AuditEventType | null)[] = [null, ...CORE_AUDIT_EVENT_TYPES];

const store = await openStore({ sqlitePath: ':memory:', databaseUrl: '', auditKey: '' });
afterAll(() => store.close());
const lifecycle = new ToolCallLifecycle(new AuditLog(store), new SessionEvents(store, () => new Date()));

const row = (status: ToolCallStatus): ToolCallRow =>
  ({
    id: 'c1',
    session_id: 's1',
    tool: 'transfer',
    status,
    args: '{}',
    args_hash: 'h',
    created_at: '2026-11-27T05:00:00.000Z',
    decided_at: null,
  }) as ToolCallRow;

function move(from: ToolCallStatus | typeof NEW_CALL, to: ToolCallStatus, event: AuditEventType | null): void {
  const uow = new UnitOfWork();
  const effects = event ? { audit: { type: event, actor: 'system' as const, payload: {} } } : {};
  if (from === NEW_CALL) lifecycle.create({ uow, calls: [] }, row(to), effects);
  // A queued call changes in memory only, so no store write is needed to reach the check.
  else lifecycle.transition(uow, { row: row(from), queued: true }, { to, ...effects });
}

describe('the tool-call lifecycle', () => {
  it('allows exactly the documented moves, each with its documented audit events, and refuses every other', () => {
    const refusedWrongly: string[] = [];
    const allowedWrongly: string[] = [];
    const origins: readonly (ToolCallStatus | typeof NEW_CALL)[] = [NEW_CALL, ...STATUSES];
    for (const from of origins)
      for (const to of STATUSES)
        for (const event of EVENTS) {
          const legal = LEGAL[`${from}→${to}`]?.includes(event) ?? false;
          let refused = false;
          try {
            move(from, to, event);
          } catch (error) {
            if (!(error instanceof IllegalTransitionError)) throw error;
            refused = true;
          }
          if (legal && refused) refusedWrongly.push(`${from}→${to} (${event})`);
          if (!legal && !refused) allowedWrongly.push(`${from}→${to} (${event})`);
        }
    expect(refusedWrongly).toEqual([]);
    expect(allowedWrongly).toEqual([]);
  });

  it('names the move it refused, and whether it came with an audit event', () => {
    expect(() => move('executed', 'executing', 'tool_executing')).toThrow(
      new IllegalTransitionError('executed', 'executing', 'tool_executing'),
    );
    expect(() => move('executed', 'executing', 'tool_executing')).toThrow(
      'a tool call may not move from executed to executing with the audit event tool_executing',
    );
    expect(() => move('proposed', 'approved', null)).toThrow('a tool call may not move from proposed to approved unaudited');
    const refused = (() => {
      try {
        move('rejected', 'approved', 'tool_approved');
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(IllegalTransitionError);
    expect((refused as Error).name).toBe('IllegalTransitionError');
  });
});
