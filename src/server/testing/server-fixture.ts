import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { AuditLog } from '../../core/audit/index.ts';
import type { Identity } from '../../core/identity/index.ts';
import { UserRepository } from '../../core/identity/users.ts';
import { createRuntime } from '../../core/runtime/index.ts';
import type { Runtime } from '../../core/runtime/runtime-api.ts';
import type { Store } from '../../core/store/index.ts';
import { createLedgerAgent, createLedgerModel, type LedgerRecorder, sqliteTestStore, type TestStore } from '../../testing/index.ts';
import { seedUsers } from '../../testing/seed-users.ts';
import { createServer, type ServerOptions } from '../create-server.ts';

export type ActorName = 'owner' | 'other' | 'approver' | 'admin';

/** A server over a fresh SQLite store with the ledger test agent and one user per role. */
export interface ServerFixture {
  readonly app: FastifyInstance;
  readonly runtime: Runtime;
  readonly users: UserRepository;
  readonly recorder: LedgerRecorder;
  readonly identities: Record<ActorName, Identity>;
  readonly tokens: Record<ActorName, string>;
  readonly password: string;
  readonly store: Store;
  /** The cookie key, so a second server over the same store (a restart, a replica) accepts the same cookies. */
  readonly cookieKey: Buffer;
  dispose(): Promise<void>;
}

export async function createServerFixture(overrides: Partial<ServerOptions> = {}): Promise<ServerFixture> {
  const handle: TestStore = await sqliteTestStore.create();
  const recorder: LedgerRecorder = { reads: 0, transfers: [] };
  const runtime = await createRuntime({ store: handle.store, agents: [createLedgerAgent(recorder)], model: () => createLedgerModel() });
  const users = new UserRepository(handle.store);
  const password = 'correct-horse-battery';
  const roles: Record<ActorName, [string, string]> = {
    owner: ['john_doe', 'user'],
    other: ['jane_smith', 'user'],
    approver: ['alice', 'approver'],
    admin: ['admin', 'admin'],
  };
  const identities = {} as Record<ActorName, Identity>;
  const tokens = {} as Record<ActorName, string>;
  const actors = Object.entries(roles) as Array<[ActorName, [string, string]]>;
  const people = await seedUsers(
    handle.store,
    actors.map(([, [username, role]]) => ({ username, roles: [role] })),
    password,
  );
  for (const [index, [actor, [username, role]]] of actors.entries()) {
    identities[actor] = { userId: people[index]!.id, username, roles: [role] };
    tokens[actor] = (await users.createToken(username, 'test')).token;
  }
  const audit = new AuditLog(handle.store);
  const cookieKey = randomBytes(32);
  const app = await createServer({
    runtime,
    store: handle.store,
    users,
    cookieKey,
    auditVerify: () => audit.verify(),
    ...overrides,
  });
  return {
    app,
    runtime,
    users,
    recorder,
    identities,
    tokens,
    password,
    store: handle.store,
    cookieKey,
    async dispose() {
      await app.close();
      await runtime.close();
      await handle.dispose();
    },
  };
}

/** Signs in through POST /api/login; returns the cookie header and the CSRF token. */
export async function login(app: FastifyInstance, username: string, password: string): Promise<{ cookie: string; csrfToken: string }> {
  const response = await app.inject({ method: 'POST', url: '/api/login', payload: { username, password } });
  if (response.statusCode !== 200) throw new Error(`login failed: ${response.statusCode} ${response.body}`);
  const setCookie = response.cookies[0]!;
  return { cookie: `${setCookie.name}=${setCookie.value}`, csrfToken: (response.json() as { csrfToken: string }).csrfToken };
}
