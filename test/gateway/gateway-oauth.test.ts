import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe } from '../../src/cli/commands/serve.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { openStore } from '../../src/core/store/index.ts';
import { FILESYSTEM_SERVER, textOf } from './gateway-harness.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';
const PASSWORD = 'oauth-password-1';

/** The SDK's OAuth client provider contract, kept in memory; the "browser" is redirectToAuthorization. */
class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly redirectUrl = REDIRECT;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'Test MCP Client',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

let dataDir: string;
let server: Awaited<ReturnType<typeof startServe>>;
let adminToken: string;
let apiToken: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'opsgate-gateway-oauth-'));
  const config = join(dataDir, 'gateway.yaml');
  writeFileSync(
    config,
    `upstreams:\n  - name: files\n    trusted: true\n    command: ${process.execPath}\n    args: [${JSON.stringify(FILESYSTEM_SERVER)}, ${JSON.stringify(dataDir)}]\n`,
  );
  writeFileSync(join(dataDir, 'hello.txt'), 'read through OAuth');
  const store = await openStore({ dataDir, databaseUrl: '' });
  const users = new UserRepository(store);
  for (const username of ['alice', 'bob', 'carol']) await users.create({ username, password: PASSWORD, roles: ['user'] });
  await users.create({ username: 'admin', password: PASSWORD, roles: ['admin'] });
  adminToken = (await users.createToken('admin', 'audit')).token;
  apiToken = (await users.createToken('bob', 'pasted')).token;
  await store.close();
  const env = {
    OPSGATE_DATA_DIR: dataDir,
    OPSGATE_GATEWAY_CONFIG: config,
    OPSGATE_DEMO_PASSWORD: 'serve-password-1',
    OPSGATE_MODEL: 'offline',
  };
  server = await startServe({ port: 0, host: '127.0.0.1', env, out: new PassThrough() });
}, 60_000);

afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Signs in like the web UI does (POST /api/login) and returns the session cookie and CSRF token. */
async function signIn(origin: string, username: string): Promise<{ cookie: string; csrf: string }> {
  const response = await fetch(`${origin}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: PASSWORD }),
  });
  expect(response.status).toBe(200);
  const cookie = response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');
  return { cookie, csrf: ((await response.json()) as { csrfToken: string }).csrfToken };
}

/** The person answers the consent page in "their browser": sign in, open the page, press a button. */
async function answerConsent(authorizationUrl: URL, username: string, decision: 'approve' | 'deny'): Promise<URL> {
  const { cookie } = await signIn(authorizationUrl.origin, username);
  const page = await fetch(authorizationUrl, { headers: { cookie }, redirect: 'manual' });
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('<span class="who" id="client">Test MCP Client</span>');
  expect(html).toContain(`<span class="who" id="person">${username}</span>`);
  const form = new URLSearchParams();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g))
    form.set(name!, value!.replaceAll('&#38;', '&'));
  form.set('decision', decision);
  const answer = await fetch(`${authorizationUrl.origin}/oauth/authorize`, {
    method: 'POST',
    headers: { cookie, origin: authorizationUrl.origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
    redirect: 'manual',
  });
  expect(answer.status).toBe(302);
  return new URL(answer.headers.get('location')!);
}

/** Discovery, registration and the authorization redirect, through the SDK's own client. */
async function startAuthorization(origin: string): Promise<{ provider: MemoryProvider; transport: StreamableHTTPClientTransport }> {
  const provider = new MemoryProvider();
  const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider });
  await expect(new Client({ name: 'oauth-test', version: '1' }).connect(transport)).rejects.toThrow(UnauthorizedError);
  expect(provider.info?.client_id).toMatch(/^ogc_/);
  expect(provider.authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
  expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(`${origin}/mcp`);
  return { provider, transport };
}

async function connectWith(origin: string, provider: MemoryProvider): Promise<Client> {
  const client = new Client({ name: 'oauth-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider }));
  return client;
}

async function toolReadsBy(actor: string): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const response = await fetch(`${server.url}/api/audit?type=tool_read&limit=1000`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    const { events } = (await response.json()) as { events: Array<{ actor: string }> };
    const count = events.filter((event) => event.actor === actor).length;
    if (count > 0) return count;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return 0;
}

function post(mcpUrl: string, token: string): Promise<Response> {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
}

describe('OAuth for the gateway’s /mcp in opsgate serve', () => {
  it('the SDK client connects end to end: discovery, registration, consent by a signed-in person, token, tools/list, a call recorded as that person', async () => {
    const metadata = await (await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toMatchObject({ resource: `${server.url}/mcp`, authorization_servers: [server.url] });

    const { provider, transport } = await startAuthorization(server.url);
    const callback = await answerConsent(provider.authorizationUrl!, 'alice', 'approve');
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT);
    expect(callback.searchParams.get('state')).toBe(provider.authorizationUrl!.searchParams.get('state'));
    await transport.finishAuth(callback.searchParams.get('code')!);
    expect(provider.saved).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), expires_in: 3600 });

    const client = await connectWith(server.url, provider);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('files__read_text_file');
      const read = await client.callTool({ name: 'files__read_text_file', arguments: { path: join(dataDir, 'hello.txt') } });
      expect(textOf(read)).toBe('read through OAuth');
    } finally {
      await client.close();
    }
    expect(await toolReadsBy('user:alice')).toBe(1);

    // The code was spent: a replay gets no second token.
    const replay = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        code_verifier: provider.verifier,
        client_id: String(provider.info!.client_id),
        redirect_uri: REDIRECT,
      }),
    });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
    // The token is for /mcp only: the REST API refuses it.
    const rest = await fetch(`${server.url}/api/me`, { headers: { authorization: `Bearer ${provider.saved!.access_token}` } });
    expect(rest.status).toBe(401);
  }, 60_000);

  it('a pasted opsgate API token keeps working on /mcp', async () => {
    const client = new Client({ name: 'api-token', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${apiToken}` } },
      }),
    );
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('refuses a wrong PKCE verifier', async () => {
    const { provider } = await startAuthorization(server.url);
    const callback = await answerConsent(provider.authorizationUrl!, 'alice', 'approve');
    const wrongVerifier = randomBytes(32).toString('base64url');
    expect(createHash('sha256').update(wrongVerifier).digest('base64url')).not.toBe(
      provider.authorizationUrl!.searchParams.get('code_challenge'),
    );
    const response = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        code_verifier: wrongVerifier,
        client_id: String(provider.info!.client_id),
        redirect_uri: REDIRECT,
      }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_grant');
    expect(body.error_description).toContain('code_verifier');
  }, 60_000);

  it('refuses a token issued for another resource (the same server under another name)', async () => {
    const other = server.url.replace('127.0.0.1', 'localhost');
    const { provider, transport } = await startAuthorization(other);
    const callback = await answerConsent(provider.authorizationUrl!, 'carol', 'approve');
    await transport.finishAuth(callback.searchParams.get('code')!);
    const token = provider.saved!.access_token;
    expect((await post(`${other}/mcp`, token)).status).toBe(200);
    const elsewhere = await post(`${server.url}/mcp`, token);
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get('www-authenticate')).toContain('error="invalid_token"');
  }, 60_000);

  it('refuses a disabled person’s OAuth token', async () => {
    const { provider, transport } = await startAuthorization(server.url);
    const callback = await answerConsent(provider.authorizationUrl!, 'bob', 'approve');
    await transport.finishAuth(callback.searchParams.get('code')!);
    const token = provider.saved!.access_token;
    expect((await post(`${server.url}/mcp`, token)).status).toBe(200);
    const disabled = await fetch(`${server.url}/api/users/bob/disable`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(disabled.status).toBeLessThan(300);
    expect((await post(`${server.url}/mcp`, token)).status).toBe(401);
  }, 60_000);

  it('a denied consent sends access_denied back and no code', async () => {
    const { provider } = await startAuthorization(server.url);
    const callback = await answerConsent(provider.authorizationUrl!, 'alice', 'deny');
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('code')).toBeNull();
  }, 60_000);

  it('refuses authorization without PKCE S256 or for a foreign resource, and a consent post without the CSRF token', async () => {
    const { provider } = await startAuthorization(server.url);
    const url = new URL(provider.authorizationUrl!);
    url.searchParams.set('code_challenge_method', 'plain');
    const { cookie } = await signIn(server.url, 'alice');
    const plain = await fetch(url, { headers: { cookie }, redirect: 'manual' });
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    const foreign = new URL(provider.authorizationUrl!);
    foreign.searchParams.set('resource', 'https://elsewhere.example/mcp');
    const refused = await fetch(foreign, { headers: { cookie }, redirect: 'manual' });
    expect(new URL(refused.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
    const forged = await fetch(`${server.url}/oauth/authorize`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...Object.fromEntries(provider.authorizationUrl!.searchParams), decision: 'approve' }),
      redirect: 'manual',
    });
    expect(forged.status).toBe(403);
  }, 60_000);
});
