import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../src/core/runtime/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { openStore, type Store } from '../../src/core/store/index.ts';
import { createLedgerAgent, createLedgerModel, postgresTestStore, type TestStore, testDatabaseUrl } from '../../src/testing/index.ts';

const alice = { userId: 1, username: 'alice', roles: ['user'] };

describe.skipIf(!testDatabaseUrl)('two replicas on one PostgreSQL store', () => {
  let first: TestStore | undefined;
  let second: Store | undefined;
  afterEach(async () => {
    await second?.close();
    await first?.dispose();
  });

  /** A writing replica on the test database and a watching one on its own pool (`onStatement`: the watcher's statements). */
  async function twoReplicas(onStatement?: (sql: string) => void): Promise<{ writer: Runtime; watcher: Runtime; database: TestStore }> {
    first = await postgresTestStore.create();
    second = await openStore({ databaseUrl: first.url!, poolSize: 2, ...(onStatement ? { onStatement } : {}) });
    const recorder = { reads: 0, transfers: [] };
    const writer = await createRuntime({ store: first.store, agents: [createLedgerAgent(recorder)], model: () => createLedgerModel() });
    const watcher = await createRuntime({ store: second, agents: [createLedgerAgent(recorder)], model: () => createLedgerModel() });
    return { writer, watcher, database: first };
  }

  it('a subscriber on one replica hears, live and in order, the events a turn on the other replica writes', async () => {
    const { writer, watcher } = await twoReplicas();
    const session = await writer.startSession({ agent: 'ledger', identity: alice });
    const heard: SessionEvent[] = [];
    const unsubscribe = watcher.events.subscribe(session.id, (event) => heard.push(event));
    await watcher.events.listening();
    const turn = await writer.send(session.id, 'pay bob 30', alice);
    const stored = await writer.events.since(session.id, 1);
    const last = stored.at(-1)!.seq;
    // Until the last event arrives: one that never does fails at the test timeout (no deadline of our own).
    while (!heard.some((e) => e.seq === last)) await new Promise((resolve) => setTimeout(resolve, 25));
    unsubscribe();
    expect(turn.status).toBe('waiting');
    // The session's first event (seq 1) may arrive before or after the subscription; the turn's may not be missed.
    expect(heard.filter((e) => e.seq > 1).map((e) => e.seq)).toEqual(stored.map((e) => e.seq));
    expect(heard.some((e) => e.type === 'interrupt')).toBe(true);
    await writer.close();
    await watcher.close();
  });

  it("a replica reads another replica's events only for sessions someone there follows, and hands them to that session's listeners only (integrations hear their own replica's events, so each is delivered once)", async () => {
    let eventReads = 0;
    const { writer, watcher } = await twoReplicas((statement) => {
      if (/from "session_events"/i.test(statement)) eventReads += 1;
    });
    const everySession: SessionEvent[] = [];
    const stopEvery = watcher.events.subscribe('*', (event) => everySession.push(event));

    const unfollowed = await writer.startSession({ agent: 'ledger', identity: alice });
    await writer.send(unfollowed.id, 'pay bob 10', alice);
    const followed = await writer.startSession({ agent: 'ledger', identity: alice });
    // The session's first notice passes while nobody here follows it: the turn's batch must still arrive whole.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const heard: SessionEvent[] = [];
    const unsubscribe = watcher.events.subscribe(followed.id, (event) => heard.push(event));
    await watcher.events.listening();
    await writer.send(followed.id, 'pay bob 20', alice);
    const last = (await writer.events.since(followed.id, 0)).at(-1)!.seq;
    // Until the last event arrives: one that never does fails at the test timeout (no deadline of our own).
    while (!heard.some((e) => e.seq === last)) await new Promise((resolve) => setTimeout(resolve, 25));
    unsubscribe();
    stopEvery();

    expect(heard.some((e) => e.type === 'interrupt')).toBe(true);
    expect(heard.every((e) => e.sessionId === followed.id)).toBe(true);
    expect(heard.map((e) => e.seq)).toEqual((await writer.events.since(followed.id, 1)).map((e) => e.seq));
    // Only the followed session's events were read; the unfollowed session's notifications cost nothing.
    expect(eventReads).toBeGreaterThan(0);
    expect(eventReads).toBeLessThanOrEqual(heard.length);
    expect(everySession).toEqual([]);
    await writer.close();
    await watcher.close();
  });

  it('a replica listens only while it follows a session: notices of sessions nobody follows wake no connection', async () => {
    const { writer, watcher, database } = await twoReplicas();
    const dbName = new URL(database.url!).pathname.slice(1);
    const listeners = async () =>
      Number(
        (
          await sql<{
            count: string;
          }>`select count(*) as count from pg_stat_activity where datname = ${dbName} and query like 'LISTEN%'`.execute(database.store.db)
        ).rows[0]!.count,
      );
    const session = await writer.startSession({ agent: 'ledger', identity: alice });
    const stopEvery = watcher.events.subscribe('*', () => {});
    await writer.send(session.id, 'pay bob 5', alice);
    expect(await listeners()).toBe(0);
    const unsubscribe = watcher.events.subscribe(session.id, () => {});
    await watcher.events.listening();
    expect(await listeners()).toBe(1);
    unsubscribe();
    stopEvery();
    await watcher.close();
    expect(await listeners()).toBe(0);
    await writer.close();
  });

  it('a replica whose listening connection the server dropped (a restart, a failover) hears the other replica again without a manual step', async () => {
    const { writer, watcher, database } = await twoReplicas();
    const session = await writer.startSession({ agent: 'ledger', identity: alice });
    const heard: SessionEvent[] = [];
    const unsubscribe = watcher.events.subscribe(session.id, (event) => heard.push(event));
    await watcher.events.listening();
    const dbName = new URL(database.url!).pathname.slice(1);
    const terminated = await sql<{ pid: number }>`
      select pid from pg_stat_activity where datname = ${dbName} and query like 'LISTEN%' and pg_terminate_backend(pid)`.execute(
      database.store.db,
    );
    expect(terminated.rows.length).toBeGreaterThan(0);
    let turn = await writer.send(session.id, 'pay bob 30', alice);
    const deadline = Date.now() + 10_000;
    while (!heard.some((e) => e.type === 'interrupt') && Date.now() < deadline) {
      // Events written before the listener was back are not relayed; the person's next action is.
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (!heard.some((e) => e.type === 'interrupt') && turn.status === 'waiting') {
        turn = await writer.decide(session.id, { type: 'reject', callId: turn.interrupt!.callId, reason: 'again' }, alice);
        turn = await writer.send(session.id, 'pay bob 30', alice);
      }
    }
    unsubscribe();
    expect(heard.some((e) => e.type === 'interrupt')).toBe(true);
    await writer.close();
    await watcher.close();
  });
});
