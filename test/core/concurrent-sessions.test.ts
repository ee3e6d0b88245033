import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { openStore } from '../../src/core/store/index.ts';
import {
  createLedgerAgent,
  createLedgerModel,
  type LedgerRecorder,
  postgresTestStore,
  sqliteTestStore,
  type TestStore,
  testDatabaseUrl,
} from '../../src/testing/index.ts';

const CONCURRENT_SESSIONS = 256;

interface RoundTripReport {
  readonly completed: number;
  readonly failures: string[];
}

/** Every session does the approval round trip at once: read → gated call → pause → approve (on another runtime when given) → answer. */
async function roundTrips(runtimes: readonly Runtime[], sessions: number): Promise<RoundTripReport> {
  const failures: string[] = [];
  let completed = 0;
  await Promise.all(
    Array.from({ length: sessions }, async (_, index) => {
      const user = { userId: 1000 + index, username: `user${index}`, roles: ['user'] };
      const approver = { userId: 1, username: 'alice', roles: ['approver'] };
      const proposer = runtimes[index % runtimes.length]!;
      const decider = runtimes[(index + 1) % runtimes.length]!;
      try {
        const session = await proposer.startSession({ agent: 'ledger', identity: user });
        const paused = await proposer.send(session.id, `pay bob ${index + 1}`, user);
        if (paused.status !== 'waiting' || paused.interrupt?.type !== 'approval') throw new Error(`no pause: ${paused.status}`);
        const done = await decider.decide(session.id, { type: 'approve', callId: paused.interrupt.callId }, approver);
        if (done.status !== 'completed') throw new Error(`not completed: ${done.status}`);
        completed += 1;
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }),
  );
  return { completed, failures };
}

describe('many sessions at once', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function expectExactlyOnceAndAudited(testStore: TestStore, recorder: LedgerRecorder, report: RoundTripReport): Promise<void> {
    expect(report.failures).toEqual([]);
    expect(report.completed).toBe(CONCURRENT_SESSIONS);
    expect(recorder.transfers).toHaveLength(CONCURRENT_SESSIONS);
    expect(new Set(recorder.transfers.map((t) => t.amount)).size).toBe(CONCURRENT_SESSIONS);
    const audit = new AuditLog(testStore.store);
    expect(await audit.verify()).toMatchObject({ ok: true });
    const executedTransfers = (await audit.list({ type: 'tool_executed', limit: 5000 })).filter((e) => e.payload.tool === 'transfer');
    expect(executedTransfers).toHaveLength(CONCURRENT_SESSIONS);
    const statuses = await testStore.store.db.selectFrom('tool_calls').select(['status']).where('tool', '=', 'transfer').execute();
    expect(statuses.every((row) => row.status === 'executed')).toBe(true);
    // Events of sessions committed together (group commit) are stored by one statement: each
    // session's still run 1, 2, 3… with no gap and no number twice.
    const numbering = await testStore.store.db
      .selectFrom('session_events')
      .select((eb) => ['session_id', eb.fn.min('seq').as('first'), eb.fn.max('seq').as('last'), eb.fn.countAll().as('count')])
      .groupBy('session_id')
      .execute();
    expect(numbering).toHaveLength(CONCURRENT_SESSIONS);
    expect(numbering.filter((row) => Number(row.first) !== 1 || Number(row.last) !== Number(row.count))).toEqual([]);
  }

  it('SQLite: 256 concurrent approval round trips in one process finish with no failure, each transfer once, audit verifying', async () => {
    const testStore = await sqliteTestStore.create();
    cleanups.push(() => testStore.dispose());
    const recorder: LedgerRecorder = { reads: 0, transfers: [] };
    const model = createLedgerModel();
    const runtime = await createRuntime({ store: testStore.store, agents: [createLedgerAgent(recorder)], model: () => model });
    cleanups.push(() => runtime.close());
    const report = await roundTrips([runtime], CONCURRENT_SESSIONS);
    await expectExactlyOnceAndAudited(testStore, recorder, report);
  });

  it.skipIf(!testDatabaseUrl)(
    'PostgreSQL: 256 concurrent round trips across three runtimes with their own pools, approved on another replica than proposed',
    async () => {
      const testStore = await postgresTestStore.create();
      cleanups.push(() => testStore.dispose());
      const recorder: LedgerRecorder = { reads: 0, transfers: [] };
      const model = createLedgerModel();
      const runtimes: Runtime[] = [];
      for (let replica = 0; replica < 3; replica += 1) {
        const store = replica === 0 ? testStore.store : await openStore({ databaseUrl: testStore.url!, poolSize: 4 });
        if (replica > 0) cleanups.push(() => store.close());
        const runtime = await createRuntime({ store, agents: [createLedgerAgent(recorder)], model: () => model });
        cleanups.push(() => runtime.close());
        runtimes.push(runtime);
      }
      const report = await roundTrips(runtimes, CONCURRENT_SESSIONS);
      await expectExactlyOnceAndAudited(testStore, recorder, report);
    },
    // Correctness, not speed (bench:load measures that): on a loaded two-core machine 768 PostgreSQL
    // transactions from three pools can take longer than the default 30 s.
    120_000,
  );
});
