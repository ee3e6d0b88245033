import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../src/core/audit/index.ts';
import { openStore, type Store } from '../../../src/core/store/index.ts';
import { type PostgresCluster, postgresBinDir, startPostgresCluster } from '../../../src/testing/postgres-cluster.ts';
import { approve, createFaultUsers, injectClient, type LedgerServer, propose, type Send, startLedgerServer } from './ledger-server.ts';

const MAX_ATTEMPTS = 200;

/** Repeats `request` until it answers something other than 503 (bounded: attempts, not time). */
async function untilUp<T extends { status: number }>(request: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const answer = await request();
    if (answer.status !== 503 || attempt >= MAX_ATTEMPTS) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A CHECKPOINT flushes the WAL: what the WAL writer does by itself within `wal_writer_delay`
 * (200 ms). Under `durableCommits: 'effects'` a pause is not flushed at its commit, and a crash in
 * that fraction of a second may lose it (docs/security.md, "What a server crash can lose";
 * test/core/faults/durable-commits.test.ts); this suite's promise is about the outage after it.
 */
async function flushWal(url: string): Promise<void> {
  await withClient(url, (client) => client.query('CHECKPOINT'));
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** A database of its own in the cluster, so each mode starts from an empty store. */
async function createDatabase(clusterUrl: string, name: string): Promise<string> {
  await withClient(clusterUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(clusterUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

// Its own cluster (the test stops and starts the server, which must not disturb other suites), one
// database per durability mode so both run against the same outage without a second initdb.
describe.skipIf(!postgresBinDir())('PostgreSQL restarts under load', () => {
  let cluster: PostgresCluster;
  beforeAll(() => {
    cluster = startPostgresCluster();
  });
  afterAll(() => cluster?.dispose());

  describe.each(['all', 'effects'] as const)('durable commits: %s', (durableCommits) => {
    let url: string;
    let store: Store;
    let server: LedgerServer;
    let send: Send;
    let tokens: { user: string; approver: string };

    beforeAll(async () => {
      url = await createDatabase(cluster.url, `restart_${durableCommits}`);
      store = await openStore({ databaseUrl: url, poolSize: 4, durableCommits });
      tokens = await createFaultUsers(store);
      server = await startLedgerServer(store);
      send = injectClient(server.app);
    });
    afterAll(async () => {
      await server?.close();
      await store?.close();
    });

    it('answers STORE_UNAVAILABLE 503 with Retry-After while the database is down, then serves again with no manual step and nothing corrupted', async () => {
      const before = await propose(send, tokens.user, 11);
      const completedBefore = await approve(send, tokens.approver, before.sessionId, before.callId);
      expect(completedBefore.body.status).toBe('completed');
      const pausedAcross = await propose(send, tokens.user, 12);
      if (durableCommits === 'effects') await flushWal(url);

      cluster.stop();
      const inFlight = await Promise.all([
        send('GET', `/api/sessions/${before.sessionId}`, tokens.user),
        send('POST', '/api/sessions', tokens.user, { agent: 'ledger' }),
        approve(send, tokens.approver, pausedAcross.sessionId, pausedAcross.callId),
      ]);
      for (const answer of inFlight) {
        expect(answer.status).toBe(503);
        expect(answer.body).toMatchObject({ code: 'STORE_UNAVAILABLE' });
        expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      }
      expect(server.recorder.transfers).toHaveLength(1);
      const notReady = await send('GET', '/readyz', tokens.user);
      expect(notReady.status).toBe(503);
      expect(notReady.body).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect((await send('GET', '/healthz', tokens.user)).status).toBe(200);

      cluster.start();
      const reread = await untilUp(() => send('GET', `/api/sessions/${before.sessionId}`, tokens.user));
      expect(reread.status).toBe(200);
      expect(reread.body).toMatchObject({ status: 'idle' });
      expect((await send('GET', '/readyz', tokens.user)).body).toEqual({ ok: true, store: 'postgres' });

      // The call paused before the outage is still waiting for its approval, and runs once now.
      const resumed = await untilUp(() => approve(send, tokens.approver, pausedAcross.sessionId, pausedAcross.callId));
      expect(resumed.status).toBe(200);
      expect(resumed.body.status).toBe('completed');
      const after = await propose(send, tokens.user, 13);
      expect((await approve(send, tokens.approver, after.sessionId, after.callId)).body.status).toBe('completed');

      expect(server.recorder.transfers.map((t) => t.amount)).toEqual([11, 12, 13]);
      const audit = new AuditLog(store);
      expect(await audit.verify()).toMatchObject({ ok: true });
      const executed = (await audit.list({ type: 'tool_executed', limit: 100 })).filter((e) => e.payload.tool === 'transfer');
      expect(executed).toHaveLength(3);
    });
  });
});
