import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/command.ts';
import { mcpCommand } from '../../src/cli/commands/mcp.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { openStore } from '../../src/core/store/index.ts';

const opsgate = resolve(import.meta.dirname, '../../bin/opsgate');
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGTERM');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

it('opsgate mcp --agent access --http: bearer opsgate API tokens, the token names the requester', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'opsgate-mcp-http-'));
  dirs.push(dataDir);
  const env = { ...process.env, OPSGATE_DATA_DIR: dataDir, OPSGATE_DATABASE_URL: '', ACCESS_API_URL: '', OPSGATE_MODEL: '' } as Record<
    string,
    string
  >;
  const store = await openStore({ dataDir, databaseUrl: '' });
  const users = new UserRepository(store);
  await users.create({ username: 'john_doe', roles: ['user'] });
  const { token } = await users.createToken('john_doe', 'mcp-http');
  await store.close();
  const io = { env, stdout: process.stdout, stderr: process.stderr } as unknown as CliIo;
  await expect(mcpCommand.run(['--agent', 'access', '--http', '0', '--user', 'admin'], io)).rejects.toThrow(
    /--user does not go with --http/,
  );

  const child = spawn(opsgate, ['mcp', '--agent', 'access', '--http', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  const url = await new Promise<string>((done, fail) => {
    let text = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(text);
      if (match) done(match[1]!);
    });
    child.once('exit', (code) => fail(new Error(`exited ${code}: ${text}`)));
  });

  const anonymous = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    }),
  });
  expect(anonymous.status).toBe(401);
  expect(anonymous.headers.get('www-authenticate')).toMatch(/resource_metadata=/);

  const client = new Client({ name: 'http-agent-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    const listed = await client.callTool({ name: 'get_user_accesses', arguments: { username: 'john_doe' } });
    expect(JSON.stringify(listed.content)).not.toMatch(/forbidden|SESSION_FORBIDDEN/i);
    const db = new DatabaseSync(join(dataDir, 'opsgate.db'), { readOnly: true });
    const owners = db.prepare('SELECT DISTINCT users.username AS who FROM sessions JOIN users ON users.id = sessions.user_id').all();
    db.close();
    expect(owners).toEqual([{ who: 'john_doe' }]);
  } finally {
    await client.close();
  }
}, 60_000);
