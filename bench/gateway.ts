// The MCP gateway's cost on a read-only pass-through, like with like (issue 28, "Wire speed"):
// - stdio: the reference filesystem server's `read_text_file` on a small file, called by a real MCP
//   SDK client directly over stdio, vs through `opsgate gateway` (clients over Streamable HTTP, one
//   stdio connection to the same upstream);
// - HTTP: the reference everything server's `echo` over Streamable HTTP, directly vs through the
//   gateway (HTTP in, HTTP out), one client session per concurrent caller both ways.
// The gateway runs in its own process (SQLite store, every call checked by policy and audited), at
// C=1 and C=16. Per gateway row: CPU ms of the gateway process per call (/proc, load skews it less
// than wall time) and bytes its store grew per call. Per row also the CPU of the client (this
// process) and of the upstream server, so "Added by the gateway" can set the gateway's CPU against a
// thin proxy built on the MCP SDK (its HTTP server side plus its client side, no policy, no audit:
// what the peers are). BENCH_GATEWAY_PROFILE=DIR
// writes the gateway's V8 CPU profile there. Goals: added p50 ≤ 0.5 ms at C=1; ≥ 0.8× direct
// HTTP throughput at C=16; ≥ 0.5× direct stdio; ≤ 0.3 ms gateway CPU per read.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UserRepository } from '../src/core/identity/users.ts';
import { openStore } from '../src/core/store/index.ts';
import { type BenchRow, printTable, summarise, writeResults } from './bench-report.ts';
import { goal } from './load/goals.ts';

const ROOT = resolve(import.meta.dirname, '..');
const FILESYSTEM = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const quick = process.env.BENCH_QUICK === '1';
const CALLS = quick ? 300 : 2000;
const WARMUP = quick ? 50 : 200;
/** Where the figures go (`bench/results/NAME.json`); an engineer's run names itself so it does not overwrite the lead's. */
const RESULTS_NAME = process.env.BENCH_RESULTS_NAME ?? 'gateway';
/** Clock ticks per second of /proc/PID/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_S = 100;
/** A folder to write the gateway process's V8 CPU profile into (`--cpu-prof`); unset, no profile (the profiler costs CPU itself). */
const PROFILE_DIR = process.env.BENCH_GATEWAY_PROFILE;

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

/** CPU time (user + system) a process has used, in ms; undefined where /proc is absent. */
function cpuMsOf(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S;
  } catch {
    return undefined;
  }
}

/** The bytes a SQLite store holds (pages in use), after folding its write-ahead log in. */
function storedBytes(path: string): number {
  const db = new DatabaseSync(path);
  try {
    db.exec('PRAGMA busy_timeout = 5000');
    db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get();
    const pragma = (name: string) => Number(Object.values(db.prepare(`PRAGMA ${name}`).get() ?? {})[0]);
    return (pragma('page_count') - pragma('freelist_count')) * pragma('page_size');
  } finally {
    db.close();
  }
}

/** What the gateway process spent on a row: read before and after its calls. */
interface GatewayCost {
  readonly pid: number | undefined;
  readonly database: string;
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
  watched: { readonly gateway?: GatewayCost; readonly upstreamPid?: number | undefined } = {},
): Promise<BenchRow> {
  const cost = watched.gateway;
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
  const bytesBefore = cost ? storedBytes(cost.database) : 0;
  const cpuBefore = cpuMsOf(cost?.pid);
  const upstreamBefore = cpuMsOf(watched.upstreamPid);
  const clientBefore = process.cpuUsage();
  const samples: number[] = [];
  const started = performance.now();
  await run(CALLS, samples);
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = cpuMsOf(cost?.pid);
  const client = process.cpuUsage(clientBefore);
  const upstreamAfter = cpuMsOf(watched.upstreamPid);
  // The audit sealer runs just after the calls; its work belongs to them.
  if (cost) await new Promise((settled) => setTimeout(settled, 200));
  const cpuSettled = cpuMsOf(cost?.pid) ?? cpuAfter;
  const perCall = (n: number) => Math.round((n / CALLS) * 1000) / 1000;
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
    ...(cost && cpuBefore !== undefined && cpuSettled !== undefined ? { gateway_cpu_ms_per_call: perCall(cpuSettled - cpuBefore) } : {}),
    ...(cost ? { bytes_stored_per_call: Math.round((storedBytes(cost.database) - bytesBefore) / CALLS) } : {}),
    // The SDK's own cost, for the floor a proxy built on it cannot go under: its client (this process) and the upstream server.
    client_cpu_ms_per_call: perCall((client.user + client.system) / 1000),
    ...(upstreamBefore !== undefined && upstreamAfter !== undefined
      ? { upstream_cpu_ms_per_call: perCall(upstreamAfter - upstreamBefore) }
      : {}),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'opsgate-bench-gateway-'));
