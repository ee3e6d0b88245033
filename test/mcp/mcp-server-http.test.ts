import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDemoDatabase } from '../../src/agents/sandbox/demo/index.ts';
import { hashDatabaseFiles } from '../../src/agents/sandbox/demo/testing.ts';

/** Starts `opsgate mcp-server …` and reads the URL and the generated token from its banner. */
async function start(args: string[]): Promise<{ child: ChildProcess; url: string; token: string }> {
  const child = spawn('bin/opsgate', ['mcp-server', ...args, '--http', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let text = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(text)?.[1];
      const token = /token (\S+)\n/.exec(text)?.[1];
      if (url && token) resolve({ child, url, token });
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${text}`)));
  });
}

/** A raw JSON-RPC initialize, as a DNS-rebinding page or curl would send it. */
function rawInitialize(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown> }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, headers: res.headers });
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'h2-probe', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

describe('review H2: mcp-server --http is no longer an unauthenticated write path', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-mcp-http-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sandbox: no token → 401, foreign Host → 403, and BEGIN / DROP TABLE / COMMIT is not offered', async () => {
    const path = ensureDemoDatabase(join(dir, 'h2.db'));
    const before = hashDatabaseFiles(path);
    const { child, url, token } = await start(['sandbox', '--db', path]);
    try {
      const anonymous = await rawInitialize(url, {});
      expect(anonymous.status).toBe(401);
      expect(String(anonymous.headers['www-authenticate'])).toMatch(/^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known/);
      expect((await rawInitialize(url, { authorization: 'Bearer wrong-token' })).status).toBe(401);
      const port = new URL(url).port;
      const rebound = await rawInitialize(url, {
        host: `rebind.evil.example:${port}`,
        origin: `http://rebind.evil.example:${port}`,
        authorization: `Bearer ${token}`,
      });
      expect(rebound.status).toBe(403);

      const client = await connect(url, token);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(['inspect_state', 'run_profiler']);
        const begin = await client.callTool({ name: 'execute_query', arguments: { sql: 'BEGIN', control: 'begin' } });
        expect(begin.isError).toBe(true);
        expect(JSON.stringify(begin.content)).toMatch(/not offered over HTTP/);
        const listed = await client.callTool({ name: 'inspect_state', arguments: { what: 'tables' } });
        expect(JSON.stringify(listed.content)).toContain('order_items');
      } finally {
        await client.close();
      }
      expect(hashDatabaseFiles(path)).toBe(before);
    } finally {
      child.kill('SIGTERM');
    }
  }, 30_000);

  it('helm: install and uninstall are not offered over HTTP', async () => {
    const { child, url, token } = await start(['helm', '--backend', 'simulator']);
    try {
      const client = await connect(url, token);
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toContain('helm_get_installation_plan');
        expect(names).not.toContain('helm_install_chart');
        expect(names).not.toContain('helm_uninstall_release');
        const install = await client.callTool({ name: 'helm_install_chart', arguments: { planHash: 'x' } });
        expect(install.isError).toBe(true);
      } finally {
        await client.close();
      }
    } finally {
      child.kill('SIGTERM');
    }
  }, 30_000);
});
