import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import { testStoreFactories } from '../../src/testing/index.ts';
import { twoLedgerReplicas } from './two-ledger-replicas.ts';

const user = { userId: 7, username: 'paula', roles: ['user'] };
const approver = { userId: 1, username: 'alice', roles: ['approver'] };

// A message on a session this process stored last is taken without reading its version first
// (issue 32): the turn's first checkpoint checks the version. When another replica wrote the
// session meanwhile, the turn must end as if it had read the store first, and what already ran
// (the ledger's read-only `read_balance`) must still be audited.
describe.each(testStoreFactories().map((factory) => [factory.dialect, factory] as const))(
  'a message on a session another replica changed (%s)',
  (_dialect, factory) => {
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    const twoReplicas = () => twoLedgerReplicas(factory, cleanups);

    it('takes the turn again on the stored session, audits the read that ran on the stale one, and stores the turn once', async () => {
      const { testStore, recorder, first, second } = await twoReplicas();
      const session = await first.startSession({ agent: 'ledger', identity: user });
      await second.send(session.id, 'what is my balance', user);
      expect(recorder.reads).toBe(1);

      const paused = await first.send(session.id, 'pay bob 5', user);
      expect(paused.status).toBe('waiting');
      // The read ran on the remembered session, its checkpoint found the session changed, and the turn ran again.
      expect(recorder.reads).toBe(3);
      const done = await first.decide(session.id, { type: 'approve', callId: paused.interrupt!.callId }, approver);
      expect(done.status).toBe('completed');
      expect(recorder.transfers).toHaveLength(1);

      const calls = await testStore.store.db
        .selectFrom('tool_calls')
        .select(['tool', 'status'])
        .where('session_id', '=', session.id)
        .orderBy('seq')
        .execute();
      expect(calls).toEqual([
        { tool: 'read_balance', status: 'executed' },
        { tool: 'read_balance', status: 'executed' },
        { tool: 'transfer', status: 'executed' },
      ]);
      const users = await testStore.store.db
        .selectFrom('messages')
        .select('seq')
        .where('session_id', '=', session.id)
        .where('role', '=', 'user')
        .execute();
      expect(users).toHaveLength(2);

      const audit = new AuditLog(testStore.store);
      const events = await audit.list({ sessionId: session.id });
      // Three reads ran, three are audited: the stale turn's with a warning saying why its turn is not stored.
      expect(events.filter((event) => event.type === 'tool_executed' && event.payload.tool === 'read_balance')).toHaveLength(3);
      expect(events.filter((event) => event.type === 'warning').map((event) => event.payload.code)).toEqual(['SESSION_CHANGED_ELSEWHERE']);
      // Everything the stale turn journaled is kept (its transfer's proposal too, whose call was never
      // stored), before the warning; the turn taken again proposed the transfer that ran.
      const warning = events.find((event) => event.type === 'warning')!;
      const stale = events.filter((event) => event.type === 'tool_proposed' && event.seq < warning.seq);
      expect(stale).toHaveLength(1);
      expect(calls.map((call) => call.tool)).toHaveLength(3);
      expect(events.filter((event) => event.type === 'tool_proposed' && event.seq > warning.seq)).toHaveLength(1);
      expect((await audit.verify()).ok).toBe(true);
    });

    it('a "yes" typed to a remembered pause that was decided elsewhere is a message on the stored session, as before', async () => {
      const { first, second } = await twoReplicas();
      const session = await first.startSession({ agent: 'ledger', identity: user });
      const paused = await first.send(session.id, 'pay bob 9', user);
      await second.decide(session.id, { type: 'reject', callId: paused.interrupt!.callId, reason: 'not today' }, approver);
      const answered = await first.send(session.id, 'yes', user);
      expect(answered.status).toBe('completed');
      expect(answered.messages.some((message) => message.role === 'user')).toBe(true);
    });

    it('after such a miss, reads the stored version before the next messages (the model is not called twice again)', async () => {
      const { recorder, first, second } = await twoReplicas();
      const session = await first.startSession({ agent: 'ledger', identity: user });
      await second.send(session.id, 'balance one', user);
      // Each replica finds its remembered session changed once: the turn runs twice there.
      await first.send(session.id, 'balance two', user);
      await second.send(session.id, 'balance three', user);
      expect(recorder.reads).toBe(5);
      for (let turn = 0; turn < 3; turn += 1) {
        const before = recorder.reads;
        await second.send(session.id, `balance on the second ${turn}`, user);
        await first.send(session.id, `balance on the first ${turn}`, user);
        expect(recorder.reads - before).toBe(2);
      }
    });
  },
);
