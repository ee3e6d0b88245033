import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAccessService } from '../../src/agents/access/service/create-access-service.ts';
import { seedAccessDemoData } from '../../src/agents/access/service/demo-data.ts';
import { EXPIRY_SWEEPER_ACTOR, startExpirySweeper } from '../../src/agents/access/service/expiry-sweeper.ts';
import { accessCatalogMigrations } from '../../src/agents/access/service/migration.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import { type TestStore, testStoreFactories } from '../../src/testing/test-stores.ts';

const ADMIN_KEY = 'test-admin-key-0123456789';

describe.each(testStoreFactories())('just-in-time access on $dialect', (factory) => {
  let testStore: TestStore;
  let app: FastifyInstance;
  let now = new Date('2026-02-11T10:30:00Z');
  const clock = { now: () => now };
  const john = { 'x-username': 'john_doe' };

  beforeEach(async () => {
    now = new Date('2026-02-11T10:30:00Z');
    testStore = await factory.create([...accessCatalogMigrations]);
    await seedAccessDemoData(testStore.store, clock);
    app = createAccessService({ store: testStore.store, adminKey: ADMIN_KEY, clock, catalogCacheMs: 0 });
  });
  afterEach(async () => {
    await app.close();
    await testStore.store.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await testStore.dispose();
  });

  const grant = (payload: Record<string, unknown>) => app.inject({ method: 'POST', url: '/users/1/accesses', headers: john, payload });

  it('refuses a grant outside the user’s teams with 403 and the contract’s message', async () => {
    const res = await grant({ access_name: 'BILLING_ADMIN' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      code: 'ACCESS_NOT_ELIGIBLE',
      detail:
        'You don\'t have permission for this operation: BILLING_ADMIN is for the finance team(s) and user "john_doe" is in the engineering team(s). Ask for an access of your teams.',
    });
    const held = await app.inject({ method: 'GET', url: '/users/1/accesses', headers: john });
    expect(held.json().accesses).toEqual([]);
    const fiona = await app.inject({
      method: 'POST',
      url: '/users/4/accesses',
      headers: { 'x-username': 'fiona_finance' },
      payload: { access_name: 'BILLING_ADMIN' },
    });
    expect(fiona.statusCode).toBe(201);
  });

  it('a shorter duration and a reason shape the grant; longer than the maximum is refused', async () => {
    const tooLong = await grant({ access_name: 'DB_WRITE_PROD', duration_days: 15 });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().code).toBe('ACCESS_DURATION_TOO_LONG');
    const res = await grant({ access_name: 'DB_WRITE_PROD', duration_days: 2, reason: 'incident 42' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ assigned_at: '2026-02-11T10:30:00Z', expires_at: '2026-02-13T10:30:00Z' });
    const rows = await testStore.store.db
      .selectFrom('user_accesses' as never)
      .select(['reason' as never])
      .execute();
    expect(rows).toEqual([{ reason: 'incident 42' }]);
  });

  it('an expired grant disappears, and the sweeper revokes it once with an audit event', async () => {
    expect((await grant({ access_name: 'DB_WRITE_PROD', duration_days: 1 })).statusCode).toBe(201);
    expect((await grant({ access_name: 'DB_READ_PROD' })).statusCode).toBe(201);
    const audit = new AuditLog(testStore.store, () => now);
    const sweeper = startExpirySweeper({ store: testStore.store, audit, clock, intervalMs: 3_600_000 });
    try {
      expect(await sweeper.sweepOnce()).toEqual([]);
      now = new Date('2026-02-12T10:30:00Z');
      const held = await app.inject({ method: 'GET', url: '/users/1/accesses', headers: john });
      expect(held.json().accesses.map((a: { name: string }) => a.name)).toEqual(['DB_READ_PROD']);
      const swept = await sweeper.sweepOnce();
      expect(swept).toEqual([
        {
          grant_id: 1,
          user_id: 1,
          username: 'john_doe',
          access_name: 'DB_WRITE_PROD',
          assigned_at: '2026-02-11T10:30:00Z',
          expires_at: '2026-02-12T10:30:00Z',
          revoked_at: '2026-02-12T10:30:00Z',
        },
      ]);
      expect(await sweeper.sweepOnce()).toEqual([]);
      const events = await audit.list({ type: 'access_expired_revoked' });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ actor: EXPIRY_SWEEPER_ACTOR, payload: { access_name: 'DB_WRITE_PROD', username: 'john_doe' } });
      expect((await audit.verify()).ok).toBe(true);
      // Once expired it can be asked for again.
      expect((await grant({ access_name: 'DB_WRITE_PROD', duration_days: 1 })).statusCode).toBe(201);
    } finally {
      sweeper.stop();
    }
  });

  it('a user revokes their own grant; another account or an unheld access is refused', async () => {
    expect((await grant({ access_name: 'DB_READ_DEV' })).statusCode).toBe(201);
    const other = await app.inject({ method: 'DELETE', url: '/users/1/accesses/DB_READ_DEV', headers: { 'x-username': 'jane_smith' } });
    expect(other.statusCode).toBe(403);
    const res = await app.inject({ method: 'DELETE', url: '/users/1/accesses/DB_READ_DEV', headers: john });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ user_id: 1, access_name: 'DB_READ_DEV', revoked_at: '2026-02-11T10:30:00Z' });
    const again = await app.inject({ method: 'DELETE', url: '/users/1/accesses/DB_READ_DEV', headers: john });
    expect(again.statusCode).toBe(404);
    expect(again.json().code).toBe('ACCESS_GRANT_NOT_FOUND');
  });
});
