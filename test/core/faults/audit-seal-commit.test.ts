import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../src/core/audit/index.ts';
import { openStore } from '../../../src/core/store/index.ts';
import { type PostgresCluster, postgresBinDir, startPostgresCluster } from '../../../src/testing/postgres-cluster.ts';
import { walSyncs } from './wal-syncs.ts';

const ROUNDS = 40;

// Its own cluster with fsync on: WAL fsyncs are counted cluster-wide, and one test crashes the server.
describe.skipIf(!postgresBinDir())('the audit sealer commits without waiting for a WAL flush (PostgreSQL)', () => {
  let cluster: PostgresCluster;
  beforeAll(() => {
    cluster = startPostgresCluster({ fsync: true });
  });
  afterAll(() => cluster?.dispose());

  it('costs no fsync of its own: journaling and sealing an event pays for the journal commit only', async () => {
    const store = await openStore({ databaseUrl: cluster.url, poolSize: 2 });
    const audit = new AuditLog(store, undefined, { sealDelayMs: 60_000 });
    await audit.append({ type: 'warning', actor: 'system', payload: { warm: true } });
    await audit.checkpoint();
    await store.close();
    const before = await walSyncs(cluster);

    const measured = await openStore({ databaseUrl: cluster.url, poolSize: 2 });
    const log = new AuditLog(measured, undefined, { sealDelayMs: 60_000, checkpointEveryMs: 3_600_000, checkpointEveryEvents: 1_000_000 });
    let sealed = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      await log.append({ type: 'warning', actor: 'system', payload: { round } });
      sealed += await log.seal();
    }
    await measured.close();
    const perRound = ((await walSyncs(cluster)) - before) / ROUNDS;

    console.info(`WAL fsyncs per journaled and sealed event: ${perRound}`);
    expect(sealed).toBe(ROUNDS);
    // Durable seals would make it 2 (the journal commit and the seal's); the WAL writer's own
    // background flushes (every 200 ms) come on top of the 1.
    expect(perRound).toBeLessThan(1.5);
  });

  it('loses nothing when the server crashes right after sealing: what a lost seal chained is sealed again and the chain verifies', async () => {
    const store = await openStore({ databaseUrl: cluster.url, poolSize: 2 });
    const audit = new AuditLog(store, undefined, { sealDelayMs: 60_000, checkpointEveryMs: 3_600_000, checkpointEveryEvents: 1_000_000 });
    for (let index = 0; index < 10; index += 1) {
      await audit.append({ type: 'warning', actor: 'system', payload: { crash: index } });
      await audit.seal();
    }
    cluster.stop();
    await store.close().catch(() => {});
    cluster.start();

    const reopened = await openStore({ databaseUrl: cluster.url, poolSize: 2 });
    const after = new AuditLog(reopened);
    await after.seal();
    const events = await after.list({ type: 'warning', limit: 1000 });
    const crashed = events.map((event) => (event.payload as { crash?: number }).crash).filter((index) => index !== undefined);
    expect(crashed).toEqual([...Array(10).keys()]);
    expect(await after.verify()).toMatchObject({ ok: true });
    await after.close();
    await reopened.close();
  });
});
