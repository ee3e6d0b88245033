import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AuditLog } from '../../src/core/audit/index.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { openStore, type Store } from '../../src/core/store/index.ts';
import { createServer } from '../../src/server/index.ts';
import { login } from '../../src/server/testing/server-fixture.ts';
import { createLedgerAgent, createLedgerModel, postgresTestStore, type TestStore, testDatabaseUrl } from '../../src/testing/index.ts';

const PASSWORD = 'correct-horse-battery';

describe.skipIf(!testDatabaseUrl)('identity state shared by two servers on one PostgreSQL store', () => {
  let first: TestStore;
  let secondStore: Store;
  let runtimes: Runtime[];
  let a: FastifyInstance;
  let b: FastifyInstance;
  let tokens: Record<string, string>;

  beforeEach(async () => {
    first = await postgresTestStore.create();
    secondStore = await openStore({ databaseUrl: first.url!, poolSize: 2 });
    const recorder = { reads: 0, transfers: [] };
    runtimes = [];
    const cookieKey = randomBytes(32);
    const servers: FastifyInstance[] = [];
    for (const store of [first.store, secondStore]) {
      const runtime = await createRuntime({ store, agents: [createLedgerAgent(recorder)], model: () => createLedgerModel() });
      runtimes.push(runtime);
      servers.push(
        await createServer({
          runtime,
          store,
          cookieKey,
          loginLimits: { perAccountAndAddress: 4, perAccount: 50, perAddress: 100 },
          sessionQuota: { active: 100, perMinute: 2 },
          // Sockets are re-checked only once a day here, so a socket closed as unauthorized was told
          // by the other replica's sign-out notice, never by its own periodic check.
          socketRecheckMs: 86_400_000,
        }),
      );
    }
    [a, b] = servers as [FastifyInstance, FastifyInstance];
    const users = new UserRepository(first.store);
    tokens = {};
    for (const [username, role] of [
      ['john_doe', 'user'],
      ['alice', 'approver'],
      ['admin', 'admin'],
    ] as const) {
      await users.create({ username, password: PASSWORD, roles: [role] });
      tokens[username] = (await users.createToken(username, 'test')).token;
    }
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    for (const runtime of runtimes) await runtime.close();
    await secondStore.close();
    await first.dispose();
  });

  const me = (app: FastifyInstance, headers: Record<string, string>) => app.inject({ method: 'GET', url: '/api/me', headers });

  it('M5: logout on one replica ends the cookie on the other; a password change or a disable on one ends sessions (and, for disable, tokens) on both', async () => {
    const alice = await login(a, 'alice', PASSWORD);
    expect((await me(b, { cookie: alice.cookie })).statusCode).toBe(200);
    await a.inject({ method: 'POST', url: '/api/logout', headers: { cookie: alice.cookie, 'x-csrf-token': alice.csrfToken } });
    expect((await me(a, { cookie: alice.cookie })).statusCode).toBe(401);
    expect((await me(b, { cookie: alice.cookie })).statusCode).toBe(401);

    const again = await login(a, 'alice', PASSWORD);
    const admin = { authorization: `Bearer ${tokens.admin}` };
    expect(
      (await b.inject({ method: 'POST', url: '/api/users/alice/password', headers: admin, payload: { password: 'fresh-password' } }))
        .statusCode,
    ).toBe(200);
    expect((await me(a, { cookie: again.cookie })).statusCode).toBe(401);
    expect((await me(a, { authorization: `Bearer ${tokens.alice}` })).statusCode).toBe(200);

    const john = await login(b, 'john_doe', PASSWORD);
    expect((await a.inject({ method: 'POST', url: '/api/users/john_doe/disable', headers: admin })).statusCode).toBe(200);
    expect((await me(b, { cookie: john.cookie })).statusCode).toBe(401);
    expect((await me(b, { authorization: `Bearer ${tokens.john_doe}` })).statusCode).toBe(401);

    const types = (await new AuditLog(first.store).list()).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['login_succeeded', 'logout', 'user_password_changed', 'user_disabled']));
  });

  it("L3: a logout on one replica closes the person's WebSocket on the other at once (LISTEN/NOTIFY), with no event needed", async () => {
    await b.listen({ port: 0, host: '127.0.0.1' });
    const address = b.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const alice = await login(a, 'alice', PASSWORD);
    const created = await a.inject({
      method: 'POST',
      url: '/api/sessions',
      headers: { cookie: alice.cookie, 'x-csrf-token': alice.csrfToken },
      payload: { agent: 'ledger' },
    });
    const sessionId = (created.json() as { id: string }).id;
    // A replica with no open socket listens for nothing: other replicas' commits wake no connection of it.
    const listening = async () => {
      const { rows } = await sql<{ count: string }>`
        select count(*) as count from pg_stat_activity where datname = current_database() and query like 'LISTEN%'`.execute(first.store.db);
      return Number(rows[0]!.count);
    };
    expect(await listening()).toBe(0);
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api/sessions/${sessionId}/socket`, { headers: { cookie: alice.cookie } });
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      socket.on('message', (data) => {
        if ((JSON.parse(data.toString()) as { type: string }).type === 'ready') resolve();
      });
      socket.on('error', reject);
    });
    // The session's events and people's sign-outs, on the replica that holds the socket.
    expect(await listening()).toBe(2);
    await a.inject({ method: 'POST', url: '/api/logout', headers: { cookie: alice.cookie, 'x-csrf-token': alice.csrfToken } });
    expect(await closed).toBe(4401);
  });

  it('L6: failed sign-ins count across replicas; L7: the session quota too', async () => {
    const attempt = (app: FastifyInstance, password: string) =>
      app.inject({ method: 'POST', url: '/api/login', payload: { username: 'john_doe', password }, remoteAddress: '10.1.1.1' });
    expect((await attempt(a, 'wrong-1')).statusCode).toBe(401);
    expect((await attempt(b, 'wrong-2')).statusCode).toBe(401);
    expect((await attempt(a, 'wrong-3')).statusCode).toBe(401);
    expect((await attempt(b, 'wrong-4')).statusCode).toBe(401);
    const locked = await attempt(a, PASSWORD);
    expect(locked.statusCode).toBe(429);
    expect(locked.json()).toMatchObject({ code: 'LOGIN_LOCKED' });

    const start = (app: FastifyInstance) =>
      app.inject({
        method: 'POST',
        url: '/api/sessions',
        headers: { authorization: `Bearer ${tokens.alice}` },
        payload: { agent: 'ledger' },
      });
    expect((await start(a)).statusCode).toBe(201);
    expect((await start(b)).statusCode).toBe(201);
    expect((await start(a)).json()).toMatchObject({ code: 'SESSION_QUOTA' });
  });

  it('tokens: expiry, scopes and issuer read back from PostgreSQL', async () => {
    const minted = await b.inject({
      method: 'POST',
      url: '/api/users/alice/tokens',
      headers: { authorization: `Bearer ${tokens.admin}` },
      payload: { name: 'borrowed', scopes: ['use', 'approve'], expiresInDays: 7 },
    });
    const token = (minted.json() as { token: string }).token;
    const found = await new UserRepository(secondStore).authenticateToken(token);
    expect(found?.identity).toMatchObject({ username: 'alice', roles: ['user', 'approver'], channel: 'rest', credentialIssuedBy: 'admin' });
    const listed = await a.inject({ method: 'GET', url: '/api/users/alice/tokens', headers: { authorization: `Bearer ${tokens.admin}` } });
    const row = (listed.json() as { tokens: Array<{ name: string; expiresAt: string; issuedBy: string; scopes: string[] }> }).tokens.find(
      (t) => t.name === 'borrowed',
    )!;
    expect(row).toMatchObject({ issuedBy: 'admin', scopes: ['use', 'approve'] });
    expect(Math.round((Date.parse(row.expiresAt) - Date.now()) / 86_400_000)).toBe(7);
  });
});
