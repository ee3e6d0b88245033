import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, expect, it } from 'vitest';
import { startServe } from '../../src/cli/commands/serve.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { openStore } from '../../src/core/store/index.ts';
import { FILESYSTEM_SERVER, textOf } from './gateway-harness.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

it('opsgate serve with OPSGATE_GATEWAY_CONFIG serves the gateway at /mcp beside the web UI, and its upstreams to admins', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'opsgate-gateway-serve-'));
  dirs.push(dataDir);
  const config = join(dataDir, 'gateway.yaml');
  writeFileSync(
    config,
    `upstreams:\n  - name: files\n    trusted: true\n    command: ${process.execPath}\n    args: [${JSON.stringify(FILESYSTEM_SERVER)}, ${JSON.stringify(dataDir)}]\n`,
  );
  writeFileSync(join(dataDir, 'hello.txt'), 'served by opsgate serve');
  const env = {
    OPSGATE_DATA_DIR: dataDir,
    OPSGATE_GATEWAY_CONFIG: config,
    OPSGATE_DEMO_PASSWORD: 'serve-password-1',
    OPSGATE_MODEL: 'offline',
  };
  const store = await openStore({ dataDir, databaseUrl: '' });
  const users = new UserRepository(store);
  await users.create({ username: 'john_doe', roles: ['user'] });
  await users.create({ username: 'admin', roles: ['admin'] });
  const john = (await users.createToken('john_doe', 'gateway')).token;
  const admin = (await users.createToken('admin', 'gateway')).token;
  await store.close();
  const server = await startServe({ port: 0, host: '127.0.0.1', env, out: new PassThrough() });
  try {
    const anonymous = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('/.well-known/oauth-protected-resource');

    const client = new Client({ name: 'serve-test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${john}` } } }),
    );
    try {
      const read = await client.callTool({ name: 'files__read_text_file', arguments: { path: join(dataDir, 'hello.txt') } });
      expect(textOf(read)).toBe('served by opsgate serve');
    } finally {
      await client.close();
    }
    const forJohn = await fetch(`${server.url}/api/gateway/upstreams`, { headers: { authorization: `Bearer ${john}` } });
    expect(forJohn.status).toBe(403);
    const forAdmin = await fetch(`${server.url}/api/gateway/upstreams`, { headers: { authorization: `Bearer ${admin}` } });
    expect(await forAdmin.json()).toMatchObject({ upstreams: [{ name: 'files', state: 'up', transport: 'stdio' }] });
  } finally {
    await server.close();
  }
}, 60_000);
