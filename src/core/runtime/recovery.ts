import type { AuditLog } from '../audit/index.ts';
import type { Store } from '../store/index.ts';
import type { SessionEvents } from './events.ts';
import { sessionRepository } from './session-repository.ts';
import type { WorkingSession } from './working-session.ts';

export interface RecoveryContext {
  readonly store: Store;
  readonly audit: AuditLog;
  readonly events: SessionEvents;
  readonly now: () => Date;
  readonly load: (sessionId: string) => Promise<WorkingSession>;
  /** Instances still alive: what they run is theirs, not recovered. */
  readonly alive: ReadonlySet<string>;
}

export interface RecoveryReport {
  readonly unknownCalls: number;
  readonly sessions: number;
}

/**
 * Start-up recovery: a call found `executing` becomes `unknown` (it may or may not have happened;
 * it is never re-run), and a session a crash left `running` goes back to idle with every call it
 * had not finished answered in its history, so the model is told and the person sees it.
 */
export async function recoverInterruptedCalls({ store, audit, events, now, load, alive }: RecoveryContext): Promise<RecoveryReport> {
  const orphaned = (runner: string | null) => runner === null || !alive.has(runner);
  const stuck = (await store.db.selectFrom('tool_calls').selectAll().where('status', '=', 'executing').execute()).filter((call) =>
    orphaned(call.runner),
  );
  for (const call of stuck) {
    await sessionRepository.transitionToolCall(store.db, call.id, ['executing'], {
      status: 'unknown',
      error: 'opsgate stopped while this call was running; it was not re-run',
      finished_at: now().toISOString(),
    });
    await audit.append({
      sessionId: call.session_id,
      type: 'tool_unknown',
      actor: 'system',
      payload: { callId: call.id, tool: call.tool, startedAt: call.started_at },
    });
    await events.publish(call.session_id, 'tool.result', { callId: call.id, tool: call.tool, status: 'unknown' });
  }
  const running = (await store.db.selectFrom('sessions').select(['id', 'runner']).where('status', '=', 'running').execute()).filter((row) =>
    orphaned(row.runner),
  );
  for (const { id } of running) {
    const working = await load(id).catch(() => undefined);
    if (!working) continue;
    const at = now().toISOString();
    for (const pending of working.state.pendingCalls) {
      const known = stuck.find((c) => c.id === pending.callId);
      const reason = known
        ? 'Status unknown: opsgate stopped while this call was running. It was NOT re-run. Check the target system before trying again.'
        : 'Not run: opsgate stopped before this call was processed.';
      await working.addMessages(
        store.db,
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
      if (!known)
        await sessionRepository.transitionToolCall(store.db, pending.callId, ['proposed', 'approved'], {
          status: 'failed',
          error: 'not run: opsgate stopped first',
          finished_at: at,
        });
    }
    working.state.pendingCalls = [];
    await working.save(store.db, 'idle', at);
  }
  return { unknownCalls: stuck.length, sessions: running.length };
}
