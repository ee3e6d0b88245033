import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { type Browser, chromium } from 'playwright-core';
import { accessAgent } from '../../src/agents/access/index.ts';
import { type AgentDefinition, createStoreSecretStore, type SecretStore } from '../../src/core/agent/index.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { openStore, type Store } from '../../src/core/store/index.ts';
import { createServer, type HostDirectory } from '../../src/server/index.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);
export const PASSWORD = 'e2e-password-1';
export const ROOT = join(import.meta.dirname, '..', '..');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Builds the UI if its sources changed since the last build (scripts/build-web.sh). */
export function buildWeb(): void {
  const result = spawnSync('bash', [join(ROOT, 'scripts', 'build-web.sh')], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`building the web UI failed: ${result.stderr}`);
}

/** A real server on an ephemeral port: SQLite in a temp dir, the access agent with its embedded catalog, the offline interpreter. */
export interface WebServer {
  readonly url: string;
  readonly store: Store;
  readonly runtime: Runtime;
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

export async function startWebServer(
  options: {
    agents?: readonly AgentDefinition[];
    prepare?: (store: Store, secrets: SecretStore) => Promise<void>;
    /** The hosts behind /api/hosts (absent: no host routes). */
    hosts?: (store: Store, secrets: SecretStore) => HostDirectory;
  } = {},
): Promise<WebServer> {
  const dir = mkdtempSync(join(tmpdir(), 'opsgate-web-'));
  const env = { ...process.env, ACCESS_API_URL: undefined, OPSGATE_MODEL: undefined };
  const agents = options.agents ?? [accessAgent];
  const store = await openStore({
    sqlitePath: join(dir, 'opsgate.db'),
    databaseUrl: '',
    migrations: agents.flatMap((a) => a.migrations ?? []),
  });
  const secrets = createStoreSecretStore(store);
  await options.prepare?.(store, secrets);
  const logger = pino({ level: 'warn' });
  const runtime = await createRuntime({ store, agents, dataDir: dir, env, logger, secrets });
  const users = new UserRepository(store);
  for (const [username, role] of [
    ['john_doe', 'user'],
    ['jane_smith', 'user'],
    ['alice', 'approver'],
    ['admin', 'admin'],
  ] as const) {
    await users.create({ username, password: PASSWORD, roles: [role] });
  }
  const audit = new AuditLog(store);
  const hosts = options.hosts?.(store, secrets);
  const app = await createServer({
    runtime,
    store,
    users,
    cookieKey: randomBytes(32),
    auditVerify: () => audit.verify(),
    logger,
    ...(hosts ? { hosts } : {}),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    store,
    runtime,
    app,
    async close() {
      await app.close();
      await runtime.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
