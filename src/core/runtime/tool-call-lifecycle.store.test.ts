import { afterAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../audit/index.ts';
import { openStore, StaleWriteError, UnitOfWork } from '../store/index.ts';
import { NO_OBSERVER, type RuntimeObserver } from '../telemetry/index.ts';
import { SessionEvents } from './events.ts';
import { newToolCallRow, sessionRepository } from './session-repository.ts';
import { ToolCallLifecycle, type TrackedCall, trackStored } from './tool-call-lifecycle.ts';

// The lifecycle against a real store: what a commit writes, what it refuses, and what the observer
// is told once it is stored. (tool-call-lifecycle.test.ts holds the table of legal moves.)
const store = await openStore({ sqlitePath: ':memory:', databaseUrl: '', auditKey: '' });
afterAll(() => store.close());
const audit = new AuditLog(store);
const events = new SessionEvents(store, () => new Date());

const seen: string[] = [];
const waits: number[] = [];
const observer: RuntimeObserver = {
  ...NO_OBSERVER,
  toolCall: (tool, status) => seen.push(`${tool} ${status}`),
  approvalWait: (seconds) => waits.push(seconds),
};
const lifecycle = new ToolCallLifecycle(audit, events, observer);

let calls = 0;
const proposedAt = '2026-11-27T07:00:00.000Z';
function proposal(sessionId: string) {
  calls += 1;
  return newToolCallRow({
    id: `call-${calls}`,
    session_id: sessionId,
    seq: calls,
    tool: 'transfer',
    args: '{"to":"bob","amount":30}',
    args_hash: `hash-${calls}`,
    mutability: 'mutable',
    risk: 'medium',
    status: 'proposed',
    requested_by: 1,
    created_at: proposedAt,
  });
}

/** A call proposed and stored, then tracked as a later turn loads it. */
async function storedProposal(sessionId: string): Promise<TrackedCall> {
  const uow = new UnitOfWork();
  const row = proposal(sessionId);
  const call = lifecycle.create({ uow, calls: [] }, row, {
    audit: { type: 'tool_proposed', actor: 'agent:ledger', payload: { callId: row.id } },
  });
  await uow.commit(store);
  return trackStored((await sessionRepository.getToolCall(store.db, call.row.id))!);
}

const approval = (decidedAt: string) => ({
  to: 'approved' as const,
  patch: { approved_by: 'bob', decided_at: decidedAt },
  audit: { type: 'tool_approved' as const, actor: 'user:bob' as const, payload: { by: 'bob' } },
});

describe('the tool-call lifecycle on a store', () => {
  it('tells the observer each status a call reaches only once it is committed, and how long a proposal waited for its decision', async () => {
    seen.length = 0;
    waits.length = 0;
    const uow = new UnitOfWork();
    const created = lifecycle.create({ uow, calls: [] }, proposal('s-observed'), {
      audit: { type: 'tool_proposed', actor: 'agent:ledger', payload: {} },
    });
    expect(created.queued).toBe(true);
    expect(seen).toEqual([]);
    await uow.commit(store);
    expect(created.queued).toBe(false);
    expect(seen).toEqual(['transfer proposed']);

    const decide = new UnitOfWork();
    lifecycle.transition(decide, created, approval('2026-11-27T07:01:30.000Z'));
    expect(seen).toEqual(['transfer proposed']);
    await decide.commit(store);
    expect(seen).toEqual(['transfer proposed', 'transfer approved']);
    expect(waits).toEqual([90]);

    // Only the decision on a proposal is a wait: the later moves of the same call are not.
    const run = new UnitOfWork();
    lifecycle.transition(run, created, { to: 'executing', patch: { started_at: '2026-11-27T07:02:00.000Z' } });
    await run.commit(store);
    expect(seen.at(-1)).toBe('transfer executing');
    expect(waits).toEqual([90]);

    // A decision stamped before the proposal (clocks of two replicas) is a wait of zero, not a negative one.
    const early = await storedProposal('s-observed');
    const skewed = new UnitOfWork();
    lifecycle.transition(skewed, early, approval('2026-11-27T06:59:00.000Z'));
    await skewed.commit(store);
    expect(waits).toEqual([90, 0]);
  });

  it('stores the status with its audit event and its live event in one commit', async () => {
    const call = await storedProposal('s-stored');
    const uow = new UnitOfWork();
    lifecycle.transition(uow, call, {
      ...approval('2026-11-27T07:03:00.000Z'),
      live: { type: 'tool.approved', data: { callId: call.row.id } },
    });
    await uow.commit(store);
    const row = await sessionRepository.getToolCall(store.db, call.row.id);
    expect(row).toMatchObject({ status: 'approved', approved_by: 'bob', decided_at: '2026-11-27T07:03:00.000Z' });
    const logged = await audit.list({ sessionId: 's-stored' });
    expect(logged.map((event) => [event.type, event.actor, event.payload])).toEqual([
      ['tool_proposed', 'agent:ledger', { callId: call.row.id }],
      ['tool_approved', 'user:bob', { by: 'bob' }],
    ]);
    expect((await events.since('s-stored', 0)).map((event) => [event.type, event.data])).toEqual([
      ['tool.approved', { callId: call.row.id }],
    ]);
  });

  it('changes a stored call only while it is still in the status this process saw: else the whole unit rolls back', async () => {
    const call = await storedProposal('s-raced');
    await store.db.updateTable('tool_calls').set({ status: 'rejected' }).where('id', '=', call.row.id).execute();
    const before = (await audit.list({ sessionId: 's-raced' })).length;
    const uow = new UnitOfWork();
    lifecycle.transition(uow, call, approval('2026-11-27T07:04:00.000Z'));
    const failure = await uow.commit(store).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StaleWriteError);
    expect(String(failure)).toContain(call.row.id);
    expect((await sessionRepository.getToolCall(store.db, call.row.id))?.status).toBe('rejected');
    expect(await audit.list({ sessionId: 's-raced' })).toHaveLength(before);
  });

  it('approves a proposal only as the deciding process holds it: arguments changed in the store since roll the unit back', async () => {
    const call = await storedProposal('s-edited');
    await store.db.updateTable('tool_calls').set({ args: '{"to":"mallory","amount":30}' }).where('id', '=', call.row.id).execute();
    const uow = new UnitOfWork();
    lifecycle.transition(uow, call, approval('2026-11-27T07:05:00.000Z'));
    await expect(uow.commit(store)).rejects.toBeInstanceOf(StaleWriteError);
    expect((await sessionRepository.getToolCall(store.db, call.row.id))?.status).toBe('proposed');
  });

  it('several moves of one stored call in one unit become one change carrying every patch, each move audited in order', async () => {
    const call = await storedProposal('s-merged');
    const uow = new UnitOfWork();
    lifecycle.transition(uow, call, approval('2026-11-27T07:06:00.000Z'));
    lifecycle.transition(uow, call, {
      to: 'executing',
      patch: { started_at: '2026-11-27T07:06:01.000Z' },
      audit: { type: 'tool_executing', actor: 'system', payload: {} },
    });
    lifecycle.transition(uow, call, {
      to: 'executed',
      patch: { result: '{"ok":true}', finished_at: '2026-11-27T07:06:02.000Z' },
      audit: { type: 'tool_executed', actor: 'system', payload: {} },
    });
    expect(call.row.status).toBe('executed');
    await uow.commit(store);
    expect(await sessionRepository.getToolCall(store.db, call.row.id)).toMatchObject({
      status: 'executed',
      approved_by: 'bob',
      decided_at: '2026-11-27T07:06:00.000Z',
      started_at: '2026-11-27T07:06:01.000Z',
      result: '{"ok":true}',
      finished_at: '2026-11-27T07:06:02.000Z',
    });
    expect((await audit.list({ sessionId: 's-merged' })).map((event) => event.type)).toEqual([
      'tool_proposed',
      'tool_approved',
      'tool_executing',
      'tool_executed',
    ]);
  });
});
