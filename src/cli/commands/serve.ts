import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { formatDemoTable, seedAccessDemoData } from '../../agents/access/service/index.ts';
import { ClusterRegistry } from '../../agents/helm/clusters/cluster-registry.ts';
import { createHostDirectory } from '../../app/host-directory.ts';
import { openOpsgate } from '../../app/open-opsgate.ts';
import { startTracing } from '../../app/tracing.ts';
import { createStoreSecretStore } from '../../core/agent/index.ts';
import { AuditLog, observeCheckpoints } from '../../core/audit/index.ts';
import { UserRepository } from '../../core/identity/users.ts';
import { createPrometheusObserver } from '../../core/telemetry/index.ts';
import type { HostDirectory } from '../../server/index.ts';
import { createServer } from '../../server/index.ts';
import { chatOptionsFromEnv } from '../../server/integrations/chat-options-from-env.ts';
import { oidcConfigFromEnv } from '../../server/oidc/index.ts';
import { registerGatewayRoutes } from '../../server/routes/gateway-routes.ts';
import { securityOptionsFromEnv } from '../../server/security-config.ts';
import { webhookOptionsFromEnv } from '../../server/webhooks/index.ts';
import { type CliCommand, type CliIo, UsageError } from '../command.ts';
import { parseCommandArgs, parseIntegerOption } from '../parse-args.ts';

/** The people `opsgate serve` creates on first start (store without users). */
const DEMO_LOGINS = [
  { username: 'john_doe', role: 'user' },
  { username: 'jane_smith', role: 'user' },
  { username: 'alice', role: 'approver' },
  { username: 'admin', role: 'admin' },
] as const;

