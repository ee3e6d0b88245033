import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AccessApiClient, type AccessApiClientOptions } from '../../src/agents/access/client/access-api-client.ts';
import { accessCatalogMigrations, createAccessService, seedAccessDemoData } from '../../src/agents/access/service/index.ts';
import { createAccessTools } from '../../src/agents/access/tools/access-tools.ts';
import type { AnyToolDefinition } from '../../src/core/tools/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/test-stores.ts';
import { createTestToolContext } from '../../src/testing/tool-context.ts';

const ADMIN_KEY = 'tools-test-admin-key';
const clock = { now: () => new Date('2026-02-11T10:30:00Z') };

function toolsFor(options: Partial<AccessApiClientOptions> & { baseUrl: string }) {
  const client = new AccessApiClient({ adminKey: ADMIN_KEY, timeoutMs: 2_000, initialBackoffMs: 5, ...options });
  const tools = createAccessTools({ client, clock });
  const byName = (name: string): AnyToolDefinition => tools.find((t) => t.name === name)!;
  return {
    list: byName('list_available_accesses'),
    get: byName('get_user_accesses'),
    grant: byName('grant_access_to_user'),
    revoke: byName('revoke_access_from_user'),
  };
}

async function listen(server: Server | TcpServer): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let testStore: TestStore;
let service: FastifyInstance;
let serviceUrl: string;

beforeAll(async () => {
  testStore = await sqliteTestStore.create([...accessCatalogMigrations]);
  await seedAccessDemoData(testStore.store, clock);
  service = createAccessService({ store: testStore.store, adminKey: ADMIN_KEY, clock });
  serviceUrl = await service.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await service.close();
  await testStore.dispose();
});

