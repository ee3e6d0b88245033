import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { newToolCallRow } from '../../src/core/runtime/session-repository.ts';
import { openStore, type Store } from '../../src/core/store/index.ts';
import { createLedgerAgent, createLedgerModel } from '../../src/testing/index.ts';

// Recovery decided by what it finds in the store, not by a process dying in time: sessions are put
// into the states a crash leaves (a call `executing`, the session `running`) and a second runtime on
// the same store recovers them. (test/core/crash-recovery.test.ts does it with a real kill -9.)
const alice = { userId: 1, username: 'alice', roles: ['user'] };
const NOT_RE_RUN =
  'Status unknown: opsgate stopped while this call was running. It was NOT re-run. Check the target system before trying again.';
const NOT_RUN = 'Not run: opsgate stopped before this call was processed.';

let store: Store;
let proposer: Runtime;
/** Started before any session below was left interrupted: it recovers only when asked. */
let recoverer: Runtime;
let rival: Runtime;

beforeAll(async () => {
  store = await openStore({ sqlitePath: ':memory:', databaseUrl: '', auditKey: '' });
  const quiet = { heartbeatMs: 3_600_000 };
  const agents = [createLedgerAgent({ reads: 0, transfers: [] })];
  proposer = await createRuntime({ store, agents, model: () => createLedgerModel(), ...quiet });
  recoverer = await createRuntime({ store, agents, model: () => createLedgerModel(), ...quiet });
  rival = await createRuntime({ store, agents, model: () => createLedgerModel(), ...quiet });
});
afterAll(async () => {
  for (const runtime of [proposer, recoverer, rival]) await runtime.close();
  await store.close();
});

/** A session waiting on its transfer's approval, then left as a crash of `runner` mid-call leaves it. */
async function interrupted(runner: string | null): Promise<{ sessionId: string; callId: string }> {
  const session = await proposer.startSession({ agent: 'ledger', identity: alice });
  const turn = await proposer.send(session.id, 'pay bob 30', alice);
  const callId = turn.interrupt!.callId;
  await store.db
    .updateTable('tool_calls')
    .set({ status: 'executing', runner, approved_by: 'alice', started_at: '2026-11-27T07:00:00.000Z' })
    .where('id', '=', callId)
    .execute();
  await store.db
    .updateTable('sessions')
    .set((eb) => ({ status: 'running', runner, version: eb('version', '+', 1) }))
    .where('id', '=', session.id)
    .execute();
  return { sessionId: session.id, callId };
}

/** Adds calls the crashed step had not processed yet, in the status each had reached. */
async function alsoPending(sessionId: string, calls: ReadonlyArray<{ id: string; status: string }>): Promise<void> {
  const row = await store.db.selectFrom('sessions').select('state').where('id', '=', sessionId).executeTakeFirstOrThrow();
  const state = JSON.parse(row.state) as { pendingCalls: unknown[] };
  for (const [at, call] of calls.entries()) {
    state.pendingCalls.push({ callId: call.id, toolName: 'transfer', input: '{"to":"carol","amount":5}' });
    await store.db
      .insertInto('tool_calls')
      .values(
        newToolCallRow({
          id: call.id,
          session_id: sessionId,
          seq: 100 + at,
          tool: 'transfer',
          args: '{"to":"carol","amount":5}',
          args_hash: `hash-${call.id}`,
          mutability: 'mutable',
          risk: 'medium',
          status: call.status,
          requested_by: 1,
          created_at: '2026-11-27T07:00:00.000Z',
        }),
      )
      .execute();
  }
  await store.db
    .updateTable('sessions')
    .set({ state: JSON.stringify(state) })
    .where('id', '=', sessionId)
    .execute();
}

const statusOf = async (callId: string) =>
  (await store.db.selectFrom('tool_calls').selectAll().where('id', '=', callId).executeTakeFirstOrThrow()) as {
    status: string;
    error: string | null;
    finished_at: string | null;
  };