/** Creates the demo logins when there are no users yet; writes them to `<dataDir>/demo-logins.txt` (mode 0600). */
async function seedDemoLogins(
  users: UserRepository,
  dataDir: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Array<{ username: string; role: string; password: string }> | undefined> {
  if ((await users.list()).length > 0) return undefined;
  const fixed = env.OPSGATE_DEMO_PASSWORD;
  if (fixed !== undefined && fixed.length < 8) throw new UsageError('OPSGATE_DEMO_PASSWORD must have at least 8 characters');
  const created = [];
  for (const login of DEMO_LOGINS) {
    const password = fixed ?? randomBytes(12).toString('base64url');
    await users.create({ username: login.username, password, roles: [login.role] });
    created.push({ username: login.username, role: login.role, password });
  }
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'demo-logins.txt');
  writeFileSync(file, `${created.map((l) => `${l.username}\t${l.role}\t${l.password}`).join('\n')}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return created;
}

/** The cookie HMAC key: `OPSGATE_COOKIE_KEY` (base64, ≥ 32 bytes; share it between replicas) or `<dataDir>/cookie.key`. */
function loadCookieKey(dataDir: string, env: Readonly<Record<string, string | undefined>>): Buffer {
  if (env.OPSGATE_COOKIE_KEY) {
    const key = Buffer.from(env.OPSGATE_COOKIE_KEY, 'base64');
    if (key.length < 32) throw new UsageError('OPSGATE_COOKIE_KEY must be at least 32 bytes, base64-encoded');
    return key;
  }
  const file = join(dataDir, 'cookie.key');
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  const key = randomBytes(32);
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, key.toString('base64'), { mode: 0o600 });
  return key;
}

export interface ServeOptions {
  readonly port: number;
  readonly host: string;
  readonly dataDir?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly out: NodeJS.WritableStream;
  readonly webRoot?: string;
}

/** Starts everything `opsgate serve` runs; resolves once listening. */
export async function startServe(options: ServeOptions): Promise<{ url: string; close(): Promise<void> }> {
  const logger = pino({ level: options.env.OPSGATE_LOG_LEVEL ?? 'warn' }, pino.destination(2));
  const webhooks = webhookOptionsFromEnv(options.env);
  const oidc = oidcConfigFromEnv(options.env);
  const tracing = startTracing(options.env);
  const metrics = createPrometheusObserver();
  const opsgate = await openOpsgate({
    env: options.env,
    logger,
    observer: metrics,
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  });
  try {
    const users = new UserRepository(opsgate.store);
    const seeded = await seedDemoLogins(users, opsgate.dataDir, options.env);
    const audit = new AuditLog(opsgate.store);
    // A lost or swapped audit key stops the start with what to do, rather than a sealer that cannot seal.
    await audit.assertKey();
    // A copy of each signed checkpoint for the log system (at OPSGATE_LOG_LEVEL=info), outside this host.
    observeCheckpoints(opsgate.store, (checkpoint) => logger.info({ auditCheckpoint: checkpoint }, 'audit checkpoint signed'));
    const hosts: HostDirectory | undefined = opsgate.runtime.agents().some((a) => a.name === 'troubleshoot')
      ? createHostDirectory(opsgate.store, createStoreSecretStore(opsgate.store))
      : undefined;
    const app = await createServer({
      runtime: opsgate.runtime,
      store: opsgate.store,
      users,
      cookieKey: loadCookieKey(opsgate.dataDir, options.env),
      ...securityOptionsFromEnv(options.env),
      auditVerify: () => audit.verify(),
      logger,
      metrics: {
        render: () => metrics.render(),
        ...(options.env.OPSGATE_METRICS_TOKEN ? { token: options.env.OPSGATE_METRICS_TOKEN } : {}),
      },
      ...(hosts ? { hosts } : {}),
      // The helm agent's migrations made the table; the registry is read on each call, so changes count at once.
      ...(opsgate.runtime.agents().some((a) => a.name === 'helm') ? { helmClusters: new ClusterRegistry(opsgate.store) } : {}),
      ...(webhooks ? { webhooks } : {}),
      ...(oidc ? { oidc } : {}),
      ...(options.webRoot ? { webRoot: options.webRoot } : {}),
      chat: chatOptionsFromEnv(options.env),
      ...(opsgate.gateway ? { gateway: opsgate.gateway } : {}),
    });
    if (opsgate.gateway)
      await registerGatewayRoutes(app, {
        gateway: opsgate.gateway,
        users,
        store: opsgate.store,
        ...(oidc ? { oidcIssuer: oidc.issuer } : {}),
      });
    try {
      await app.listen({ port: options.port, host: options.host });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE')
        throw new UsageError(`${options.host}:${options.port} is already in use; stop what listens there or pass --port N`);
      if (code === 'EACCES' || code === 'EADDRNOTAVAIL')
        throw new UsageError(`cannot listen on ${options.host}:${options.port} (${code}); pass another --host or --port`);
      throw error;
    }
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : options.port;
    const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
    const lines = [
      `opsgate is serving ${url}  (API reference: ${url}/docs)`,
      `  store: ${opsgate.store.location}`,
      `  model: ${opsgate.modelDescription}`,
      `  agents: ${
        opsgate.runtime
          .agents()
          .map((a) => a.name)
          .join(', ') || '(none)'
      }`,
    ];
    if (seeded) {
      lines.push(`  demo logins (also in ${join(opsgate.dataDir, 'demo-logins.txt')}, mode 0600):`);
      for (const login of seeded) lines.push(`    ${login.username.padEnd(11)} ${login.role.padEnd(9)} ${login.password}`);
    } else if (existsSync(join(opsgate.dataDir, 'demo-logins.txt'))) {
      lines.push(`  demo logins: see ${join(opsgate.dataDir, 'demo-logins.txt')}`);
    }
    for (const agent of opsgate.runtime.agents()) if (agent.notice) lines.push(`  ${agent.name}: ${agent.notice}`);
    if (seeded && opsgate.runtime.agents().some((a) => a.name === 'access') && !options.env.ACCESS_API_URL) {
      // The embedded catalog seeded itself during set-up; on a first start show what it holds.
      const catalog = formatDemoTable(await seedAccessDemoData(opsgate.store));
      lines.push(
        '  access catalog (demo data, embedded):',
        ...catalog
          .trimEnd()
          .split('\n')
          .map((line) => `    ${line}`),
      );
    }
    options.out.write(`${lines.join('\n')}\n`);
    return {
      url,
      async close() {
        await app.close();
        await opsgate.close();
        await tracing?.shutdown();
      },
    };
  } catch (error) {
    await opsgate.close();
    await tracing?.shutdown();
    throw error;
  }
}

export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'Run the server and the web UI (default http://127.0.0.1:8080)',
  usage: `Usage: opsgate serve [--port 8080] [--host 127.0.0.1] [--data-dir DIR]

Starts the web UI and the REST + WebSocket API on SQLite under the data dir (or PostgreSQL from
OPSGATE_DATABASE_URL), with every agent and the offline interpreter when no model key is set.
On first start it creates the demo logins john_doe, jane_smith (user), alice (approver) and admin
(admin) with random passwords (or OPSGATE_DEMO_PASSWORD), prints them and stores them in
<data-dir>/demo-logins.txt (mode 0600). bin/opsgate serve and npm start build the UI first when it is missing or stale.

Environment: OPSGATE_COOKIE_KEY (base64, ≥ 32 bytes; default <data-dir>/cookie.key),
OPSGATE_AUDIT_KEY (base64 or hex, ≥ 32 bytes; default <data-dir>/audit.key; the same on every replica),
OPSGATE_AUDIT_CHECKPOINT_FILE (signed audit checkpoints; default <data-dir>/audit-checkpoints.jsonl),
OPSGATE_AUDIT_ANCHOR_COMMAND + OPSGATE_AUDIT_ANCHOR_READ_COMMAND (the external checkpoint anchor every
replica sends each signed checkpoint to and audit verify reads back; PostgreSQL replicas want one),
OPSGATE_DEMO_PASSWORD, OPSGATE_LOG_LEVEL (default warn), OPSGATE_POLICY_DIR (Cedar policies;
default: the shipped policy), OPSGATE_WEBHOOK_URLS + OPSGATE_WEBHOOK_SECRET (signed approval webhooks),
OPSGATE_OIDC_ISSUER, _CLIENT_ID, _CLIENT_SECRET, _REDIRECT_URI, _ROLE_MAP … (single sign-on; see README),
OPSGATE_PUBLIC_URL (https://… makes cookies Secure; chat messages link to it), OPSGATE_SLACK_API_URL
(Slack's Web API base, default https://slack.com/api/), OPSGATE_TRUST_PROXY, OPSGATE_SESSION_QUOTA,
OPSGATE_SECRETS_KEY (see README), OPSGATE_GATEWAY_CONFIG (the MCP gateway's upstreams, served at
/mcp; see docs/gateway.md).`,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const { values } = parseCommandArgs(args, { port: { type: 'string' }, host: { type: 'string' }, 'data-dir': { type: 'string' } });
    const port = parseIntegerOption('port', values.port, 8080, 0, 65535);
    const host = values.host ?? '127.0.0.1';
    const server = await startServe({
      port,
      host,
      env: io.env,
      out: io.stdout,
      ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
    });
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    io.stdout.write('opsgate: shutting down\n');
    await server.close();
    return 0;
  },
};
