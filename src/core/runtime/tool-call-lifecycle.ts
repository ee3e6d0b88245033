import type { AuditActor, AuditEventType, AuditLog } from '../audit/index.ts';
import { StaleWriteError, type UnitOfWork } from '../store/index.ts';
import { NO_OBSERVER, type RuntimeObserver } from '../telemetry/index.ts';
import type { SessionEvents } from './events.ts';
import { type BoundCall, sessionRepository, type ToolCallChange, type ToolCallRow } from './session-repository.ts';
import type { ToolCallStatus } from './types.ts';

/** A call not yet stored. */
export const NEW_CALL = 'new';
type From = ToolCallStatus | typeof NEW_CALL;

/**
 * Every status change a tool call may make, and the audit event each one writes (`null`: the
 * change may go unaudited — only a read-only call's way to its execution, whose result is audited).
 * `rejected` and `blocked` are final; `executing` is stored before the side effect, so a crash
 * leaves a call that may have run as `unknown`, never to be re-run.
 */
export const TOOL_CALL_TRANSITIONS: Readonly<Record<From, Partial<Record<ToolCallStatus, ReadonlyArray<AuditEventType | null>>>>> = {
  new: {
    proposed: ['tool_proposed', 'question_asked'],
    approved: [null, 'tool_auto_approved', 'tool_approved'],
    blocked: ['tool_blocked'],
    // A read-only result served from the session's cache: nothing ran.
    executed: [null],
  },
  proposed: {
    approved: ['tool_approved'],
    rejected: ['tool_rejected', 'tool_modified'],
    expired: ['tool_expired', 'tool_voided'],
    blocked: ['tool_blocked'],
    failed: ['tool_failed'],
    executed: ['question_answered'],
  },
  approved: { executing: [null, 'tool_executing'], failed: ['tool_failed'] },
  executing: { executed: ['tool_executed'], failed: ['tool_failed'], blocked: ['tool_blocked'], unknown: ['tool_unknown'] },
  executed: {},
  failed: {},
  rejected: {},
  blocked: {},
  expired: {},
  unknown: {},
};

/** A call as the lifecycle tracks it: its row, and whether the row is still waiting to be inserted. */
export interface TrackedCall {
  row: ToolCallRow;
  /** True until the commit that inserts the row; changes before then edit the queued insert. */
  queued: boolean;
}

/** Where a new call belongs: its session's unit of work and list of calls. */
export interface CallOwner {
  readonly uow: UnitOfWork;
  readonly calls: TrackedCall[];
}

export interface TransitionAudit {
  readonly type: AuditEventType;
  readonly actor: AuditActor;
  readonly payload: Record<string, unknown>;
}

interface TransitionLive {
  readonly type: string;
  readonly data: unknown;
}

export interface Transition {
  readonly to: ToolCallStatus;
  /** Columns that change with the status. */
  readonly patch?: Partial<Omit<ToolCallRow, 'id' | 'session_id' | 'status'>>;
  readonly audit?: TransitionAudit;
  readonly live?: TransitionLive;
}

export class IllegalTransitionError extends Error {
  constructor(from: From, to: ToolCallStatus, event: string | null) {
    super(`a tool call may not move from ${from} to ${to}${event ? ` with the audit event ${event}` : ' unaudited'}`);
    this.name = 'IllegalTransitionError';
  }
}

function assertAllowed(from: From, transition: Transition): void {
  const events = TOOL_CALL_TRANSITIONS[from][transition.to];
  const event = transition.audit?.type ?? null;
  if (!events || !events.includes(event)) throw new IllegalTransitionError(from, transition.to, event);
}

/**
 * The one place a tool call's status changes. Each change writes the status, its audit event and
 * its live event together in the caller's unit of work, so they are stored in one transaction
 * and the live event is only seen once all of it is stored.
 */
export class ToolCallLifecycle {
  readonly #audit: AuditLog;
  readonly #events: SessionEvents;
  readonly #observer: RuntimeObserver;

  constructor(audit: AuditLog, events: SessionEvents, observer: RuntimeObserver = NO_OBSERVER) {
    this.#audit = audit;
    this.#events = events;
    this.#observer = observer;
  }

