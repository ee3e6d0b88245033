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

// Its own cluster: the test stops and starts the server, which must not disturb other suites.
describe.skipIf(!postgresBinDir())('PostgreSQL restarts under load', () => {
  let cluster: PostgresCluster;
  let store: Store;
  let server: LedgerServer;
  let send: Send;
  let tokens: { user: string; approver: string };

  beforeAll(async () => {
    cluster = startPostgresCluster();
    store = await openStore({ databaseUrl: cluster.url, poolSize: 4 });
    tokens = await createFaultUsers(store);
    server = await startLedgerServer(store);
    send = injectClient(server.app);
  });
  afterAll(async () => {
    await server?.close();
    await store?.close();
    cluster?.dispose();
  });

  it('answers STORE_UNAVAILABLE 503 with Retry-After while the database is down, then serves again with no manual step and nothing corrupted', async () => {
    const before = await propose(send, tokens.user, 11);
    const completedBefore = await approve(send, tokens.approver, before.sessionId, before.callId);
    expect(completedBefore.body.status).toBe('completed');
    const pausedAcross = await propose(send, tokens.user, 12);

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
