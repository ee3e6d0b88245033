import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { ResourceTokens } from '../../src/core/identity/oauth-grants.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { openStore, type Store } from '../../src/core/store/index.ts';
import { Gateway, parseGatewayConfig, startGatewayHttp } from '../../src/gateway/index.ts';
import type { McpHttpHost } from '../../src/mcp/http-host.ts';
import { postgresTestStore, sqliteTestStore, type TestStoreFactory, testDatabaseUrl } from '../../src/testing/test-stores.ts';
import { FILESYSTEM_SERVER, textOf } from './gateway-harness.ts';

const CLIENTS = 64;
const PASSWORD = 'load-password-1';

interface Replica {
  readonly store: Store;
  readonly runtime: Runtime;
  readonly gateway: Gateway;
  readonly host: McpHttpHost;
}

/** One gateway replica: its own runtime, store connection, upstream process and HTTP endpoint. */
async function startReplica(store: Store, files: string): Promise<Replica> {
  const gateway = new Gateway(
    parseGatewayConfig(
      `approvalWaitSeconds: 60
limits: { perUserPerMinute: 10000, perToolPerMinute: 10000, maxResultBytes: 1000000 }
upstreams:
  - name: files
    trusted: true
    command: ${process.execPath}
    args: [${JSON.stringify(FILESYSTEM_SERVER)}, ${JSON.stringify(files)}]`,
      'load test',
    ),
  );
  const runtime = await createRuntime({ store, agents: gateway.agents, logger: pino({ level: 'silent' }), env: {} });
  gateway.attach(runtime);
  const host = await startGatewayHttp(gateway, ResourceTokens.forStore(store, new UserRepository(store)), { port: 0 });
  return { store, runtime, gateway, host };
}

/**
 * 64 clients at once over the replicas, a quarter writing (each waits for alice), the rest
 * reading; alice approves every write as it appears, on the first replica.
 */
async function mixedLoad(replicas: readonly Replica[], files: string): Promise<void> {
  const users = new UserRepository(replicas[0]!.store);
  const tokens = { john_doe: '', jane_smith: '' };
  for (const name of ['john_doe', 'jane_smith'] as const) tokens[name] = (await users.createToken(name, 'load')).token;
  const alice = (await users.findByName('alice'))!;
  const approver: Identity = { userId: alice.id, username: 'alice', roles: alice.roles, channel: 'rest' };
  writeFileSync(join(files, 'seed.txt'), 'seed\n');

  const writes = new Set<number>();
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async (_, index) => {
      const replica = replicas[index % replicas.length]!;
      const token = index % 2 === 0 ? tokens.john_doe : tokens.jane_smith;
      const client = new Client({ name: `load-${index}`, version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(replica.host.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      return client;
    }),
  );
  let outstanding = CLIENTS / 4;
  const approving = (async () => {
    const runtime = replicas[0]!.runtime;
    while (outstanding > 0) {
      for (const pending of await runtime.pendingApprovals(approver)) {
        await runtime.decide(pending.sessionId, { type: 'approve', callId: pending.interrupt.callId }, approver);
        outstanding--;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const results = await Promise.all(
    clients.map(async (client, index) => {
      if (index % 4 === 0) {
        writes.add(index);
        return client.callTool(
          { name: 'files__write_file', arguments: { path: join(files, `w-${index}.txt`), content: `written by client ${index}` } },
          undefined,
          {
            timeout: 90_000,
          },
        );
      }
      return client.callTool({ name: 'files__read_text_file', arguments: { path: join(files, 'seed.txt') } });
    }),
  );
  await approving;
  await Promise.all(clients.map((client) => client.close()));

  const errors = results.filter((result) => result.isError).map(textOf);
  expect(errors).toEqual([]);
  results.forEach((result, index) => {
    if (!writes.has(index)) expect(textOf(result)).toBe('seed\n');
  });
  for (const index of writes) expect(readFileSync(join(files, `w-${index}.txt`), 'utf8')).toBe(`written by client ${index}`);
  const store = replicas[0]!.store;
  const executedWrites = await store.db
    .selectFrom('tool_calls')
    .select('id')
    .where('tool', '=', 'write_file')
    .where('status', '=', 'executed')
    .execute();
  expect(executedWrites).toHaveLength(CLIENTS / 4);
  const audit = new AuditLog(store);
  const executedEvents = await audit.list({ type: 'tool_executed', limit: 5000 });
  for (const { id } of executedWrites) expect(executedEvents.filter((e) => e.payload.callId === id)).toHaveLength(1);
  expect(await audit.verify()).toMatchObject({ ok: true });
}

async function seedPeople(store: Store): Promise<void> {
  const users = new UserRepository(store);
  for (const [username, role] of [
    ['john_doe', 'user'],
    ['jane_smith', 'user'],
    ['alice', 'approver'],
  ] as const)
    await users.create({ username, password: PASSWORD, roles: [role] });
}

function loadSuite(factory: TestStoreFactory, replicaCount: number) {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  it(`${CLIENTS} clients at once on ${factory.dialect} with ${replicaCount} replica(s): 0 errors, every approved write executed once, audit verifies`, async () => {
    const files = mkdtempSync(join(tmpdir(), 'opsgate-gateway-load-'));
    cleanups.push(async () => rmSync(files, { recursive: true, force: true }));
    const first = await factory.create();
    cleanups.push(() => first.dispose());
    await seedPeople(first.store);
    const stores = [first.store];
    for (let extra = 1; extra < replicaCount; extra++) {
      const store = await openStore({ databaseUrl: first.url!, poolSize: 4 });
      cleanups.push(() => store.close());
      stores.push(store);
    }
    const replicas: Replica[] = [];
    for (const store of stores) {
      const replica = await startReplica(store, files);
      cleanups.push(async () => {
        await replica.host.close();
        await replica.runtime.close();
      });
      replicas.push(replica);
    }
    await mixedLoad(replicas, files);
  }, 120_000);
}

describe('the gateway under load: SQLite, one process', () => loadSuite(sqliteTestStore, 1));
describe.skipIf(!testDatabaseUrl)('the gateway under load: PostgreSQL, two replicas', () => loadSuite(postgresTestStore, 2));