  /** Records a new call of a session in its first status. */
  create(session: CallOwner, row: ToolCallRow, effects: Omit<Transition, 'to' | 'patch'> = {}): TrackedCall {
    assertAllowed(NEW_CALL, { to: row.status as ToolCallStatus, ...effects });
    const { uow } = session;
    const call: TrackedCall = { row, queued: true };
    session.calls.push(call);
    uow.share('tool_calls', call, async (trx, calls) => {
      await sessionRepository.insertToolCalls(
        trx,
        calls.map((queued) => queued.row),
      );
    });
    uow.afterCommit(() => {
      call.queued = false;
      this.#observer.toolCall(row.tool, row.status as ToolCallStatus);
    });
    this.#effects(uow, row.session_id, effects);
    return call;
  }

  /**
   * Moves a call to a new status. A stored call changes only if it is still in the status this
   * process last saw; otherwise the whole unit of work rolls back (someone else decided it).
   */
  transition(uow: UnitOfWork, call: TrackedCall, transition: Transition): void {
    const from = call.row.status as ToolCallStatus;
    assertAllowed(from, transition);
    // A decision may be taken on the call as this process remembers it (no read first): what its
    // approval was checked against must still be what is stored, or the unit rolls back.
    const bound: BoundCall | undefined =
      from === 'proposed' ? { tool: call.row.tool, args: call.row.args, args_hash: call.row.args_hash } : undefined;
    const patch = { ...transition.patch, status: transition.to };
    call.row = { ...call.row, ...patch };
    if (!call.queued) {
      // The changes of every unit committed together are written by a statement per shape; several
      // changes of one call in one unit become one conditional change.
      const id = call.row.id;
      uow.share('tool_call_changes', { unit: uow, change: { id, from, patch, bound } }, async (trx, queued) => {
        const changes = mergeChanges(queued);
        const written = await sessionRepository.transitionToolCalls(trx, changes);
        const stale = changes.find((change) => !written.has(change.id));
        if (stale) throw new StaleWriteError('tool call', stale.id);
      });
    }
    this.#effects(uow, call.row.session_id, transition);
    const { tool, created_at: proposedAt, decided_at: decidedAt } = call.row;
    uow.afterCommit(() => {
      this.#observer.toolCall(tool, transition.to);
      if (from === 'proposed' && decidedAt) this.#observer.approvalWait(Math.max(0, Date.parse(decidedAt) - Date.parse(proposedAt)) / 1000);
    });
  }

  #effects(uow: UnitOfWork, sessionId: string, effects: Pick<Transition, 'audit' | 'live'>): void {
    if (effects.audit) this.#audit.record(uow, { sessionId, ...effects.audit });
    if (effects.live) this.#events.record(uow, sessionId, effects.live.type, effects.live.data);
  }
}

/** What a `tool_proposed` event records: the exact arguments and hash the approval will be bound to. */
export interface ProposalFacts {
  readonly callId: string;
  readonly tool: string;
  readonly args: unknown;
  readonly argsHash: string;
  readonly risk: string;
  readonly verdict: unknown;
  readonly requestedBy: string;
}

export function proposalAudit(actor: AuditActor, facts: ProposalFacts, extra: Record<string, unknown> = {}): TransitionAudit {
  return { type: 'tool_proposed', actor, payload: { ...facts, ...extra } };
}

/** A call loaded from the store, to be changed through the lifecycle. */
export function trackStored(row: ToolCallRow): TrackedCall {
  return { row, queued: false };
}

/** A change queued by one unit of work, shared with the other units of its commit. */
interface QueuedChange {
  readonly unit: UnitOfWork;
  readonly change: ToolCallChange;
}

/**
 * One change per call: a unit's changes of one call merge (from its first status, every patch in
 * order). Two units changing the same call in one commit (two decisions of one call at once) make
 * the commit stale, so the group falls back to one commit each and only one of them wins.
 */
function mergeChanges(queued: readonly QueuedChange[]): ToolCallChange[] {
  const merged = new Map<string, QueuedChange>();
  for (const { unit, change } of queued) {
    const earlier = merged.get(change.id);
    if (!earlier) merged.set(change.id, { unit, change });
    else if (earlier.unit !== unit) throw new StaleWriteError('tool call', change.id);
    else merged.set(change.id, { unit, change: { ...earlier.change, patch: { ...earlier.change.patch, ...change.patch } } });
  }
  return [...merged.values()].map((entry) => entry.change);
}