const children: ChildProcess[] = [];
const opened: Client[] = [];
const loadBefore = loadavg()[0]!;
try {
  const files = join(dir, 'files');
  mkdirSync(files);
  const target = join(files, 'small.txt');
  writeFileSync(target, 'a small file read through MCP\n');
  const store = await openStore({ dataDir: dir, databaseUrl: '' });
  const users = new UserRepository(store);
  await users.create({ username: 'bench', roles: ['user'] });
  const { token } = await users.createToken('bench', 'bench');
  await store.close();
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('OPSGATE_')) env[name] = value;
  const everythingPort = await freePort();
  children.push(
    await startProcess(process.execPath, [EVERYTHING, 'streamableHttp'], { ...env, PORT: String(everythingPort) }, /listening/),
  );
  const everythingUrl = `http://127.0.0.1:${everythingPort}/mcp`;
  const config = join(dir, 'gateway.yaml');
  writeFileSync(
    config,
    `limits: { perUserPerMinute: 10000000, perToolPerMinute: 10000000, maxResultBytes: 1000000 }
upstreams:
  - name: files
    trusted: true
    command: ${process.execPath}
    args: [${JSON.stringify(FILESYSTEM)}, ${JSON.stringify(files)}]
  - name: remote
    trusted: true
    url: ${everythingUrl}
`,
  );
  const gatewayPort = await freePort();
  const gateway = await startProcess(
    process.execPath,
    [
      '--disable-warning=ExperimentalWarning',
      ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${resolve(PROFILE_DIR)}`] : []),
      join(ROOT, 'src', 'cli', 'main.ts'),
      'gateway',
      '--config',
      config,
      '--port',
      String(gatewayPort),
    ],
    { ...env, OPSGATE_DATA_DIR: dir, OPSGATE_LOG_LEVEL: 'error' },
    /listening on/,
  );
  children.push(gateway);
  const cost: GatewayCost = { pid: gateway.pid, database: join(dir, 'opsgate.db') };
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}/mcp`;
  // Directly over stdio: one connection to the upstream, as the gateway has; concurrent callers share it.
  const direct = new Client({ name: 'bench-direct', version: '1' });
  const directTransport = new StdioClientTransport({ command: process.execPath, args: [FILESYSTEM, files], stderr: 'ignore' });
  await direct.connect(directTransport);
  const everythingPid = children[0]!.pid;
  opened.push(direct);
  const sessions = async (url: string, concurrency: number, bearer?: string) => {
    const clients = await Promise.all(Array.from({ length: concurrency }, () => connect(url, bearer)));
    opened.push(...clients);
    return clients;
  };

  const rows: BenchRow[] = [];
  const echo = { message: 'a short message through MCP' };
  for (const concurrency of [1, 16]) {
    rows.push(
      await measure('direct stdio', 'client → upstream (stdio)', async () => [direct], 'read_text_file', { path: target }, concurrency, {
        upstreamPid: directTransport.pid ?? undefined,
      }),
    );
    rows.push(
      await measure(
        'gateway → stdio',
        'client → gateway (HTTP, SQLite) → upstream (stdio)',
        () => sessions(gatewayUrl, concurrency, token),
        'files__read_text_file',
        { path: target },
        concurrency,
        { gateway: cost },
      ),
    );
    rows.push(
      await measure('direct HTTP', 'client → upstream (HTTP)', () => sessions(everythingUrl, concurrency), 'echo', echo, concurrency, {
        upstreamPid: everythingPid,
      }),
    );
    rows.push(
      await measure(
        'gateway → HTTP',
        'client → gateway (HTTP, SQLite) → upstream (HTTP)',
        () => sessions(gatewayUrl, concurrency, token),
        'remote__echo',
        echo,
        concurrency,
        { gateway: cost, upstreamPid: everythingPid },
      ),
    );
  }
  printTable('MCP gateway: read-only pass-through, like with like (filesystem read_text_file over stdio, everything echo over HTTP)', rows);

  const pairs: BenchRow[] = [];
  for (const concurrency of [1, 16])
    for (const transport of ['stdio', 'HTTP']) {
      const plain = rows.find((r) => r.system === `direct ${transport}` && r.concurrency === concurrency)!;
      const guarded = rows.find((r) => r.system === `gateway → ${transport}` && r.concurrency === concurrency)!;
      // A thin proxy built on the SDK (what the peers are) is its Streamable HTTP server (what the everything
      // server spends answering direct HTTP calls, echo included) plus a client of its upstream (what this
      // process spends as a direct client): no policy, no audit. The gateway's CPU is set against it.
      const httpServer = rows.find((r) => r.system === 'direct HTTP' && r.concurrency === concurrency)?.upstream_cpu_ms_per_call;
      const thinProxy = Number(httpServer) + Number(plain.client_cpu_ms_per_call);
      pairs.push({
        system: `gateway vs direct ${transport}`,
        concurrency,
        added_p50_ms: Math.round(((guarded.p50_ms as number) - (plain.p50_ms as number)) * 1000) / 1000,
        throughput_ratio: Math.round(((guarded.calls_per_s as number) / (plain.calls_per_s as number)) * 100) / 100,
        gateway_cpu_ms_per_call: guarded.gateway_cpu_ms_per_call ?? 'n/a',
        bytes_stored_per_call: guarded.bytes_stored_per_call ?? 'n/a',
        thin_sdk_proxy_cpu_ms: Number.isFinite(thinProxy) ? Math.round(thinProxy * 1000) / 1000 : 'n/a',
        cpu_vs_thin_proxy: Number.isFinite(thinProxy)
          ? Math.round((Number(guarded.gateway_cpu_ms_per_call) / thinProxy) * 100) / 100
          : 'n/a',
      });
    }
  printTable('Added by the gateway', pairs);

  const pair = (transport: string, concurrency: number) =>
    pairs.find((p) => p.system.endsWith(transport) && p.concurrency === concurrency)!;
  const cpuOf = (transport: string, concurrency: number) => Number(pair(transport, concurrency).gateway_cpu_ms_per_call ?? Number.NaN);
  const goals: BenchRow[] = [
    goal('added p50 at C=1 (HTTP), ms', Number(pair('HTTP', 1).added_p50_ms), 0.5, false),
    goal('added p50 at C=1 (stdio), ms', Number(pair('stdio', 1).added_p50_ms), 0.5, false),
    goal('throughput vs direct HTTP at C=16', Number(pair('HTTP', 16).throughput_ratio), 0.8, true),
    goal('throughput vs direct stdio at C=16', Number(pair('stdio', 16).throughput_ratio), 0.5, true),
    ...[1, 16].flatMap((concurrency) =>
      ['stdio', 'HTTP'].map((transport) =>
        goal(`gateway CPU per read, → ${transport} C=${concurrency}, ms`, cpuOf(transport, concurrency), 0.3, false),
      ),
    ),
  ];
  printTable('Goals (issue 28)', goals);
  const load = { loadavg1_before: loadBefore, loadavg1_after: loadavg()[0]! };
  console.log(
    `\nload average (1 min) before ${load.loadavg1_before.toFixed(2)}, after ${load.loadavg1_after.toFixed(2)} on ${cpus().length} cores`,
  );
  writeResults(RESULTS_NAME, [...rows, ...pairs, ...goals], { cores: cpus().length, ...load });
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
