import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { type Browser, chromium, type Page } from 'playwright-core';
import { accessAgent } from '../../src/agents/access/index.ts';
import { ClusterRegistry } from '../../src/agents/helm/index.ts';
import { type AgentDefinition, createStoreSecretStore, type SecretStore } from '../../src/core/agent/index.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { openStore, type Store } from '../../src/core/store/index.ts';
import type { Gateway } from '../../src/gateway/index.ts';
import { createServer, type HelmClusterDirectory, type HostDirectory } from '../../src/server/index.ts';
import type { ChatIntegrationOptions } from '../../src/server/integrations/index.ts';
import type { WebhookOptions } from '../../src/server/webhooks/index.ts';
import { seedUsers } from '../../src/testing/seed-users.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);
export const PASSWORD = 'e2e-password-1';
export const ROOT = join(import.meta.dirname, '..', '..');

const sharedChromium = Symbol.for('opsgate.test.chromium');
type WithSharedChromium = typeof globalThis & { [sharedChromium]?: Promise<Browser> };

/**
 * The test worker's Chromium. Vitest runs the browser suites one after another in a few reused
 * workers (vitest.config.ts: isolate false), so they share one browser per worker instead of
 * starting one each: each suite works in contexts of its own and `releaseChromium` closes them.
 * Playwright ends the browser when the worker exits. Kept on globalThis so that a module loaded
 * afresh for another file still finds it.
 */
export async function launchChromium(): Promise<Browser> {
  const worker = globalThis as WithSharedChromium;
  const running = await worker[sharedChromium]?.catch(() => undefined);
  if (running?.isConnected()) return running;
  worker[sharedChromium] = chromium.launch({
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
  return worker[sharedChromium];
}

/** Closes every context (and page) the suite opened in the shared browser, which stays up for the next suite. */
export async function releaseChromium(browser: Browser | undefined): Promise<void> {
  if (!browser?.isConnected()) return;
  await Promise.all(browser.contexts().map((context) => context.close()));
}

/**
 * Approves the call in the page's approval panel: high and critical requests ask "Yes, approve"
 * first (issue 31, item 1), so the click depends on the risk the panel shows.
 */
export async function approveInPanel(page: Page): Promise<void> {
  const panel = page.getByTestId('approval-panel');
  const risk = await panel.getAttribute('data-risk');
  await panel.getByTestId('approve').click();
  if (risk === 'high' || risk === 'critical') await panel.getByTestId('confirm-approve').click();
}

/** Builds the UI if its sources changed since the last build (scripts/build-web.sh). */
export function buildWeb(): void {
  const result = spawnSync('bash', [join(ROOT, 'scripts', 'build-web.sh')], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`building the web UI failed: ${result.stderr}`);
}

/** A real server on an ephemeral port: SQLite in a temp dir, the access agent with its embedded catalog, the offline interpreter. */
export interface WebServer {
  readonly url: string;
  /** The data dir (SQLite, the demo databases). */
  readonly dataDir: string;
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
    /** The helm clusters behind /api/helm/clusters. Default, as `opsgate serve`: the registry when a helm agent runs. */
    helmClusters?: (store: Store) => HelmClusterDirectory;
    /** Slack and Teams options (a local Slack API). */
    chat?: ChatIntegrationOptions;
    /** A language model instead of the offline interpreter (e.g. a real provider pointed at the wire server). */
    model?: () => LanguageModelV4;
    /** The MCP gateway the server fronts (its admin routes and notices). */
    gateway?: Gateway;
    /** Signed webhooks (a local receiver). */
    webhooks?: WebhookOptions;
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
  const runtime = await createRuntime({
    store,
    agents,
    dataDir: dir,
    env,
    logger,
    secrets,
    ...(options.model ? { model: options.model } : {}),
  });
  const users = new UserRepository(store);
  await seedUsers(
    store,
    [
      { username: 'john_doe', roles: ['user'] },
      { username: 'jane_smith', roles: ['user'] },
      { username: 'alice', roles: ['approver'] },
      { username: 'admin', roles: ['admin'] },
    ],
    PASSWORD,
  );
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
    ...(options.helmClusters
      ? { helmClusters: options.helmClusters(store) }
      : agents.some((agent) => agent.name === 'helm')
        ? { helmClusters: new ClusterRegistry(store) }
        : {}),
    ...(options.chat ? { chat: options.chat } : {}),
    ...(options.gateway ? { gateway: options.gateway } : {}),
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    dataDir: dir,
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

/** `opsgate serve` as its own process, as a person starts it (the README's `bin/opsgate serve`). */
export interface ServeProcess {
  readonly url: string;
  readonly dataDir: string;
  /** Everything it printed, for failure messages. */
  output(): string;
  /** Ends the process with `signal` (SIGKILL: a crash, nothing is closed cleanly) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** A free loopback port, so that a restarted server listens where the page expects it. */
export async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

/**
 * Starts `node src/cli/main.ts serve` on `port` with its data under `dataDir` (SQLite, the demo
 * databases, the cookie key), the offline model and demo logins whose password is `PASSWORD`.
 * Resolves once it prints the URL it serves.
 */
const liveServeProcesses = new Set<ChildProcess>();

export async function startServeProcess(dataDir: string, port: number): Promise<ServeProcess> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && !/^(OPSGATE_|ACCESS_|OPENAI_|ANTHROPIC_|AWS_)/.test(name)) env[name] = value;
  Object.assign(env, { OPSGATE_DATA_DIR: dataDir, OPSGATE_DEMO_PASSWORD: PASSWORD, OPSGATE_MODEL: 'offline' });
  const child = spawn(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', join(ROOT, 'src', 'cli', 'main.ts'), 'serve', '--port', String(port), '--host', '127.0.0.1'],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  liveServeProcesses.add(child);
  let printed = '';
  child.stdout.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      liveServeProcesses.delete(child);
      resolve();
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`opsgate serve did not start within 60 s:\n${printed}`));
    }, 60_000);
    const check = () => {
      const match = /opsgate is serving (http:\/\/\S+)/.exec(printed);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`opsgate serve exited with ${code} before serving:\n${printed}`));
    });
  });
  return {
    url,
    dataDir,
    output: () => printed,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/**
 * Stops every server `startServeProcess` started in this worker, including one whose start a timed-out
 * test never saw finish (it would otherwise serve on after the run).
 */
export async function stopServeProcesses(): Promise<void> {
  const exits = [...liveServeProcesses].map(
    (child) =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  );
  await Promise.all(exits);
}
