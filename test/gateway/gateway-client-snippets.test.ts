import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UserRepository } from '../../src/core/identity/users.ts';
import { openStore } from '../../src/core/store/index.ts';
import { freePort } from '../web/web-harness.ts';
import { MEMORY_SERVER } from './gateway-harness.ts';

/**
 * The client set-up snippets of docs/gateway.md, as each client reads them: every snippet is taken
 * from the doc, parsed in its client's format, and the gateway is started with exactly its
 * command and arguments (Claude Desktop, launched by the MCP Inspector from that very file) or
 * reached at its URL (VS Code, Cursor; the URL must be the gateway's default address, and only the
 * port is swapped for a free one so that parallel runs do not collide). Then the tools are listed
 * through it by the Inspector CLI.
 */

const ROOT = resolve(import.meta.dirname, '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'gateway.md'), 'utf8');
const INSPECTOR = join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
/** Where `opsgate gateway` listens unless told otherwise (its --help: --port 8790 --host 127.0.0.1). */
const DEFAULT_URL = 'http://127.0.0.1:8790/mcp';
const run = promisify(execFile);

/** The first JSON code block after the bold label that introduces it. */
function snippetAfter(label: string): unknown {
  const at = DOC.indexOf(`**${label}**`);
  expect(at, `docs/gateway.md has a **${label}** snippet`).toBeGreaterThan(-1);
  const block = /```json\n([\s\S]*?)\n```/.exec(DOC.slice(at));
  return JSON.parse(block![1]!);
}

const StdioEntry = z.object({ command: z.string(), args: z.array(z.string()), env: z.record(z.string(), z.string()) }).strict();
const ClaudeDesktop = z.object({ mcpServers: z.record(z.string(), StdioEntry) }).strict();
const VsCode = z
  .object({
    inputs: z.array(z.object({ id: z.string(), type: z.literal('promptString'), description: z.string(), password: z.boolean() }).strict()),
    servers: z.record(
      z.string(),
      z.object({ type: z.literal('http'), url: z.string().url(), headers: z.record(z.string(), z.string()) }).strict(),
    ),
  })
  .strict();
const Cursor = z
  .object({ mcpServers: z.record(z.string(), z.object({ url: z.string().url(), headers: z.record(z.string(), z.string()) }).strict()) })
  .strict();

describe('the client set-up snippets in docs/gateway.md work as written', () => {
  let dir: string;
  let token: string;
  let config: string;
  let gateway: ChildProcess | undefined;
  let port: number;

  const inspector = async (args: string[]) => {
    // A generous connect timeout: the stdio entry starts bin/opsgate and its upstream, seconds on a loaded machine.
    const { stdout } = await run(
      process.execPath,
      [INSPECTOR, '--cli', ...args, '--method', 'tools/list', '--format', 'json', '--connect-timeout', '90000'],
      {
        timeout: 120_000,
        env: { ...process.env, HOME: dir },
      },
    );
    return (JSON.parse(stdout.slice(stdout.indexOf('{'))) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
  };
  /** The snippet's URL on this run's port, after checking it is the gateway's default address. */
  const reachable = (url: string) => {
    expect(url).toBe(DEFAULT_URL);
    return url.replace(':8790/', `:${port}/`);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-snippets-'));
    const store = await openStore({ dataDir: dir, databaseUrl: '' });
    const users = new UserRepository(store);
    await users.create({ username: 'john_doe', roles: ['user'] });
    token = (await users.createToken('john_doe', 'desktop')).token;
    await store.close();
    config = join(dir, 'gateway.yaml');
    writeFileSync(
      config,
      `upstreams:\n  - name: memory\n    trusted: true\n    command: ${process.execPath}\n    args: [${JSON.stringify(MEMORY_SERVER)}]\n    env: { MEMORY_FILE_PATH: ${JSON.stringify(join(dir, 'memory.jsonl'))} }\n`,
    );
    port = await freePort();
    const env: Record<string, string> = { OPSGATE_DATA_DIR: dir };
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !name.startsWith('OPSGATE_')) env[name] = value;
    gateway = spawn(join(ROOT, 'bin', 'opsgate'), ['gateway', '--config', config, '--port', String(port)], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let output = '';
    await new Promise<void>((done, fail) => {
      gateway!.stderr!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('memory: up')) done();
      });
      gateway!.once('exit', (code) => fail(new Error(`opsgate gateway exited ${code}: ${output}`)));
    });
  }, 150_000);

  afterAll(async () => {
    if (gateway && gateway.exitCode === null) {
      gateway.kill('SIGTERM');
      await new Promise((done) => gateway!.once('exit', done));
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('Claude Desktop (claude_desktop_config.json, stdio): the Inspector launches exactly its command and lists the tools', async () => {
    const parsed = ClaudeDesktop.parse(snippetAfter('Claude Desktop'));
    const entry = parsed.mcpServers.opsgate!;
    expect(entry.args).toEqual(['gateway', '--config', '/path/to/gateway.yaml', '--stdio']);
    // Only the doc's placeholders are filled in: where opsgate is, the config, the data, the token.
    const filled = JSON.parse(
      JSON.stringify(parsed)
        .replaceAll('/path/to/opsgate', ROOT)
        .replaceAll('/path/to/gateway.yaml', config)
        .replaceAll('/path/to/data', dir)
        .replaceAll('ogt_…', token),
    );
    const file = join(dir, 'claude_desktop_config.json');
    writeFileSync(file, JSON.stringify(filled));
    const tools = await inspector(['--config', file, '--server', 'opsgate']);
    expect(tools).toEqual(expect.arrayContaining(['memory__read_graph', 'memory__create_entities', 'gateway_collect']));
  }, 150_000);

  it('VS Code (.vscode/mcp.json, http): its URL and header, with the prompted token, list the tools', async () => {
    const parsed = VsCode.parse(snippetAfter('VS Code'));
    const server = parsed.servers.opsgate!;
    // The header takes the token from an input VS Code prompts for, hidden as a password.
    const inputId = /\$\{input:([^}]+)\}/.exec(server.headers.Authorization ?? '')?.[1];
    expect(parsed.inputs.find((input) => input.id === inputId)?.password).toBe(true);
    const header = server.headers.Authorization!.replace(`\${input:${inputId}}`, token);
    const tools = await inspector([reachable(server.url), '--transport', 'http', '--header', `Authorization: ${header}`]);
    expect(tools).toContain('memory__read_graph');
  }, 150_000);

  it('Cursor (mcp.json, http): its URL and header, with the token from the environment, list the tools', async () => {
    const parsed = Cursor.parse(snippetAfter('Cursor'));
    const server = parsed.mcpServers.opsgate!;
    const variable = /\$\{env:([A-Z_]+)\}/.exec(server.headers.Authorization ?? '')?.[1];
    expect(variable).toBe('OPSGATE_TOKEN');
    const header = server.headers.Authorization!.replace(`\${env:${variable}}`, token);
    const tools = await inspector([reachable(server.url), '--transport', 'http', '--header', `Authorization: ${header}`]);
    expect(tools).toContain('memory__create_entities');
  }, 150_000);
});