describe('access tools against the real service', () => {
  const context = createTestToolContext({ agent: 'access' });

  it('list_available_accesses returns id, name, description (and the documented extras) from GET /admin/accesses', async () => {
    const { list } = toolsFor({ baseUrl: serviceUrl });
    const result = (await list.execute({}, context)) as Array<{ id: number; name: string; description: string }>;
    expect(result).toHaveLength(12);
    expect(result[0]).toMatchObject({ id: 1, name: 'READ_DOCUMENTS', description: 'View documents in the system' });
    expect(result[1]).toMatchObject({ id: 2, name: 'WRITE_DOCUMENTS', description: 'Create and edit documents', renewal_period: 90 });
    const engineering = (await list.execute({ team: 'Engineering' }, context)) as Array<{ name: string }>;
    expect(engineering.map((a) => a.name)).toContain('DB_READ_PROD');
    expect(engineering.map((a) => a.name)).not.toContain('BILLING_ADMIN');
    expect(JSON.stringify(result)).not.toContain(ADMIN_KEY);
  });

  it('list_available_accesses with a wrong admin key: empty list with "Authentication failed"', async () => {
    const client = new AccessApiClient({ baseUrl: serviceUrl, adminKey: 'wrong-key' });
    const [list] = createAccessTools({ client });
    expect(await list!.execute({}, context)).toEqual({ accesses: [], error: 'Authentication failed' });
  });

  it('grant, then get, then the same grant again — the spec shapes and messages', async () => {
    const { get, grant } = toolsFor({ baseUrl: serviceUrl });
    const jane = createTestToolContext({ identity: { userId: 7, username: 'jane_smith', roles: ['user'] } });
    expect(await get.execute({ username: 'jane_smith' }, jane)).toEqual({
      user_id: 2,
      username: 'jane_smith',
      teams: ['engineering', 'data'],
      accesses: [],
    });
    const granted = await grant.execute({ access_name: 'READ_DOCUMENTS', username: 'jane_smith' }, jane);
    expect(granted).toEqual({
      success: true,
      access: { id: 1, name: 'READ_DOCUMENTS', description: 'View documents in the system' },
      message: 'Access granted successfully',
      expires_at: null,
    });
    expect(jane.audited).toEqual([
      { type: 'access_granted', payload: { access_name: 'READ_DOCUMENTS', catalog_user_id: 2, expires_at: null, reason: null } },
    ]);
    expect(await get.execute({ user_id: 2, username: 'jane_smith' }, jane)).toEqual({
      user_id: 2,
      username: 'jane_smith',
      teams: ['engineering', 'data'],
      accesses: [{ id: 1, name: 'READ_DOCUMENTS', description: 'View documents in the system', expires_at: null }],
    });
    expect(await grant.execute({ access_name: 'READ_DOCUMENTS', username: 'jane_smith' }, jane)).toEqual({
      success: false,
      message: 'User already has this access',
    });
    expect(await grant.execute({ access_name: 'NO_SUCH_ACCESS', username: 'jane_smith' }, jane)).toEqual({
      success: false,
      message: 'Access not found: NO_SUCH_ACCESS',
    });
  });

  it('an unknown catalog user gets "User not found"', async () => {
    const { get, grant } = toolsFor({ baseUrl: serviceUrl });
    expect(await get.execute({ username: 'ghost' }, context)).toEqual({ error: 'User not found' });
    expect(await grant.execute({ access_name: 'READ_DOCUMENTS', username: 'ghost' }, context)).toEqual({
      success: false,
      message: 'User not found',
    });
  });

  it('provisionUsers: a login unknown to the catalog gets an empty catalog account on first use', async () => {
    const client = new AccessApiClient({ baseUrl: serviceUrl, adminKey: ADMIN_KEY });
    const tools = createAccessTools({ client, provisionUsers: true });
    const get = tools.find((t) => t.name === 'get_user_accesses')!;
    const newcomer = createTestToolContext({ identity: { userId: 77, username: 'newcomer', roles: ['user'] } });
    const first = (await get.execute({ username: 'newcomer' }, newcomer)) as { user_id: number; accesses: unknown[] };
    expect(first).toMatchObject({ username: 'newcomer', accesses: [] });
    expect(first.user_id).toBeGreaterThan(3);
    const again = createAccessTools({ client, provisionUsers: true }).find((t) => t.name === 'get_user_accesses')!;
    expect(await again.execute({ username: 'newcomer' }, newcomer)).toEqual(first);
  });

  it("an access outside the user's teams: the validator blocks it before any approval, and the service refuses it (403)", async () => {
    const { get, grant } = toolsFor({ baseUrl: serviceUrl });
    const verdict = await grant.validate!({ access_name: 'BILLING_ADMIN', username: 'john_doe' }, context);
    expect(verdict).toMatchObject({ verdict: 'block', rule: 'team-eligibility', category: 'access' });
    expect(verdict.reason).toMatch(
      /^BILLING_ADMIN is for the finance team\(s\); john_doe is in engineering\. Eligible accesses include: READ_DOCUMENTS, /,
    );
    expect(await grant.validate!({ access_name: 'DB_READ_DEV', username: 'john_doe' }, context)).toMatchObject({ verdict: 'allow' });
    expect(await grant.validate!({ access_name: 'DB_WRITE_PROD', username: 'john_doe', duration_days: 30 }, context)).toMatchObject({
      verdict: 'block',
      rule: 'max-duration',
    });
    // Past the validator (a tool called directly), the catalog itself refuses with the contract's 403 message.
    expect(await grant.execute({ access_name: 'BILLING_ADMIN', username: 'john_doe' }, context)).toEqual({
      success: false,
      message: "You don't have permission for this operation",
    });
    const held = (await get.execute({ username: 'john_doe' }, context)) as { accesses: Array<{ name: string }> };
    expect(held.accesses.map((a) => a.name)).not.toContain('BILLING_ADMIN');
  });

  it('revoke_access_from_user: previews the held grant, revokes it once, audits it, then says nothing is held', async () => {
    const { get, grant, revoke } = toolsFor({ baseUrl: serviceUrl });
    const bob = createTestToolContext({ identity: { userId: 9, username: 'bob_wilson', roles: ['user'] } });
    await grant.execute({ access_name: 'DEPLOY_STAGING', username: 'bob_wilson', reason: 'release train' }, bob);
    expect(revoke.mutability).toBe('mutable');
    const preview = await revoke.preview!({ access_name: 'DEPLOY_STAGING', username: 'bob_wilson' }, bob);
    expect(preview.summary).toBe('Revoke DEPLOY_STAGING from bob_wilson (granted 2026-02-11T10:30:00Z).');
    const done = await revoke.execute({ access_name: 'DEPLOY_STAGING', username: 'bob_wilson', reason: 'release done' }, bob);
    expect(done).toEqual({
      success: true,
      access_name: 'DEPLOY_STAGING',
      revoked_at: '2026-02-11T10:30:00Z',
      message: 'Access revoked successfully',
    });
    expect(bob.audited.at(-1)).toEqual({
      type: 'access_revoked',
      payload: { access_name: 'DEPLOY_STAGING', catalog_user_id: 3, revoked_at: '2026-02-11T10:30:00Z', reason: 'release done' },
    });
    const held = (await get.execute({ username: 'bob_wilson' }, bob)) as { accesses: Array<{ name: string }> };
    expect(held.accesses.map((a) => a.name)).not.toContain('DEPLOY_STAGING');
    expect(await revoke.execute({ access_name: 'DEPLOY_STAGING', username: 'bob_wilson' }, bob)).toEqual({
      success: false,
      message: 'You do not hold DEPLOY_STAGING; nothing to revoke.',
    });
    expect(await revoke.validate!({ user_id: 1, access_name: 'DEPLOY_STAGING', username: 'bob_wilson' }, bob)).toMatchObject({
      verdict: 'block',
      rule: 'own-account-only',
    });
  });

  it('refuses a user_id that is not the signed-in user: validator blocks, execute refuses, nothing granted', async () => {
    const { get, grant } = toolsFor({ baseUrl: serviceUrl });
    const verdict = await grant.validate!({ user_id: 2, access_name: 'DB_WRITE_PROD', username: 'john_doe' }, context);
    expect(verdict).toMatchObject({ verdict: 'block', rule: 'own-account-only' });
    expect(verdict.reason).toContain('not the catalog account of john_doe');
    expect(await grant.validate!({ user_id: 1, access_name: 'DB_WRITE_PROD', username: 'john_doe' }, context)).toMatchObject({
      verdict: 'allow',
    });
    expect(await grant.execute({ user_id: 2, access_name: 'DB_WRITE_PROD', username: 'john_doe' }, context)).toEqual({
      success: false,
      message: "You don't have permission for this operation",
    });
    expect(await get.execute({ user_id: 2, username: 'john_doe' }, context)).toEqual({
      error: "You don't have permission for this operation",
    });
    const jane = (await get.execute({ username: 'jane_smith' }, context)) as { accesses: Array<{ name: string }> };
    expect(jane.accesses.map((a) => a.name)).not.toContain('DB_WRITE_PROD');
  });

  it('the grant preview states the description and the renewal period / expiry', async () => {
    const { grant } = toolsFor({ baseUrl: serviceUrl });
    const preview = await grant.preview!({ access_name: 'DB_WRITE_PROD', username: 'john_doe' }, context);
    expect(preview.summary).toBe(
      'Grant DB_WRITE_PROD to john_doe: Write to the production database. Renewal period: 14 days — if approved now, it expires on 2026-02-25T10:30:00Z unless renewed.',
    );
    const plain = await grant.preview!({ access_name: 'READ_DOCUMENTS', username: 'john_doe' }, context);
    expect(plain.summary).toContain('No renewal period');
    expect(JSON.stringify([preview, plain])).not.toContain(ADMIN_KEY);
  });

  it('rejects an empty access_name before any call', () => {
    const { grant } = toolsFor({ baseUrl: serviceUrl });
    const parsed = grant.input.safeParse({ access_name: '  ', username: 'john_doe' });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain('Invalid access name');
  });
});

