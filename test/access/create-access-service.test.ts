import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAccessService } from '../../src/agents/access/service/create-access-service.ts';
import { catalogUserIdFor, seedAccessDemoData } from '../../src/agents/access/service/demo-data.ts';
import { accessCatalogMigrations } from '../../src/agents/access/service/migration.ts';
import { type TestStore, testStoreFactories } from '../../src/testing/test-stores.ts';

const ADMIN_KEY = 'test-admin-key-0123456789';

describe.each(testStoreFactories())('access service on $dialect', (factory) => {
  let testStore: TestStore;
  let app: FastifyInstance;
  let now = new Date('2026-02-11T10:30:00Z');
  const clock = { now: () => now };

  beforeEach(async () => {
    now = new Date('2026-02-11T10:30:00Z');
    testStore = await factory.create([...accessCatalogMigrations]);
    await seedAccessDemoData(testStore.store, clock);
    app = createAccessService({ store: testStore.store, adminKey: ADMIN_KEY, clock, catalogCacheMs: 0 });
  });
  afterEach(async () => {
    await app.close();
    // Trap in the shared helper: pg's pool.end() resolves before its sockets close, and
    // DROP DATABASE … WITH (FORCE) then kills them with an uncaught 57P01. Close first, let them go.
    await testStore.store.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await testStore.dispose();
  });

  const admin = { 'x-admin-key': ADMIN_KEY };
  const john = { 'x-username': 'john_doe' };

  it('seeds the demo data idempotently with john_doe as user 1', async () => {
    const again = await seedAccessDemoData(testStore.store, clock);
    expect(again.created).toBe(0);
    expect(again.users.map((u) => [u.id, u.username])).toEqual([
      [1, 'john_doe'],
      [2, 'jane_smith'],
      [3, 'bob_wilson'],
      [4, 'fiona_finance'],
    ]);
    expect(await catalogUserIdFor(testStore.store, 'john_doe')).toBe(1);
    expect(await catalogUserIdFor(testStore.store, 'nobody')).toBeUndefined();
  });

  it('GET /admin/accesses answers the spec shape, paged', async () => {
    const res = await app.inject({ method: 'GET', url: '/admin/accesses?limit=100&offset=0', headers: admin });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.total).toBe(12);
    expect(body.limit).toBe(100);
    expect(body.offset).toBe(0);
    expect(body.accesses[0]).toEqual({
      id: 1,
      name: 'READ_DOCUMENTS',
      description: 'View documents in the system',
      renewal_period: null,
      teams: ['engineering', 'support', 'sales'],
    });
    expect(body.accesses[1]).toMatchObject({
      id: 2,
      name: 'WRITE_DOCUMENTS',
      description: 'Create and edit documents',
      renewal_period: 90,
    });
    const page = (await app.inject({ method: 'GET', url: '/admin/accesses?limit=2&offset=2', headers: admin })).json();
    expect(page.accesses.map((a: { name: string }) => a.name)).toEqual(['DB_READ_DEV', 'DB_READ_STAGING']);
    expect(page.total).toBe(12);
    const tail = (await app.inject({ method: 'GET', url: '/admin/accesses?limit=5&offset=10', headers: admin })).json();
    expect([tail.accesses.length, tail.total]).toEqual([2, 12]);
    const past = (await app.inject({ method: 'GET', url: '/admin/accesses?limit=5&offset=50', headers: admin })).json();
    expect([past.accesses.length, past.total]).toEqual([0, 12]);
  });

  it('filters the catalog by team tag', async () => {
    const res = await app.inject({ method: 'GET', url: '/admin/accesses?team=finance', headers: admin });
    expect(res.json().accesses.map((a: { name: string }) => a.name)).toEqual(['BILLING_ADMIN']);
    expect(res.json().total).toBe(1);
  });

  it.each([
    ['limit=0', 'limit must be a whole number from 1 to 100, got "0".'],
    ['limit=101', 'limit must be a whole number from 1 to 100, got "101".'],
    ['limit=abc', 'limit must be a whole number from 1 to 100, got "abc".'],
    ['offset=-1', 'offset must be a whole number of 0 or more, got "-1".'],
    ['team=%20bad%20', 'team must be a tag'],
  ])('GET /admin/accesses?%s is a 400 with a clear message', async (query, message) => {
    const res = await app.inject({ method: 'GET', url: `/admin/accesses?${query}`, headers: admin });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toContain(message);
  });

  it('refuses a missing or wrong admin key with 401 and never echoes it', async () => {
    const missing = await app.inject({ method: 'GET', url: '/admin/accesses' });
    expect(missing.statusCode).toBe(401);
    const wrong = await app.inject({ method: 'GET', url: '/admin/accesses', headers: { 'x-admin-key': 'guess' } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).not.toContain('guess');
    expect(wrong.body).not.toContain(ADMIN_KEY);
    const prefix = await app.inject({ method: 'GET', url: '/admin/accesses', headers: { 'x-admin-key': ADMIN_KEY.slice(0, -1) } });
    expect(prefix.statusCode).toBe(401);
  });

  it('GET /users/{id}/accesses lists held accesses for the caller only', async () => {
    const empty = await app.inject({ method: 'GET', url: '/users/1/accesses', headers: john });
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({ user_id: 1, username: 'john_doe', teams: ['engineering'], accesses: [] });
    await app.inject({ method: 'POST', url: '/users/1/accesses', headers: john, payload: { access_name: 'READ_DOCUMENTS' } });
    const res = await app.inject({ method: 'GET', url: '/users/1/accesses', headers: john });
    expect(res.json()).toEqual({
      user_id: 1,
      username: 'john_doe',
      teams: ['engineering'],
      accesses: [
        {
          id: 1,
          name: 'READ_DOCUMENTS',
          description: 'View documents in the system',
          assigned_at: '2026-02-11T10:30:00Z',
          expires_at: null,
        },
      ],
    });
    const other = await app.inject({ method: 'GET', url: '/users/2/accesses', headers: john });
    expect(other.statusCode).toBe(403);
    expect(other.json().detail).toContain('own account');
    expect((await app.inject({ method: 'GET', url: '/users/1/accesses' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/users/999/accesses', headers: john })).statusCode).toBe(404);
    for (const bad of ['0', '-1', 'abc', '1.5', '99999999999']) {
      const res400 = await app.inject({ method: 'GET', url: `/users/${bad}/accesses`, headers: john });
      expect(res400.statusCode).toBe(400);
      expect(res400.json().detail).toContain('user_id must be a positive integer');
    }
  });

  it('POST grants with 201, then 409 for the same access; 404 for an unknown one; 403 for another account', async () => {
    const res = await app.inject({ method: 'POST', url: '/users/1/accesses', headers: john, payload: { access_name: 'READ_DOCUMENTS' } });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: 1,
      name: 'READ_DOCUMENTS',
      description: 'View documents in the system',
      renewal_period: null,
      assigned_at: '2026-02-11T10:30:00Z',
      expires_at: null,
    });
    const again = await app.inject({ method: 'POST', url: '/users/1/accesses', headers: john, payload: { access_name: 'READ_DOCUMENTS' } });
    expect(again.statusCode).toBe(409);
    const unknown = await app.inject({ method: 'POST', url: '/users/1/accesses', headers: john, payload: { access_name: 'NOPE' } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().detail).toContain('Access not found: NOPE');
    const other = await app.inject({ method: 'POST', url: '/users/2/accesses', headers: john, payload: { access_name: 'READ_DOCUMENTS' } });
    expect(other.statusCode).toBe(403);
    const held = (await app.inject({ method: 'GET', url: '/users/2/accesses', headers: { 'x-username': 'jane_smith' } })).json();
    expect(held.accesses).toEqual([]);
  });

  it.each([
    [{}, 'access_name is required'],
    [{ access_name: '' }, 'access_name is required'],
    [{ access_name: '   ' }, 'access_name is required'],
    [{ access_name: 42 }, 'access_name is required'],
    [{ access_name: 'READ_DOCUMENTS', reason: 7 }, 'reason'],
  ])('POST with body %j is a 400', async (payload, message) => {
    const res = await app.inject({ method: 'POST', url: '/users/1/accesses', headers: john, payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toContain(message);
    expect((await app.inject({ method: 'GET', url: '/users/1/accesses', headers: john })).json().accesses).toEqual([]);
  });

  it('answers malformed JSON with 400', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/users/1/accesses',
      headers: { ...john, 'content-type': 'application/json' },
      payload: '{"access_name":',
    });
    expect(res.statusCode).toBe(400);
  });

  it('turns renewal_period into expires_at; expired grants stop being held and can be granted again', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/users/1/accesses',
      headers: john,
      payload: { access_name: 'WRITE_DOCUMENTS', reason: 'editing the Q1 handbook' },
    });
    expect(res.json()).toMatchObject({ name: 'WRITE_DOCUMENTS', renewal_period: 90, expires_at: '2026-05-12T10:30:00Z' });
    const row = await (
      testStore.store.db as never as import('kysely').Kysely<import('../../src/agents/access/service/schema.ts').AccessDatabase>
    )
      .selectFrom('user_accesses')
      .select(['reason'])
      .executeTakeFirstOrThrow();
    expect(row.reason).toBe('editing the Q1 handbook');
    now = new Date('2026-05-12T10:29:59Z');
    expect((await app.inject({ method: 'GET', url: '/users/1/accesses', headers: john })).json().accesses).toHaveLength(1);
    now = new Date('2026-05-12T10:30:00Z');
    expect((await app.inject({ method: 'GET', url: '/users/1/accesses', headers: john })).json().accesses).toEqual([]);
    const renewed = await app.inject({
      method: 'POST',
      url: '/users/1/accesses',
      headers: john,
      payload: { access_name: 'WRITE_DOCUMENTS' },
    });
    expect(renewed.statusCode).toBe(201);
    expect(renewed.json().expires_at).toBe('2026-08-10T10:30:00Z');
  });

  it('admin endpoints create accesses and users and revoke grants', async () => {
    const access = await app.inject({
      method: 'POST',
      url: '/admin/accesses',
      headers: admin,
      payload: { name: 'K8S_READ_PROD', description: 'Read the production cluster', renewal_period: 30, teams: ['Engineering'] },
    });
    expect(access.statusCode).toBe(201);
    expect(access.json()).toMatchObject({ name: 'K8S_READ_PROD', renewal_period: 30, teams: ['engineering'] });
    expect(
      (await app.inject({ method: 'POST', url: '/admin/accesses', headers: admin, payload: { name: 'K8S_READ_PROD', description: 'x' } }))
        .statusCode,
    ).toBe(409);
    expect(
      (await app.inject({ method: 'POST', url: '/admin/accesses', headers: admin, payload: { name: 'bad name', description: 'x' } }))
        .statusCode,
    ).toBe(400);
    expect((await app.inject({ method: 'POST', url: '/admin/accesses', payload: { name: 'X', description: 'x' } })).statusCode).toBe(401);
    const user = await app.inject({
      method: 'POST',
      url: '/admin/users',
      headers: admin,
      payload: { username: 'carol', teams: ['engineering'] },
    });
    expect(user.statusCode).toBe(201);
    expect(user.json()).toEqual({ user_id: 5, username: 'carol', teams: ['engineering'] });
    expect((await app.inject({ method: 'POST', url: '/admin/users', headers: admin, payload: { username: 'carol' } })).statusCode).toBe(
      409,
    );
    const carol = { 'x-username': 'carol' };
    expect((await app.inject({ method: 'GET', url: '/me', headers: carol })).json()).toEqual({
      user_id: 5,
      username: 'carol',
      teams: ['engineering'],
    });
    expect(
      (await app.inject({ method: 'POST', url: '/users/5/accesses', headers: carol, payload: { access_name: 'K8S_READ_PROD' } }))
        .statusCode,
    ).toBe(201);
    const revoke = await app.inject({ method: 'DELETE', url: '/admin/users/5/accesses/K8S_READ_PROD', headers: admin });
    expect(revoke.statusCode).toBe(200);
    expect(revoke.json()).toEqual({ user_id: 5, access_name: 'K8S_READ_PROD', revoked_at: '2026-02-11T10:30:00Z' });
    expect((await app.inject({ method: 'GET', url: '/users/5/accesses', headers: carol })).json().accesses).toEqual([]);
    expect((await app.inject({ method: 'DELETE', url: '/admin/users/5/accesses/K8S_READ_PROD', headers: admin })).statusCode).toBe(404);
    expect((await app.inject({ method: 'DELETE', url: '/admin/users/5/accesses/K8S_READ_PROD' })).statusCode).toBe(401);
  });

  it('serialises concurrent grants of one access: exactly one 201', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        app.inject({ method: 'POST', url: '/users/1/accesses', headers: john, payload: { access_name: 'DB_READ_DEV' } }),
      ),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
  });

  it('answers a store failure with 500 and a generic message', async () => {
    await testStore.store.db.schema.dropTable('user_accesses').execute();
    const res = await app.inject({ method: 'GET', url: '/users/1/accesses', headers: john });
    expect(res.statusCode).toBe(500);
    expect(res.json().detail).toBe('The access service failed on this request; try again, and check its log if it keeps failing.');
    expect(res.body).not.toMatch(/user_accesses|sqlite|relation/i);
  });
});
