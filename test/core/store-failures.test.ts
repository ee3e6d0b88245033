import type { Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import type { CoreDatabase, Store } from '../../src/core/store/index.ts';
import {
  createLedgerAgent,
  createLedgerModel,
  type LedgerRecorder,
  postgresTestStore,
  sqliteTestStore,
  type TestStoreFactory,
  testDatabaseUrl,
} from '../../src/testing/index.ts';

/** A store whose `failAt`-th transaction does all its writes and then fails to commit (rolled back). */
function failingStore(store: Store, failAt: number): { store: Store; failed: () => boolean } {
  let transactions = 0;
  let failed = false;
  const db = new Proxy(store.db, {
    get(target, property) {
      if (property !== 'transaction') {
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return () => {
        const builder = target.transaction();
        return {
          execute: async <T>(work: (trx: Parameters<Parameters<typeof builder.execute>[0]>[0]) => Promise<T>): Promise<T> => {
            transactions += 1;
            if (transactions !== failAt) return builder.execute(work);
            failed = true;
            return builder.execute(async (trx) => {
              await work(trx);
              throw new Error('injected: the store failed at commit');
            });
          },
        };
      };
    },
  }) as Kysely<CoreDatabase>;
  return { store: { ...store, db }, failed: () => failed };
}

const alice = { userId: 7, username: 'alice', roles: ['approver'] };

/** The round trip as a person drives it: on an error they try the same step again. */
async function roundTripWithRetries(runtime: Runtime): Promise<void> {
  const attempt = async <T>(step: () => Promise<T>): Promise<T> => {
    for (let tries = 0; ; tries += 1) {
      try {
        return await step();
      } catch (error) {
        if (tries >= 2) throw error;
      }
    }
  };
  const session = await attempt(() => runtime.startSession({ agent: 'ledger', identity: alice }));
  let snapshot = await runtime.getSession(session.id, alice);
  if (snapshot.status !== 'waiting') await attempt(() => runtime.send(session.id, 'pay bob 30', alice));
  snapshot = await runtime.getSession(session.id, alice);
  if (snapshot.interrupt?.type === 'approval') {
    const callId = snapshot.interrupt.callId;
    await attempt(() => runtime.decide(session.id, { type: 'approve', callId }, alice)).catch(() => {});
  }
}

const factories: TestStoreFactory[] = [sqliteTestStore, ...(testDatabaseUrl ? [postgresTestStore] : [])];

describe.each(factories)('the store fails at each step of a call ($dialect)', (factory) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  // The transactions of one round trip: session start, pause, `executing` (before the side effect)
  // and result; failing each in turn covers every checkpoint.
  it.each([1, 2, 3, 4])(
    'failing transaction %i: the transfer runs at most once, never without its audit events, and the chain verifies',
    async (failAt) => {
      const testStore = await factory.create();
      cleanups.push(() => testStore.dispose());
      const faulty = failingStore(testStore.store, failAt);
      const recorder: LedgerRecorder = { reads: 0, transfers: [] };
      const model = createLedgerModel();
      const runtime = await createRuntime({ store: faulty.store, agents: [createLedgerAgent(recorder)], model: () => model });
      cleanups.push(() => runtime.close());

      await roundTripWithRetries(runtime);

      expect(faulty.failed()).toBe(true);
      expect(recorder.transfers.length).toBeLessThanOrEqual(1);
      const audit = new AuditLog(testStore.store);
      expect(await audit.verify()).toMatchObject({ ok: true });
      const calls = await testStore.store.db.selectFrom('tool_calls').selectAll().where('tool', '=', 'transfer').execute();
      const ran = calls.filter((call) => ['executing', 'executed', 'failed', 'unknown'].includes(call.status));
      expect(ran).toHaveLength(recorder.transfers.length);
      for (const call of ran) {
        const events = (await audit.list({ sessionId: call.session_id })).filter((event) => event.payload.callId === call.id);
        expect(events.map((event) => event.type)).toContain('tool_approved');
        expect(events.map((event) => event.type)).toContain('tool_executing');
        if (call.status === 'executed') expect(events.map((event) => event.type)).toContain('tool_executed');
      }
      const executedEvents = (await audit.list({ type: 'tool_executed' })).filter((event) => event.payload.tool === 'transfer');
      expect(executedEvents.length).toBeLessThanOrEqual(1);
    },
  );

  it('a sealer whose transaction fails loses nothing: the events stay journaled and the next seal chains them', async () => {
    const testStore = await factory.create();
    cleanups.push(() => testStore.dispose());
    const writer = new AuditLog(testStore.store, undefined, { sealDelayMs: 60_000 });
    cleanups.push(() => writer.close());
    for (const type of ['session_started', 'tool_proposed', 'tool_approved'])
      await writer.append({ sessionId: 's1', type, actor: 'system', payload: { n: type } });
    const pending = () => testStore.store.db.selectFrom('audit_pending').select('id').execute();
    expect(await pending()).toHaveLength(3);

    await expect(new AuditLog(failingStore(testStore.store, 1).store).seal()).rejects.toThrow(/injected/);
    expect(await pending()).toHaveLength(3);

    const audit = new AuditLog(testStore.store);
    expect(await audit.verify()).toMatchObject({ ok: true, checked: 3 });
    expect((await audit.list({ sessionId: 's1' })).map((event) => event.type)).toEqual([
      'session_started',
      'tool_proposed',
      'tool_approved',
    ]);
    expect(await pending()).toEqual([]);
  });
});
