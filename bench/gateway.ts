// The MCP gateway's cost on a read-only pass-through: the reference filesystem server's
// `read_text_file` on a small file, called by a real MCP SDK client directly over stdio, then
// through `opsgate gateway` (its own process, SQLite store, every call checked by policy and
// audited; clients over Streamable HTTP, one stdio connection to the same upstream). C=1 and C=64
// callers. Goals: added p50 ≤ 1 ms, throughput ≥ 0.8× direct.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UserRepository } from '../src/core/identity/users.ts';
import { openStore } from '../src/core/store/index.ts';
import { type BenchRow, printTable, summarise, writeResults } from './bench-report.ts';

const ROOT = resolve(import.meta.dirname, '..');
const FILESYSTEM = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
const quick = process.env.BENCH_QUICK === '1';
const CALLS = quick ? 400 : 1500;
const WARMUP = quick ? 50 : 150;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const address = probe.address();
  await new Promise<void>((done) => probe.close(() => done()));
  return typeof address === 'object' && address ? address.port : 0;
}

/** Starts a child and resolves once its output matches `ready`. */
function startProcess(command: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<ChildProcess> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((done, fail) => {
    let text = '';
    const check = (chunk: Buffer) => {
      text += chunk.toString();
      if (ready.test(text)) done(child);
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', (code) => fail(new Error(`${command} ${args.join(' ')} exited ${code}:\n${text}`)));
  });
}

async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  );
  return client;
}

async function measure(
  system: string,
  processes: string,
  open: () => Promise<Client[]>,
  tool: string,
  args: Record<string, unknown>,
  concurrency: number,
): Promise<BenchRow> {
  const clients = await open();
  let errors = 0;
  const firstErrors: string[] = [];
  // Errors are counted and reported, not fatal, so that one reset connection does not hide the figures.
  const call = async (client: Client) => {
    try {
      const result = await client.callTool({ name: tool, arguments: args });
      if (result.isError) throw new Error(JSON.stringify(result.content));
    } catch (error) {
      errors++;
      if (firstErrors.length < 3) firstErrors.push(error instanceof Error ? error.message : String(error));
    }
  };
  let next = 0;
  const run = async (total: number, samples?: number[]) => {
    next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, index) => {
        const client = clients[index % clients.length]!;
        while (next < total) {
          next++;
          const started = performance.now();
          await call(client);
          samples?.push(performance.now() - started);
        }
      }),
    );
  };
  await run(WARMUP);
  const samples: number[] = [];
  const started = performance.now();
  await run(CALLS, samples);
  const seconds = (performance.now() - started) / 1000;
  const stats = summarise(samples);
  if (firstErrors.length > 0) console.error(`${system} C=${concurrency}: ${errors} errors, e.g. ${firstErrors.join(' | ')}`);
  return {
    system,
    processes,
    concurrency,
    calls: CALLS,
    errors,
    calls_per_s: Math.round(CALLS / seconds),
    p50_ms: stats.p50,
    p99_ms: stats.p99,
  };
}

const dir = mkdtempSync(join(tmpdir(), 'opsgate-bench-gateway-'));
const children: ChildProcess[] = [];
const opened: Client[] = [];
try {
  const files = join(dir, 'files');
  (await import('node:fs')).mkdirSync(files);
  const target = join(files, 'small.txt');
  writeFileSync(target, 'a small file read through MCP\n');
  const store = await openStore({ dataDir: dir, databaseUrl: '' });
  const users = new UserRepository(store);
  await users.create({ username: 'bench', roles: ['user'] });
  const { token } = await users.createToken('bench', 'bench');
  await store.close();
  const config = join(dir, 'gateway.yaml');
  writeFileSync(
    config,
    `limits: { perUserPerMinute: 10000000, perToolPerMinute: 10000000, maxResultBytes: 1000000 }\nupstreams:\n  - name: files\n    trusted: true\n    command: ${process.execPath}\n    args: [${JSON.stringify(FILESYSTEM)}, ${JSON.stringify(files)}]\n`,
  );
  const gatewayPort = await freePort();
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('OPSGATE_')) env[name] = value;
  Object.assign(env, { OPSGATE_DATA_DIR: dir, OPSGATE_LOG_LEVEL: 'error' });
  children.push(
    await startProcess(
      process.execPath,
      [
        '--disable-warning=ExperimentalWarning',
        join(ROOT, 'src', 'cli', 'main.ts'),
        'gateway',
        '--config',
        config,
        '--port',
        String(gatewayPort),
      ],
      env,
      /listening on/,
    ),
  );
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}/mcp`;
  // Directly: one stdio connection to the upstream, as the gateway has; concurrent callers share it.
  const direct = new Client({ name: 'bench-direct', version: '1' });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [FILESYSTEM, files], stderr: 'ignore' }));
  opened.push(direct);
  const viaGateway = async (concurrency: number) => {
    const clients = await Promise.all(Array.from({ length: concurrency }, () => connect(gatewayUrl, token)));
    opened.push(...clients);
    return clients;
  };

  const rows: BenchRow[] = [];
  for (const concurrency of [1, 64]) {
    rows.push(await measure('direct', 'client → upstream (stdio)', async () => [direct], 'read_text_file', { path: target }, concurrency));
    rows.push(
      await measure(
        'opsgate gateway',
        'client → gateway (HTTP, SQLite) → upstream (stdio)',
        () => viaGateway(concurrency),
        'files__read_text_file',
        { path: target },
        concurrency,
      ),
    );
  }
  printTable('MCP gateway: read-only pass-through (filesystem read_text_file)', rows);
  for (const concurrency of [1, 64]) {
    const plain = rows.find((r) => r.system === 'direct' && r.concurrency === concurrency)!;
    const gateway = rows.find((r) => r.system !== 'direct' && r.concurrency === concurrency)!;
    const added = Math.round(((gateway.p50_ms as number) - (plain.p50_ms as number)) * 1000) / 1000;
    const ratio = Math.round(((gateway.calls_per_s as number) / (plain.calls_per_s as number)) * 100) / 100;
    console.log(`C=${concurrency}: added p50 ${added} ms (goal ≤ 1), throughput ${ratio}× direct (goal ≥ 0.8)`);
  }
  writeResults('gateway', rows, { cores: (await import('node:os')).cpus().length });
} finally {
  for (const client of opened) await client.close().catch(() => {});
  // The gateway writes its data directory until it has exited: remove the directory after that.
  await Promise.all(
    children.map((child) =>
      child.exitCode === null && child.signalCode === null
        ? new Promise((exited) => child.once('exit', exited).kill('SIGTERM'))
        : undefined,
    ),
  );
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