describe('recovery of interrupted calls', () => {
  it("recovers what dead or unnamed runners left, leaves a live instance's work alone, and says which calls ran and which never did", async () => {
    // A live instance on another host: its heartbeat is fresh, so its executing call is its own.
    const now = new Date().toISOString();
    await store.db
      .insertInto('runtime_instances')
      .values({ id: 'live-replica', hostname: 'another-host', pid: 1, started_at: now, heartbeat_at: now })
      .execute();
    const live = await interrupted('live-replica');
    const dead = await interrupted('crashed-replica');
    await alsoPending(dead.sessionId, [
      { id: 'approved-not-run', status: 'approved' },
      { id: 'proposed-not-run', status: 'proposed' },
      { id: 'already-executed', status: 'executed' },
    ]);
    const unnamed = await interrupted(null);

    expect(await recoverer.recover()).toEqual({ unknownCalls: 2, sessions: 2 });

    expect(await statusOf(live.callId)).toMatchObject({ status: 'executing', finished_at: null });
    expect((await recoverer.getSession(live.sessionId, alice)).status).toBe('running');
    for (const { sessionId, callId } of [dead, unnamed]) {
      expect(await statusOf(callId)).toMatchObject({
        status: 'unknown',
        error: 'opsgate stopped while this call was running; it was not re-run',
        finished_at: expect.stringMatching(/^\d{4}-/),
      });
      expect((await recoverer.getSession(sessionId, alice)).status).toBe('idle');
    }
    for (const id of ['approved-not-run', 'proposed-not-run'])
      expect(await statusOf(id)).toMatchObject({
        status: 'failed',
        error: 'not run: opsgate stopped first',
        finished_at: expect.any(String),
      });
    expect((await statusOf('already-executed')).status).toBe('executed');

    const told = (await recoverer.getSession(dead.sessionId, alice)).messages.filter((m) => m.role === 'tool').map((m) => m.text);
    expect(told.slice(-4)).toEqual([NOT_RE_RUN, NOT_RUN, NOT_RUN, NOT_RUN]);
    const state = await store.db.selectFrom('sessions').select('state').where('id', '=', dead.sessionId).executeTakeFirstOrThrow();
    expect(JSON.parse(state.state).pendingCalls).toEqual([]);

    const events = await new AuditLog(store).list({ sessionId: dead.sessionId });
    const recovered = events.filter((event) => event.actor === 'system').map((event) => [event.type, event.payload]);
    expect(recovered).toEqual([
      ['tool_unknown', { callId: dead.callId, tool: 'transfer', startedAt: '2026-11-27T07:00:00.000Z' }],
      ['tool_failed', { callId: 'approved-not-run', tool: 'transfer', error: 'not run: opsgate stopped first' }],
      ['tool_failed', { callId: 'proposed-not-run', tool: 'transfer', error: 'not run: opsgate stopped first' }],
    ]);

    // Whoever watches the session live is told the call's outcome is unknown.
    const watched = await store.db.selectFrom('session_events').select(['type', 'data']).where('session_id', '=', dead.sessionId).execute();
    expect(watched.map((event) => [event.type, JSON.parse(event.data)])).toContainEqual([
      'tool.result',
      { callId: dead.callId, tool: 'transfer', status: 'unknown' },
    ]);

    // Done once: asked again, it finds nothing of the dead left.
    expect(await recoverer.recover()).toEqual({ unknownCalls: 0, sessions: 0 });
    // The live instance stops beating: now its call is recovered too.
    await store.db
      .updateTable('runtime_instances')
      .set({ heartbeat_at: '2000-01-01T00:00:00.000Z' })
      .where('id', '=', 'live-replica')
      .execute();
    expect(await recoverer.recover()).toEqual({ unknownCalls: 1, sessions: 1 });
    expect(await statusOf(live.callId)).toMatchObject({ status: 'unknown' });
  });

  it('two instances recovering the same crash at once recover each call and session once between them', async () => {
    const crashed = await interrupted('crashed-again');
    const [one, two] = await Promise.all([recoverer.recover(), rival.recover()]);
    expect(one.unknownCalls + two.unknownCalls).toBe(1);
    expect(one.sessions + two.sessions).toBe(1);
    const unknown = (await new AuditLog(store).list({ sessionId: crashed.sessionId })).filter((event) => event.type === 'tool_unknown');
    expect(unknown).toHaveLength(1);
  });

  it("skips a running session it cannot load (its agent is gone) and still recovers the others'", async () => {
    const orphan = await interrupted('crashed-third');
    await store.db.updateTable('sessions').set({ agent: 'retired-agent' }).where('id', '=', orphan.sessionId).execute();
    const other = await interrupted('crashed-third');
    expect(await recoverer.recover()).toEqual({ unknownCalls: 2, sessions: 1 });
    expect((await recoverer.getSession(other.sessionId, alice)).status).toBe('idle');
    const row = await store.db.selectFrom('sessions').select('status').where('id', '=', orphan.sessionId).executeTakeFirstOrThrow();
    expect(row.status).toBe('running');
  });
});
