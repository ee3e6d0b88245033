import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { observeTransactions, openStore, type TransactionKind, UnitOfWork } from '../store/index.ts';
import { AuditLog } from './audit-log.ts';

describe('the background sealer shared among replicas', () => {
  it('waits the seal delay times the live replicas (at least one), so replicas together seal about as often as one', async () => {
    const store = await openStore({ sqlitePath: ':memory:', databaseUrl: '' });
    const audit = new AuditLog(store, undefined, { sealDelayMs: 25 });
    expect(audit.sealDelayMs).toBe(25);
    audit.shareSealing(8);
    expect(audit.sealDelayMs).toBe(200);
    audit.shareSealing(2.7);
    expect(audit.sealDelayMs).toBe(50);
    audit.shareSealing(0);
    expect(audit.sealDelayMs).toBe(25);
    await audit.close();
    await store.close();
  });

  it('waits 100 ms by default: a seal is a transaction, and readers seal first anyway', async () => {
    const store = await openStore({ sqlitePath: ':memory:', databaseUrl: '' });
    const audit = new AuditLog(store);
    expect(audit.sealDelayMs).toBe(100);
    await audit.close();
    await store.close();
  });

  it('seals inside the next commit of a turn, not in a transaction of its own, while turns commit', async () => {
    const store = await openStore({ sqlitePath: ':memory:', databaseUrl: '' });
    const audit = new AuditLog(store, undefined, { sealDelayMs: 200 });
    const kinds: TransactionKind[] = [];
    observeTransactions({ transaction: (_ms, _retries, _store, kind) => kinds.push(kind) });
    try {
      const unit = new UnitOfWork();
      audit.record(unit, { sessionId: null, type: 'warning', actor: 'system', payload: { probe: 1 } });
      await unit.commit(store);
      // Turns keep committing (an empty write each), as they do under any load.
      for (let tries = 0; tries < 300; tries += 1) {
        const pending = await store.db.selectFrom('audit_pending').select('id').execute();
        if (pending.length === 0) break;
        const turn = new UnitOfWork();
        turn.write(async () => {});
        await turn.commit(store);
        await sleep(10);
      }
      expect(await store.db.selectFrom('audit_pending').select('id').execute()).toEqual([]);
      expect(await store.db.selectFrom('audit_events').select('type').execute()).toEqual([{ type: 'warning' }]);
      expect(kinds.filter((kind) => kind === 'audit-seal')).toEqual([]);
      expect((await audit.verify()).ok).toBe(true);
    } finally {
      observeTransactions(undefined);
      await audit.close();
      await store.close();
    }
  });
});
