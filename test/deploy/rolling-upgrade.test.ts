import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import { openStore, type Store } from '../../src/core/store/index.ts';
import { postgresTestStore, type TestStore, testDatabaseUrl } from '../../src/testing/index.ts';
import { approve, createFaultUsers, injectClient, type LedgerServer, propose, startLedgerServer } from '../core/faults/ledger-server.ts';

// A rolling upgrade of the chart (maxUnavailable 0, one new pod at a time): calls proposed on a
// replica that is then replaced are decided on the new one and run exactly once, because every
// approval in flight is a row in PostgreSQL and the new replica's migrations run under the lock.
describe.skipIf(!testDatabaseUrl)('a rolling upgrade keeps every approval in flight', () => {
  let database: TestStore;
  let newStore: Store;
  let oldReplica: LedgerServer;
  let newReplica: LedgerServer;
  let tokens: { user: string; approver: string };

  beforeAll(async () => {
    database = await postgresTestStore.create();
    tokens = await createFaultUsers(database.store);
    oldReplica = await startLedgerServer(database.store);
  });
  afterAll(async () => {
    await newReplica?.close();
    await newStore?.close();
    await database?.dispose();
  });

  it('a call proposed and half-approved on the old replica is approved and executed once on the new one', async () => {
    const onOld = injectClient(oldReplica.app);
    const proposedBeforeUpgrade = await propose(onOld, tokens.user, 21);
    const decidedOnOld = await propose(onOld, tokens.user, 22);
    expect((await approve(onOld, tokens.approver, decidedOnOld.sessionId, decidedOnOld.callId)).body.status).toBe('completed');

    // The new pod starts beside the old one (maxSurge 1), opening the store and running migrations.
    newStore = await openStore({ databaseUrl: database.url!, poolSize: 4 });
    newReplica = await startLedgerServer(newStore);
    // The old pod is terminated once the new one is ready.
    await oldReplica.close();

    const onNew = injectClient(newReplica.app);
    const answer = await approve(onNew, tokens.approver, proposedBeforeUpgrade.sessionId, proposedBeforeUpgrade.callId);
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('completed');
    const again = await approve(onNew, tokens.approver, proposedBeforeUpgrade.sessionId, proposedBeforeUpgrade.callId);
    expect(again.status).toBeGreaterThanOrEqual(400);

    expect(oldReplica.recorder.transfers.map((t) => t.amount)).toEqual([22]);
    expect(newReplica.recorder.transfers.map((t) => t.amount)).toEqual([21]);
    expect(await new AuditLog(newStore).verify()).toMatchObject({ ok: true });
  });
});
