import type { LanguageModelV4Message } from '@ai-sdk/provider';
import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { executeByShape, insertRows, updateOneRow } from '../store/index.ts';
import type { CoreDatabase, SessionsTable, ToolCallsTable } from '../store/schema.ts';
import type { StoredMessage } from './messages.ts';
import type { ToolCallRecord, ToolCallStatus } from './types.ts';

export type Db = Kysely<CoreDatabase> | Transaction<CoreDatabase>;

/** What a checkpoint writes of a session row (besides its version). */
const UPDATED_SESSION_COLUMNS = ['status', 'phase', 'route', 'steps', 'title', 'state', 'interrupt', 'updated_at', 'runner'] as const;
/** A session row to write if its stored version is still `version`. */
export interface SessionUpdate {
  readonly id: string;
  readonly version: number;
  readonly patch: Pick<SessionRow, (typeof UPDATED_SESSION_COLUMNS)[number]>;
}
export type SessionRow = Selectable<SessionsTable>;
export type ToolCallRow = Selectable<ToolCallsTable>;

function parseOptional<T>(text: string | null): T | undefined {
  return text === null ? undefined : (JSON.parse(text) as T);
}

function rejectionOf(decision: string): { by: string; reason: string } {
  const parsed = JSON.parse(decision) as { by?: string; reason?: string };
  return { by: parsed.by ?? 'unknown', reason: parsed.reason ?? 'no reason given' };
}

/** What a person's decision says beyond approve / reject: a Modify, a withdrawal. */
function decisionMarksOf(decision: string | null): Pick<ToolCallRecord, 'modification' | 'withdrawnBy'> {
  if (!decision) return {};
  const parsed = JSON.parse(decision) as { type?: string; by?: string; args?: Record<string, unknown>; replacedBy?: string };
  if (parsed.type === 'withdraw' && parsed.by) return { withdrawnBy: parsed.by };
  if (parsed.type !== 'modify' || !parsed.by) return {};
  return {
    modification: {
      by: parsed.by,
      ...(parsed.args ? { args: parsed.args } : {}),
      ...(parsed.replacedBy ? { replacedBy: parsed.replacedBy } : {}),
    },
  };
}

export function toToolCallRecord(row: ToolCallRow): ToolCallRecord {
  return {
    id: row.id,
    sessionId: row.session_id,
    tool: row.tool,
    args: JSON.parse(row.args) as Record<string, unknown>,
    argsHash: row.args_hash,
    mutability: row.mutability as ToolCallRecord['mutability'],
    risk: row.risk as ToolCallRecord['risk'],
    status: row.status as ToolCallStatus,
    ...(row.verdict ? { verdict: parseOptional(row.verdict) } : {}),
    ...(row.preview ? { preview: parseOptional(row.preview) } : {}),
    ...(row.result ? { result: parseOptional(row.result) } : {}),
    ...(row.error ? { error: row.error } : {}),
    ...(row.approved_by ? { approvedBy: row.approved_by } : {}),
    ...(row.approval_rule ? { approvalRule: row.approval_rule } : {}),
    ...(row.status === 'rejected' && row.decision ? { rejection: rejectionOf(row.decision) } : {}),
    ...decisionMarksOf(row.decision),
    createdAt: row.created_at,
    ...(row.expires_at ? { expiresAt: row.expires_at } : {}),
    ...(row.started_at ? { startedAt: row.started_at } : {}),
    ...(row.finished_at ? { finishedAt: row.finished_at } : {}),
  };
}

type RequiredCallFields =
  | 'id'
  | 'session_id'
  | 'seq'
  | 'tool'
  | 'args'
  | 'args_hash'
  | 'mutability'
  | 'risk'
  | 'status'
  | 'requested_by'
  | 'created_at';

/** A tool-call row with every optional column empty unless given. */
export function newToolCallRow(fields: Pick<ToolCallRow, RequiredCallFields> & Partial<ToolCallRow>): ToolCallRow {
  return {
    verdict: null,
    preview: null,
    decision: null,
    result: null,
    error: null,
    approved_by: null,
    approval_rule: null,
    expires_at: null,
    decided_at: null,
    started_at: null,
    finished_at: null,
    runner: null,
    ...fields,
  };
}

