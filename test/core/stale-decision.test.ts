import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { UnitOfWork } from '../../src/core/store/index.ts';
import { testStoreFactories } from '../../src/testing/index.ts';
import { twoLedgerReplicas } from './two-ledger-replicas.ts';

const user = { userId: 7, username: 'paula', roles: ['user'] };
const approver = { userId: 1, username: 'alice', roles: ['approver'] };

// A decision is taken on the session this process remembers, without reading its version first
// (issue 32): the checkpoints check the version and the call's status anyway. When another replica
// wrote the session meanwhile, the decision must end exactly as if it had read the store first.
describe.each(testStoreFactories().map((factory) => [factory.dialect, factory] as const))(
  'a decision on a session another replica changed (%s)',
  (_dialect, factory) => {
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    const twoReplicas = () => twoLedgerReplicas(factory, cleanups);

    it('answers as the stored session says (no longer waiting) when the call was decided elsewhere, and runs nothing', async () => {
      const { recorder, first, second } = await twoReplicas();
      const session = await first.startSession({ agent: 'ledger', identity: user });
      const paused = await first.send(session.id, 'pay bob 5', user);
      const callId = paused.interrupt!.callId;
      await second.decide(session.id, { type: 'reject', callId, reason: 'not today' }, approver);

      const refused = await first.decide(session.id, { type: 'approve', callId }, approver).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'NO_PENDING_INTERRUPT' });
      expect(recorder.transfers).toEqual([]);
      // The remembered session was dropped: the next turn there sees the rejection.
      expect((await first.getSession(session.id, user)).toolCalls.find((call) => call.id === callId)?.status).toBe('rejected');
    });

    it('runs the approved call once when the session row changed elsewhere but the call still waits', async () => {
      const { testStore, recorder, first } = await twoReplicas();
      const session = await first.startSession({ agent: 'ledger', identity: user });
      const paused = await first.send(session.id, 'pay bob 6', user);
      // Another replica's write (a heartbeat's recovery, an edit of the title) bumps the version.
      await sql`update sessions set version = version + 1 where id = ${session.id}`.execute(testStore.store.db);

      const done = await first.decide(session.id, { type: 'approve', callId: paused.interrupt!.callId }, approver);
      expect(done.status).toBe('completed');
      expect(recorder.transfers).toHaveLength(1);
      const executed = await testStore.store.db.selectFrom('tool_calls').select('status').where('session_id', '=', session.id).execute();
      expect(executed.map((row) => row.status).sort()).toEqual(['executed', 'executed']);
    });

    it('runs nothing when the call was decided elsewhere without the session version moving (the status update guards alone)', async () => {
      const { testStore, recorder, first } = await twoReplicas();
      const session = await first.startSession({ agent: 'ledger', identity: user });
      const paused = await first.send(session.id, 'pay bob 8', user);
      const callId = paused.interrupt!.callId;
      // The version check passes; only the conditional status change (`where status = 'proposed'`) can see it.
      await sql`update tool_calls set status = 'rejected' where id = ${callId}`.execute(testStore.store.db);

      await first.decide(session.id, { type: 'approve', callId }, approver).catch(() => undefined);
      expect(recorder.transfers).toEqual([]);
      const row = await testStore.store.db.selectFrom('tool_calls').select('status').where('id', '=', callId).executeTakeFirst();
      expect(row?.status).toBe('rejected');
    });

    it('runs a call once when several approvals of it are committed in one group', async () => {
      const { testStore, recorder, first } = await twoReplicas();
      const session = await first.startSession({ agent: 'ledger', identity: user });
      const paused = await first.send(session.id, 'pay bob 7', user);
      // Units that hold every commit slot for a while, so the approvals' commits queue and go as one group.
      const blockers = [1, 2].map(() => {
        const blocker = new UnitOfWork();
        blocker.write(async () => {
          await sleep(300);
        });
        return blocker.commit(testStore.store);
      });
      const decisions = await Promise.allSettled(
        Array.from({ length: 5 }, () => first.decide(session.id, { type: 'approve', callId: paused.interrupt!.callId }, approver)),
      );
      await Promise.all(blockers);
      expect(decisions.filter((decision) => decision.status === 'fulfilled')).toHaveLength(1);
      expect(recorder.transfers).toHaveLength(1);
    });
  },
);
