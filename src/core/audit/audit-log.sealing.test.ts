import { describe, expect, it } from 'vitest';
import { openStore } from '../store/index.ts';
import { AuditLog } from './audit-log.ts';

describe('the background sealer shared among replicas', () => {
  it('waits the seal delay times the live replicas (at least one), so replicas together seal about as often as one', async () => {
    const store = await openStore({ sqlitePath: ':memory:', databaseUrl: '' });
    const audit = new AuditLog(store, undefined, { sealDelayMs: 25 });
    expect(audit.sealDelayMs).toBe(25);
    audit.shareSealing(8);
    expect(audit.sealDelayMs).toBe(200);
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
});
