import { sql } from 'kysely';
import { SYSTEM_ACTOR } from '../audit/index.ts';
import { StaleWriteError, type Store, UnitOfWork } from '../store/index.ts';
import { sessionRepository } from './session-repository.ts';
import { type ToolCallLifecycle, trackStored } from './tool-call-lifecycle.ts';
import type { WorkingSession } from './working-session.ts';

export interface RecoveryContext {
  readonly store: Store;
  readonly lifecycle: ToolCallLifecycle;
  readonly now: () => Date;
  readonly load: (sessionId: string) => Promise<WorkingSession>;
  /** Instances still alive: what they run is theirs, not recovered. */
  readonly alive: ReadonlySet<string>;
}

export interface RecoveryReport {
  readonly unknownCalls: number;
  readonly sessions: number;
}

/** Another replica recovering the same thing at the same moment is not an error: it did the work. */
async function commitUnlessTaken(commit: () => Promise<void>): Promise<boolean> {
  try {
    await commit();
    return true;
  } catch (error) {
    if (error instanceof StaleWriteError) return false;
    throw error;
  }
}

/**
 * Calls left `executing` and sessions left `running`, whoever runs them, in one statement: the
 * leading replica reads this at every heartbeat, where two reads cost a transaction each (issue 32).
 * Literals, not parameters: only then may SQLite and PostgreSQL (a generic plan) read the partial
 * index `tool_calls_executing`.
 */
function interruptedWork(store: Store): Promise<Array<{ kind: 'call' | 'session'; id: string; runner: string | null }>> {
  return store.db
    .selectFrom('tool_calls')
    .select([sql.lit('call').$castTo<'call' | 'session'>().as('kind'), 'id', 'runner'])
    .where('status', '=', sql.lit('executing'))
    .unionAll((db) =>
      db
        .selectFrom('sessions')
        .select([sql.lit('session').$castTo<'call' | 'session'>().as('kind'), 'id', 'runner'])
        .where('status', '=', sql.lit('running')),
    )
    .execute();
}

/**
 * Start-up recovery: a call found `executing` becomes `unknown` (it may or may not have happened;
 * it is never re-run), and a session a crash left `running` goes back to idle with every call it
 * had not finished answered in its history, so the model is told and the person sees it.
 */
export async function recoverInterruptedCalls({ store, lifecycle, now, load, alive }: RecoveryContext): Promise<RecoveryReport> {
  const orphaned = (runner: string | null) => runner === null || !alive.has(runner);
  const candidates = await interruptedWork(store);
  const stuckIds = candidates.filter((row) => row.kind === 'call' && orphaned(row.runner)).map((row) => row.id);
  const stuck =
    stuckIds.length === 0
      ? []
      : (
          await store.db
            .selectFrom('tool_calls')
            .selectAll()
            .where('id', 'in', stuckIds)
            .where('status', '=', sql.lit('executing'))
            .execute()
        ).filter((call) => orphaned(call.runner));
  let unknownCalls = 0;
  for (const call of stuck) {
    const uow = new UnitOfWork();
    lifecycle.transition(uow, trackStored(call), {
      to: 'unknown',
      patch: { error: 'opsgate stopped while this call was running; it was not re-run', finished_at: now().toISOString() },
      audit: { type: 'tool_unknown', actor: SYSTEM_ACTOR, payload: { callId: call.id, tool: call.tool, startedAt: call.started_at } },
      live: { type: 'tool.result', data: { callId: call.id, tool: call.tool, status: 'unknown' } },
    });
    if (await commitUnlessTaken(() => uow.commit(store))) unknownCalls += 1;
  }
  const running = candidates.filter((row) => row.kind === 'session' && orphaned(row.runner));
  let sessions = 0;
  for (const { id } of running) {
    const working = await load(id).catch(() => undefined);
    if (!working || working.row.status !== 'running') continue;
    const at = now().toISOString();
    for (const pending of working.state.pendingCalls) {
      const known = stuck.find((c) => c.id === pending.callId);
      const reason = known
        ? 'Status unknown: opsgate stopped while this call was running. It was NOT re-run. Check the target system before trying again.'
        : 'Not run: opsgate stopped before this call was processed.';
      working.addMessages(
        [
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: pending.callId,
                toolName: pending.toolName,
                output: { type: 'error-text', value: reason },
              },
            ],
          },
        ],
        at,
      );
      const row = known ? undefined : await sessionRepository.getToolCall(store.db, pending.callId);
      if (row && (row.status === 'proposed' || row.status === 'approved')) {
        lifecycle.transition(working.uow, trackStored(row), {
          to: 'failed',
          patch: { error: 'not run: opsgate stopped first', finished_at: at },
          audit: {
            type: 'tool_failed',
            actor: SYSTEM_ACTOR,
            payload: { callId: row.id, tool: row.tool, error: 'not run: opsgate stopped first' },
          },
        });
      }
    }
    working.state.pendingCalls = [];
    working.save('idle', at);
    if (await commitUnlessTaken(() => working.commit(store))) sessions += 1;
  }
  return { unknownCalls, sessions };
}