/** A session row's stored version, with the stored rows of the calls asked for with it. */
export interface StoredVersion {
  readonly version: number;
  readonly calls: ReadonlyMap<string, ToolCallRow>;
}

/** The runtime's reads and writes of sessions, messages and tool calls. */
/** What an approval is bound to: a proposed call changes only while these are as the deciding process holds them. */
export type BoundCall = Pick<ToolCallRow, 'tool' | 'args' | 'args_hash'>;

/** The columns a status change may set (all text). */
const PATCHABLE_COLUMNS = [
  'status',
  'verdict',
  'preview',
  'decision',
  'result',
  'error',
  'approved_by',
  'approval_rule',
  'expires_at',
  'decided_at',
  'started_at',
  'finished_at',
  'runner',
] as const satisfies ReadonlyArray<keyof ToolCallsTable>;
type PatchableColumn = (typeof PATCHABLE_COLUMNS)[number];

/** Every column of a stored call, in the order inserts list them. */
const TOOL_CALL_COLUMNS = [
  'id',
  'session_id',
  'seq',
  'tool',
  'args',
  'args_hash',
  'mutability',
  'risk',
  'status',
  'verdict',
  'preview',
  'decision',
  'result',
  'error',
  'requested_by',
  'approved_by',
  'approval_rule',
  'created_at',
  'expires_at',
  'decided_at',
  'started_at',
  'finished_at',
  'runner',
] as const satisfies ReadonlyArray<keyof ToolCallRow>;
/** Every column of a session row, in the order inserts list them. */
const SESSION_COLUMNS = [
  'id',
  'user_id',
  'agent',
  'pillar',
  'route',
  'phase',
  'role',
  'title',
  'status',
  'steps',
  'state',
  'interrupt',
  'version',
  'runner',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof SessionRow>;
const MESSAGE_COLUMNS = ['session_id', 'seq', 'role', 'content', 'created_at'] as const;
const PATCHABLE: ReadonlySet<string> = new Set(PATCHABLE_COLUMNS);

/** One status change of a stored call: from the status it must still be in, to what `patch` sets. */
export interface ToolCallChange {
  readonly id: string;
  readonly from: ToolCallStatus;
  readonly patch: Partial<Pick<ToolCallRow, PatchableColumn>> & { readonly status: string };
  readonly bound: BoundCall | undefined;
}

export const sessionRepository = {
  /** Stores new sessions (of one or more units of work committed together) in one statement. */
  async insertSessions(db: Db, rows: readonly SessionRow[]): Promise<void> {
    await insertRows(db, 'sessions', SESSION_COLUMNS, rows);
  },

  async loadSession(db: Db, id: string): Promise<SessionRow | undefined> {
    return db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /**
   * The stored versions of sessions and, for each request with a `callId`, that call's stored row,
   * in one read: cached sessions are checked, and the calls decisions are about read, together.
   */
  async storedVersions(db: Db, requests: readonly { sessionId: string; callId?: string }[]): Promise<Map<string, StoredVersion>> {
    const sessionIds = [...new Set(requests.map((request) => request.sessionId))];
    const callIds = [...new Set(requests.flatMap((request) => (request.callId === undefined ? [] : [request.callId])))];
    const found = new Map<string, { version: number; calls: Map<string, ToolCallRow> }>();
    // Built once per number of sessions and calls (statement-shapes.ts): this read precedes many turns.
    if (callIds.length === 0) {
      const { rows } = await executeByShape(db, `session versions × ${sessionIds.length}`, sessionIds, () =>
        db.selectFrom('sessions').select(['id', 'version']).where('id', 'in', sessionIds),
      );
      for (const row of rows) found.set(row.id, { version: row.version, calls: new Map() });
      return found;
    }
    const { rows } = await executeByShape(
      db,
      `session versions × ${sessionIds.length}, calls × ${callIds.length}`,
      [...callIds, ...sessionIds],
      () =>
        db
          .selectFrom('sessions')
          .leftJoin('tool_calls', (join) => join.onRef('tool_calls.session_id', '=', 'sessions.id').on('tool_calls.id', 'in', callIds))
          .selectAll('tool_calls')
          .select(['sessions.id as stored_session_id', 'sessions.version as stored_version'])
          .where('sessions.id', 'in', sessionIds),
    );
    for (const row of rows) {
      const { stored_session_id: sessionId, stored_version: version, ...call } = row;
      const entry = found.get(sessionId) ?? { version, calls: new Map<string, ToolCallRow>() };
      if (call.id !== null) entry.calls.set(call.id, call as ToolCallRow);
      found.set(sessionId, entry);
    }
    return found;
  },

  /**
   * Writes session rows in one statement, each only if nobody else wrote it since its `version` was
   * read; returns the ids written (a missing one was stale). One row (every commit of a lone round
   * trip) is a plain update by key: half the SQLite cost of the `from (values …)` join (issue 32).
   */
  async updateSessions(db: Db, updates: readonly SessionUpdate[]): Promise<Set<string>> {
    if (updates.length === 1) {
      const { id, version, patch } = updates[0]!;
      const set = UPDATED_SESSION_COLUMNS.map((column) => [column, patch[column]] as const);
      const written = await updateOneRow(
        db,
        'sessions',
        set,
        [
          ['id', id],
          ['version', version],
        ],
        { bumpVersion: true },
      );
      return new Set(written ? [id] : []);
    }
    const values = updates.map(({ id, version, patch }) => [
      id,
      version,
      patch.status,
      patch.phase,
      patch.route,
      patch.steps,
      patch.title,
      patch.state,
      patch.interrupt,
      patch.updated_at,
      patch.runner,
    ]);
    const written = await executeByShape<{ id: string }>(db, `update sessions × ${updates.length}`, values.flat(), () => {
      const rows = sql.join(values.map((row) => sql`(${sql.join(row)})`));
      return sql<{ id: string }>`
        with v(id, version, status, phase, route, steps, title, state, interrupt, updated_at, runner) as (values ${rows})
        update sessions set
          status = v.status, phase = v.phase, route = v.route, steps = cast(v.steps as integer), title = v.title,
          state = v.state, interrupt = v.interrupt, updated_at = v.updated_at, runner = v.runner,
          version = cast(v.version as integer) + 1
        from v
        where sessions.id = v.id and sessions.version = cast(v.version as integer)
        returning sessions.id`;
    });
    return new Set(written.rows.map((row) => row.id));
  },

  async loadMessages(db: Db, sessionId: string): Promise<StoredMessage[]> {
    const rows = await db
      .selectFrom('messages')
      .select(['seq', 'content', 'created_at'])
      .where('session_id', '=', sessionId)
      .orderBy('seq', 'asc')
      .execute();
    return rows.map((r) => ({ seq: r.seq, message: JSON.parse(r.content) as LanguageModelV4Message, createdAt: r.created_at }));
  },

  /** Stores messages of one or more sessions in one statement. */
  async insertMessages(db: Db, messages: readonly { readonly sessionId: string; readonly message: StoredMessage }[]): Promise<void> {
    await insertRows(
      db,
      'messages',
      MESSAGE_COLUMNS,
      messages.map(({ sessionId, message }) => ({
        session_id: sessionId,
        seq: message.seq,
        role: message.message.role,
        content: JSON.stringify(message.message),
        created_at: message.createdAt,
      })),
    );
  },

  async insertToolCalls(db: Db, rows: readonly ToolCallRow[]): Promise<void> {
    await insertRows(db, 'tool_calls', TOOL_CALL_COLUMNS, rows);
  },

  /** Moves a call from one of `from` to a new status; false when it was not in one of them. */
  /**
   * Changes many stored calls, one statement per shape of change (which columns it sets): each
   * call only while it is still in its `from` status (and, with `bound`, still has the tool and
   * arguments its approval was checked against). Returns the ids changed (a missing one was stale).
   * Each call must appear once: in `UPDATE … FROM (VALUES …)` a row listed twice is changed once
   * and returned once, so two changes of one call would both look done.
   */
  async transitionToolCalls(db: Db, changes: readonly ToolCallChange[]): Promise<Set<string>> {
    const shapes = new Map<string, ToolCallChange[]>();
    for (const change of changes) {
      const columns = Object.keys(change.patch).filter((column) => change.patch[column as PatchableColumn] !== undefined);
      const fixed = columns.find((column) => !PATCHABLE.has(column));
      if (fixed) throw new Error(`a status change cannot set tool_calls.${fixed}`);
      const key = columns.sort().join(',');
      const shape = shapes.get(key);
      if (shape) shape.push(change);
      else shapes.set(key, [change]);
    }
    const written = new Set<string>();
    for (const [key, shape] of shapes) {
      const columns = key.split(',') as PatchableColumn[];
      if (shape.length === 1) {
        const { id, from, bound, patch } = shape[0]!;
        const still = bound
          ? ([
              ['tool', bound.tool],
              ['args', bound.args],
              ['args_hash', bound.args_hash],
            ] as const)
          : [];
        const set = columns.map((column) => [column, patch[column] ?? null] as const);
        if (await updateOneRow(db, 'tool_calls', set, [['id', id], ['status', from], ...still])) written.add(id);
        continue;
      }
      const values = shape.map(({ id, from, bound, patch }) => [
        id,
        from,
        bound?.tool ?? null,
        bound?.args ?? null,
        bound?.args_hash ?? null,
        ...columns.map((column) => patch[column] ?? null),
      ]);
      const result = await executeByShape<{ id: string }>(db, `update tool_calls (${key}) × ${shape.length}`, values.flat(), () => {
        const rows = sql.join(values.map((row) => sql`(${sql.join(row)})`));
        const names = sql.raw(columns.map((column) => `new_${column}`).join(', '));
        const assignments = sql.raw(columns.map((column) => `${column} = v.new_${column}`).join(', '));
        return sql<{ id: string }>`
          with v(id, from_status, bound_tool, bound_args, bound_hash, ${names}) as (values ${rows})
          update tool_calls set ${assignments}
          from v
          where tool_calls.id = v.id and tool_calls.status = v.from_status
            and (v.bound_tool is null or (tool_calls.tool = v.bound_tool and tool_calls.args = v.bound_args and tool_calls.args_hash = v.bound_hash))
          returning tool_calls.id`;
      });
      for (const row of result.rows) written.add(row.id);
    }
    return written;
  },

  async getToolCall(db: Db, id: string): Promise<ToolCallRow | undefined> {
    return db.selectFrom('tool_calls').selectAll().where('id', '=', id).executeTakeFirst();
  },

  async loadToolCalls(db: Db, sessionId: string): Promise<ToolCallRow[]> {
    return db.selectFrom('tool_calls').selectAll().where('session_id', '=', sessionId).orderBy('seq', 'asc').execute();
  },

  /** The recorded result of an identical read-only call made after the session's last mutable execution. */
  async findCachedResult(db: Db, sessionId: string, tool: string, argsHash: string): Promise<ToolCallRow | undefined> {
    const hit = await db
      .selectFrom('tool_calls')
      .selectAll()
      .where('session_id', '=', sessionId)
      .where('tool', '=', tool)
      .where('args_hash', '=', argsHash)
      .where('status', '=', 'executed')
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!hit) return undefined;
    const laterMutation = await db
      .selectFrom('tool_calls')
      .select('id')
      .where('session_id', '=', sessionId)
      .where('mutability', '=', 'mutable')
      .where('seq', '>', hit.seq)
      .where('status', 'in', ['executing', 'executed', 'failed', 'unknown'])
      .limit(1)
      .executeTakeFirst();
    return laterMutation ? undefined : hit;
  },

  async nextToolCallSeq(db: Db, sessionId: string): Promise<number> {
    const row = await db
      .selectFrom('tool_calls')
      .select((eb) => eb.fn.max('seq').as('max'))
      .where('session_id', '=', sessionId)
      .executeTakeFirst();
    return Number(row?.max ?? 0) + 1;
  },
};