describe('access tools when the backend fails', () => {
  const context = createTestToolContext({ agent: 'access' });

  it('connection refused → "Backend API is unavailable" / "Backend API unavailable"', async () => {
    const probe = createServer();
    const url = await listen(probe);
    probe.close();
    await once(probe, 'close');
    const { list, get, grant } = toolsFor({ baseUrl: url });
    expect(await list.execute({}, context)).toEqual({ accesses: [], error: 'Backend API is unavailable' });
    expect(await get.execute({ username: 'john_doe' }, context)).toEqual({
      error: 'Backend API unavailable',
      detail: 'Backend API is unavailable',
    });
    expect(await grant.execute({ access_name: 'READ_DOCUMENTS', username: 'john_doe' }, context)).toEqual({
      success: false,
      message: 'Backend API unavailable',
      detail: 'Backend API is unavailable',
    });
  });

  it('DNS failure → "Cannot reach backend API"', async () => {
    const { list, get } = toolsFor({ baseUrl: 'http://access-catalog.invalid:8000', retries: 0 });
    expect(await list.execute({}, context)).toEqual({ accesses: [], error: 'Cannot reach backend API' });
    expect(await get.execute({ username: 'john_doe' }, context)).toEqual({
      error: 'Backend API unavailable',
      detail: 'Cannot reach backend API',
    });
  });

  describe('a server that never answers', () => {
    let server: TcpServer;
    let url: string;
    const sockets: Socket[] = [];
    let requestsSeen = 0;
    beforeAll(async () => {
      server = createTcpServer((socket) => {
        sockets.push(socket);
        socket.on('data', (chunk) => {
          if (chunk.toString('latin1').startsWith('GET ')) requestsSeen += 1;
        });
      });
      url = await listen(server);
    });
    afterAll(async () => {
      for (const s of sockets) s.destroy();
      server.close();
    });

    it('times out → "Backend API is not responding", a read is tried 3 times (2 retries)', async () => {
      const { list } = toolsFor({ baseUrl: url, timeoutMs: 150, breakerThreshold: 100 });
      expect(await list.execute({}, context)).toEqual({ accesses: [], error: 'Backend API is not responding' });
      expect(requestsSeen).toBe(3);
    });
  });

  describe('a server answering 500', () => {
    let server: Server;
    let url: string;
    let requests: string[] = [];
    beforeAll(async () => {
      server = createServer((req: IncomingMessage, res: ServerResponse) => {
        requests.push(`${req.method} ${req.url}`);
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"detail":"boom"}');
      });
      url = await listen(server);
    });
    afterAll(() => {
      server.close();
    });
    beforeEach(() => {
      requests = [];
    });

    it('retries reads, opens the circuit after 5 consecutive failures, then answers the cached error without calling', async () => {
      const { list } = toolsFor({ baseUrl: url, halfOpenAfterMs: 60_000 });
      const first = await list.execute({}, context);
      expect(first).toEqual({ accesses: [], error: 'Backend API error, please try again' });
      expect(requests).toHaveLength(3);
      await list.execute({}, context);
      expect(requests).toHaveLength(5);
      const third = await list.execute({}, context);
      expect(third).toEqual({ accesses: [], error: 'Backend API error, please try again' });
      expect(requests).toHaveLength(5);
      // The breaker is shared by every client of that backend (with the same settings).
      const { list: otherClientsList } = toolsFor({ baseUrl: url, halfOpenAfterMs: 60_000 });
      expect(await otherClientsList.execute({}, context)).toEqual({ accesses: [], error: 'Backend API error, please try again' });
      expect(requests).toHaveLength(5);
    });
  });

  it('the open circuit lets a trial call through after halfOpenAfterMs and closes when the backend is back', async () => {
    let failing = true;
    let hits = 0;
    const flaky = createServer(async (req, res) => {
      hits += 1;
      if (failing) {
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"detail":"down"}');
        return;
      }
      const upstream = await fetch(`${serviceUrl}${req.url}`, { headers: { 'x-admin-key': ADMIN_KEY } });
      res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
    });
    const url = await listen(flaky);
    try {
      const { list } = toolsFor({ baseUrl: url, retries: 0, halfOpenAfterMs: 200 });
      for (let i = 0; i < 5; i += 1) await list.execute({}, context);
      expect(hits).toBe(5);
      expect(await list.execute({}, context)).toEqual({ accesses: [], error: 'Backend API error, please try again' });
      expect(hits).toBe(5);
      failing = false;
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(await list.execute({}, context)).toHaveLength(12);
      expect(await list.execute({}, context)).toHaveLength(12);
      expect(hits).toBe(7);
    } finally {
      flaky.close();
    }
  });

  describe('a grant whose response is lost (proxy to the real service answering 500 or hanging)', () => {
    let proxy: Server;
    let url: string;
    let mode: 'forward-then-500' | 'drop-with-500' | 'forward-then-hang' = 'forward-then-500';
    let posts = 0;
    const hanging: ServerResponse[] = [];
    beforeAll(async () => {
      proxy = createServer(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
        const forward = () =>
          fetch(`${serviceUrl}${req.url}`, {
            method: req.method,
            headers,
            body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
          });
        if (req.method !== 'POST') {
          const upstream = await forward();
          res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
          return;
        }
        posts += 1;
        if (mode !== 'drop-with-500') await forward();
        if (mode === 'forward-then-hang') {
          hanging.push(res);
          return;
        }
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"detail":"lost"}');
      });
      url = await listen(proxy);
    });
    afterAll(() => {
      for (const r of hanging) r.destroy();
      proxy.close();
    });

    it('after a 500 it re-reads the accesses instead of resending, and reports the grant that landed', async () => {
      mode = 'forward-then-500';
      posts = 0;
      const bob = createTestToolContext({ identity: { userId: 9, username: 'bob_wilson', roles: ['user'] } });
      const { grant } = toolsFor({ baseUrl: url, breakerThreshold: 100 });
      expect(await grant.execute({ access_name: 'DB_READ_DEV', username: 'bob_wilson' }, bob)).toEqual({
        success: true,
        access: { id: 3, name: 'DB_READ_DEV', description: 'Read the development database' },
        message: 'Access granted successfully',
      });
      expect(posts).toBe(1);
    });

    it('after a 500 where nothing landed, it says so and does not resend', async () => {
      mode = 'drop-with-500';
      posts = 0;
      const { grant } = toolsFor({ baseUrl: url, breakerThreshold: 100 });
      const result = await grant.execute({ access_name: 'DB_READ_STAGING', username: 'bob_wilson' }, context);
      expect(result).toEqual({
        success: false,
        message: 'Backend API unavailable',
        detail: 'Backend API error, please try again; the access was not granted (checked). Try again later.',
      });
      expect(posts).toBe(1);
    });

    it('after a timeout it re-reads and finds the grant', async () => {
      mode = 'forward-then-hang';
      posts = 0;
      const { grant } = toolsFor({ baseUrl: url, timeoutMs: 300, breakerThreshold: 100 });
      const result = await grant.execute({ access_name: 'DB_WRITE_DEV', username: 'bob_wilson' }, context);
      expect(result).toMatchObject({ success: true, access: { name: 'DB_WRITE_DEV' } });
      expect(posts).toBe(1);
    });
  });
});
