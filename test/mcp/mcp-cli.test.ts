import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, expect, it } from 'vitest';

const opsgate = resolve(import.meta.dirname, '../../bin/opsgate');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it('opsgate mcp --agent access serves the access tools to a real MCP client over stdio', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'opsgate-mcp-cli-'));
  dirs.push(dataDir);
  const env = { ...process.env, OPSGATE_DATA_DIR: dataDir, OPSGATE_DATABASE_URL: '', ACCESS_API_URL: '', OPSGATE_MODEL: '' } as Record<
    string,
    string
  >;
  const added = spawnSync(opsgate, ['users', 'add', 'john_doe'], { env, encoding: 'utf8' });
  expect(added.status, added.stderr).toBe(0);
  const usage = spawnSync(opsgate, ['mcp', '--agent', 'access'], { env, encoding: 'utf8' });
  expect(usage.status).toBe(2);
  expect(usage.stderr).toMatch(/set OPSGATE_TOKEN to an API token \(or name --user NAME in local mode\)/);

  const client = new Client({ name: 'cli-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: opsgate,
    args: ['mcp', '--agent', 'access', '--user', 'john_doe'],
    env,
    stderr: 'pipe',
  });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'get_user_accesses',
      'grant_access_to_user',
      'list_available_accesses',
      'revoke_access_from_user',
    ]);
    const listed = await client.callTool({ name: 'list_available_accesses', arguments: {} });
    const text = (listed as { content: Array<{ text?: string }> }).content[0]?.text ?? '';
    expect(text).toContain('READ_DOCUMENTS');
  } finally {
    await client.close();
  }
}, 60_000);
