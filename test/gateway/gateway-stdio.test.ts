import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, expect, it } from 'vitest';
import { UserRepository } from '../../src/core/identity/users.ts';
import { openStore } from '../../src/core/store/index.ts';
import { MEMORY_SERVER, textOf } from './gateway-harness.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

it('opsgate gateway --stdio in front of the real memory server: the token names the requester; his elicitation approves his own medium-risk change', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'opsgate-gateway-stdio-'));
  dirs.push(dataDir);
  const store = await openStore({ dataDir, databaseUrl: '' });
  const users = new UserRepository(store);
  await users.create({ username: 'john_doe', roles: ['user'] });
  const { token } = await users.createToken('john_doe', 'desktop');
  await store.close();
  const memoryFile = join(dataDir, 'memory.jsonl');
  const config = join(dataDir, 'gateway.yaml');
  writeFileSync(
    config,
    `upstreams:\n  - name: memory\n    trusted: true\n    requesterMayApprove: true\n    command: ${process.execPath}\n    args: [${JSON.stringify(MEMORY_SERVER)}]\n    env: { MEMORY_FILE_PATH: ${JSON.stringify(memoryFile)} }\n`,
  );
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !name.startsWith('OPSGATE_')) env[name] = value;
  Object.assign(env, { OPSGATE_DATA_DIR: dataDir, OPSGATE_TOKEN: token });

  const client = new Client({ name: 'desktop', version: '1' }, { capabilities: { elicitation: {} } });
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { decision: 'approve' } };
  });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--disable-warning=ExperimentalWarning', join(ROOT, 'src', 'cli', 'main.ts'), 'gateway', '--config', config, '--stdio'],
      env,
      stderr: 'pipe',
    }),
  );
  try {
    const empty = await client.callTool({ name: 'memory__read_graph', arguments: {} });
    expect(JSON.parse(textOf(empty))).toMatchObject({ entities: [] });
    expect(asked).toEqual([]);
    const created = await client.callTool({
      name: 'memory__create_entities',
      arguments: { entities: [{ name: 'web1', entityType: 'host', observations: ['nginx restarted by the on-call'] }] },
    });
    expect(created.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/risk medium/);
    expect(readFileSync(memoryFile, 'utf8')).toContain('web1');
    const graph = await client.callTool({ name: 'memory__search_nodes', arguments: { query: 'web1' } });
    expect(textOf(graph)).toContain('nginx restarted');
  } finally {
    await client.close();
  }
  const check = await openStore({ dataDir, databaseUrl: '' });
  const approvals = await check.db.selectFrom('audit_pending').select(['type', 'actor']).where('type', '=', 'tool_approved').execute();
  const sealed = await check.db.selectFrom('audit_events').select(['type', 'actor']).where('type', '=', 'tool_approved').execute();
  await check.close();
  expect([...approvals, ...sealed].map((e) => e.actor)).toEqual(['user:john_doe']);
}, 60_000);
