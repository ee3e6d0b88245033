import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../src/core/audit/index.ts';
import { createRuntime } from '../../../src/core/runtime/index.ts';
import { type DurableCommits, openStore } from '../../../src/core/store/index.ts';
import { createLedgerAgent, createLedgerModel, type LedgerRecorder } from '../../../src/testing/index.ts';
import { type PostgresCluster, postgresBinDir, startPostgresCluster } from '../../../src/testing/postgres-cluster.ts';
import { walSyncs } from './wal-syncs.ts';

const ROUND_TRIPS = 10;

const approver = { userId: 1, username: 'approver', roles: ['approver'] };

async function ledgerRuntime(url: string, durableCommits: DurableCommits, recorder: LedgerRecorder) {
  const store = await openStore({ databaseUrl: url, poolSize: 4, durableCommits });
  const runtime = await createRuntime({ store, agents: [createLedgerAgent(recorder)], model: () => createLedgerModel() });
  const roundTrip = async (userId: number) => {
    const user = { userId, username: `u${userId}`, roles: ['user'] };
    const session = await runtime.startSession({ agent: 'ledger', identity: user });
    const paused = await runtime.send(session.id, `pay bob ${userId}`, user);
    if (paused.interrupt?.type !== 'approval') throw new Error('expected a pause for approval');
    return {
      session,
      callId: paused.interrupt.callId,
      decide: () => runtime.decide(session.id, { type: 'approve', callId: paused.interrupt!.callId }, approver),
    };
  };
  return { store, runtime, roundTrip };
}

// Its own cluster with fsync on: WAL fsyncs are counted cluster-wide, and one test crashes the server.
// The WAL writer's background flush is held off (10 s, its longest), so the count is what the
// commits ask for rather than what the machine's load makes of it (a slow round trip would let the
// writer flush each commit that did not wait for its own flush).
describe.skipIf(!postgresBinDir())('which commits wait for their WAL flush (PostgreSQL, durableCommits)', () => {
  let cluster: PostgresCluster;
  beforeAll(() => {
    cluster = startPostgresCluster({ fsync: true, settings: { wal_writer_delay: '10s' } });
  });
  afterAll(() => cluster?.dispose());

  it.each([
    ['effects', 0.5, 2],
    ['all', 3.5, 6],
  ] as const)('a round trip one at a time with durableCommits %s costs between %s and %s WAL fsyncs', async (mode, least, most) => {
    const warm = await ledgerRuntime(cluster.url, mode, { reads: 0, transfers: [] });
    await (await warm.roundTrip(10)).decide();
    await warm.runtime.close();
    await warm.store.close();
    const before = await walSyncs(cluster);

    const recorder: LedgerRecorder = { reads: 0, transfers: [] };
    const measured = await ledgerRuntime(cluster.url, mode, recorder);
    for (let index = 1; index <= ROUND_TRIPS; index += 1)
      expect((await (await measured.roundTrip(100 + index)).decide()).status).toBe('completed');
    await measured.runtime.close();
    await measured.store.close();
    const perRoundTrip = ((await walSyncs(cluster)) - before) / ROUND_TRIPS;

    console.info(`WAL fsyncs per round trip, durableCommits ${mode}: ${perRoundTrip}`);
    expect(recorder.transfers).toHaveLength(ROUND_TRIPS);
    // `effects`: the commit before the transfer (its flush also makes the start and the pause
    // durable), plus the runtime's start and close and the sealer's signed checkpoints.
    // `all`: the start, the pause, `executing` and the end, each flushed.
    expect(perRoundTrip).toBeGreaterThanOrEqual(least);
    expect(perRoundTrip).toBeLessThanOrEqual(most);
  });

  it('keeps the commit before a side effect durable: a server crash during the transfer leaves the call executing and audited, never lost or run again', async () => {
    let release: () => void = () => {};
    let started: () => void = () => {};
    const transferStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const recorder: LedgerRecorder = {
      reads: 0,
      transfers: [],
      holdTransfer: new Promise<void>((resolve) => {
        release = resolve;
      }),
      onTransferStart: () => started(),
    };
    const { store, runtime, roundTrip } = await ledgerRuntime(cluster.url, 'effects', recorder);
    const trip = await roundTrip(900);
    const decided = trip.decide().then(
      () => 'answered',
      () => 'failed',
    );
    await transferStarted;
    cluster.stop();
    release();
    expect(await decided).toBe('failed');
    await runtime.close().catch(() => {});
    await store.close().catch(() => {});
    cluster.start();

    const reopened = await openStore({ databaseUrl: cluster.url, poolSize: 2 });
    const call = await reopened.db.selectFrom('tool_calls').select(['status', 'tool']).where('id', '=', trip.callId).executeTakeFirst();
    expect(call).toEqual({ status: 'executing', tool: 'transfer' });
    const audit = new AuditLog(reopened);
    await audit.seal();
    const executing = await audit.list({ type: 'tool_executing', limit: 1000 });
    expect(executing.filter((event) => (event.payload as { callId?: string }).callId === trip.callId)).toHaveLength(1);
    expect(await audit.verify()).toMatchObject({ ok: true });
    expect(recorder.transfers).toHaveLength(1);
    await audit.close();
    await reopened.close();
  });
});
