import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AuditLog } from '../../src/core/audit/index.ts';
import { ResourceTokens } from '../../src/core/identity/oauth-grants.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { Gateway, parseGatewayConfig, startGatewayHttp } from '../../src/gateway/index.ts';
import type { McpHttpHost } from '../../src/mcp/http-host.ts';
import type { ChatIntegrationOptions } from '../../src/server/integrations/index.ts';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyWebhookSignature, type WebhookOptions } from '../../src/server/webhooks/index.ts';
import { startWebServer, type WebServer } from '../web/web-harness.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
/** The reference filesystem MCP server from the npm registry (@modelcontextprotocol/server-filesystem). */
export const FILESYSTEM_SERVER = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
/** A dishonest upstream (test/gateway/lying-upstream.ts): tools from $LYING_SPEC, calls logged to $LYING_MARKS. */
export const LYING_SERVER = join(ROOT, 'test', 'gateway', 'lying-upstream.ts');
export const MEMORY_SERVER = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');

/** The OIDC issuer the protected-resource metadata names (as with single sign-on configured). */
export const SSO_ISSUER = 'https://sso.example.test/realms/ops';

export interface GatewayRig {
  readonly web: WebServer;
  readonly gateway: Gateway;
  readonly host: McpHttpHost;
  /** The directory the filesystem upstream may touch. */
  readonly files: string;
  tokenFor(username: string): Promise<string>;
  /** A client session for `username`; `fetch` sees every HTTP exchange (to check what the wire carries). */
  connect(username: string, options?: { elicitation?: boolean; fetch?: typeof fetch }): Promise<Client>;
  close(): Promise<void>;
}

/** opsgate's server (SQLite, demo people) with a gateway in front of the real filesystem MCP server. */
export async function startGatewayRig(
  extraConfig = '',
  settings = 'approvalWaitSeconds: 20',
  server: { webhooks?: WebhookOptions; chat?: ChatIntegrationOptions } = {},
): Promise<GatewayRig> {
  const files = mkdtempSync(join(tmpdir(), 'opsgate-gateway-files-'));
  const config = parseGatewayConfig(
    `${settings}
upstreams:
  - name: files
    trusted: true
    command: ${process.execPath}
    args: [${JSON.stringify(FILESYSTEM_SERVER)}, ${JSON.stringify(files)}]
    timeoutMs: 10000
${extraConfig}`,
    'test config',
  );
  const gateway = new Gateway(config);
  const web = await startWebServer({ agents: gateway.agents, gateway, ...server });
  gateway.attach(web.runtime);
  const users = new UserRepository(web.store);
  const host = await startGatewayHttp(
    gateway,
    ResourceTokens.forStore(web.store, users),
    { port: 0 },
    { authorizationServers: [SSO_ISSUER] },
  );
  const tokens = new Map<string, string>();
  const tokenFor = async (username: string) => {
    if (!tokens.has(username)) tokens.set(username, (await users.createToken(username, 'gateway-test')).token);
    return tokens.get(username)!;
  };
  const clients: Client[] = [];
  return {
    web,
    gateway,
    host,
    files,
    tokenFor,
    async connect(username, options = {}) {
      const client = new Client(
        { name: `test-${username}`, version: '1.0.0' },
        { capabilities: options.elicitation ? { elicitation: {} } : {} },
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(host.url), {
          requestInit: { headers: { authorization: `Bearer ${await tokenFor(username)}` } },
          ...(options.fetch ? { fetch: options.fetch } : {}),
        }),
      );
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) await client.close().catch(() => {});
      await host.close();
      await web.close();
      await gateway.close();
      rmSync(files, { recursive: true, force: true });
    },
  };
}

export function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

/** The call waiting for approval in the inbox, as `who` sees it. */
export async function waitForPending(rig: GatewayRig, who: string, tool: string) {
  const user = (await new UserRepository(rig.web.store).findByName(who))!;
  const actor = { userId: user.id, username: user.username, roles: user.roles };
  for (let attempt = 0; attempt < 100; attempt++) {
    const pending = (await rig.web.runtime.pendingApprovals(actor)).find((p) => p.interrupt.tool === tool);
    if (pending) return { pending, actor };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no pending ${tool} for ${who}`);
}

/** Sealed audit events of one type (the journal is sealed first). */
export async function auditEvents(rig: GatewayRig, type: string) {
  return new AuditLog(rig.web.store).list({ type, limit: 5000 });
}

/** A webhook delivery as the local receiver got it. */
export interface ReceivedWebhook {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** Whether a delivery carries opsgate's webhook signature made with `secret` over its timestamp and body. */
export function isSignedWith(delivery: ReceivedWebhook, secret: string): boolean {
  return verifyWebhookSignature(
    secret,
    String(delivery.headers[TIMESTAMP_HEADER]),
    delivery.body,
    String(delivery.headers[SIGNATURE_HEADER]),
  );
}

/** A local webhook receiver on a loopback port: every delivery lands in `received`, answered 204. */
export interface WebhookReceiver {
  readonly url: string;
  readonly received: ReceivedWebhook[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const receiver = createHttpServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  const address = receiver.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () => new Promise<void>((closed) => receiver.close(() => closed())),
  };
}
