// `npm run bench:load-profile`: where one approval round trip's time goes, on PostgreSQL with fsync
// on, one process, C sessions at once (default 64). Prints the statements PostgreSQL ran per round
// trip (pg_stat_statements), transactions and WAL fsyncs per round trip, CPU ms per round trip in
// Node and in PostgreSQL, and the Node functions and modules with the most CPU (a V8 CPU profile of
// the measured run). Options: PROFILE_CONCURRENCY, PROFILE_SCENARIOS, PROFILE_STORE=sqlite (the
// Node side alone, on a SQLite file), PROFILE_V8=0 (no V8 profile: CPU figures without the
// profiler's own cost), PROFILE_PROCESSES=N (N replicas as forked `opsgate-worker.ts` processes
// sharing C, as `bench:load` runs them: statements, transactions and CPU per round trip of all of
// them together, and each process's CPU while it idles with its heartbeat and timers; no V8 profile;
// PROFILE_FORK=1 forks one process the same way, to count what `bench:load`'s one-process rows count,
// its 1 s heartbeat included), PROFILE_TOP (functions listed, default 30).
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createRuntime } from '../../src/core/runtime/index.ts';
import { openStore, type Store } from '../../src/core/store/index.ts';
import { createLedgerAgent, createLedgerModel } from '../../src/testing/index.ts';
import { startPostgresCluster } from '../../src/testing/postgres-cluster.ts';
import { flushBackendStatistics } from './backend-statistics.ts';
import { postgresCpuMs, processCpuMs } from './cpu.ts';
import { type DriveResult, drive, HEARTBEAT_MS } from './drive.ts';
import { ledgerRoundTrip } from './ledger-round-trip.ts';
import type { WorkerReport, WorkerTask } from './opsgate-worker.ts';

const concurrency = Number(process.env.PROFILE_CONCURRENCY ?? 64);
const scenarios = Number(process.env.PROFILE_SCENARIOS ?? 1000);
const processes = Number(process.env.PROFILE_PROCESSES ?? 1);
const forked = processes > 1 || process.env.PROFILE_FORK === '1';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function bucketOf(url: string): string {
  if (!url) return '(native/gc/idle)';
  const modules = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (modules) return modules[1]!;
  const source = url.match(/\/(src\/[^/]+(?:\/[^/]+)?)\//);
  if (source) return source[1]!;
  if (url.startsWith('node:')) return url;
  return url.replace(/^.*\//, '');
}

function summariseProfile(profile: CpuProfile, perScenario: (ms: number) => string): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMs = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  });
  const functions = new Map<string, number>();
  const buckets = new Map<string, number>();
  for (const [id, ms] of selfMs) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') continue;
    const name = `${frame.functionName || '(anonymous)'} ${bucketOf(frame.url)}:${frame.lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + ms);
    const bucket = frame.url ? bucketOf(frame.url) : frame.functionName;
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + ms);
  }
  const top = (map: Map<string, number>, count: number) => [...map].sort((a, b) => b[1] - a[1]).slice(0, count);
  console.log('\nNode CPU by module (self time, ms per round trip)');
  for (const [name, ms] of top(buckets, 25)) console.log(`  ${perScenario(ms).padStart(7)}  ${name}`);
  console.log('\nNode CPU by function (self time, ms per round trip)');
  for (const [name, ms] of top(functions, Number(process.env.PROFILE_TOP ?? 30))) console.log(`  ${perScenario(ms).padStart(7)}  ${name}`);
}

/** Runs `work` under the V8 CPU profiler; returns its result, the profile and this process's CPU ms. */
async function profiled<T>(work: () => Promise<T>): Promise<{ result: T; profile: CpuProfile; cpuMs: number }> {
  if (process.env.PROFILE_V8 === '0') {
    const cpuBefore = processCpuMs();
    const result = await work();
    return { result, profile: { nodes: [], samples: [], timeDeltas: [] }, cpuMs: processCpuMs() - cpuBefore };
  }
  const inspector = new Session();
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.setSamplingInterval', { interval: 200 });
  await inspector.post('Profiler.start');
  const cpuBefore = processCpuMs();
  const result = await work();
  const cpuMs = processCpuMs() - cpuBefore;
  const { profile } = (await inspector.post('Profiler.stop')) as unknown as { profile: CpuProfile };
  inspector.disconnect();
  return { result, profile, cpuMs };
}

async function roundTrips(store: Store): Promise<{ result: DriveResult; profile: CpuProfile; cpuMs: number; close: () => Promise<void> }> {
  const model = createLedgerModel();
  const runtime = await createRuntime({ store, agents: [createLedgerAgent({ reads: 0, transfers: [] })], model: () => model });
  await drive(200, concurrency, (index) => ledgerRoundTrip(runtime, 1_000_000 + index));
  // Otherwise the warm-up's transactions that the backends have not reported yet count as measured.
  await flushBackendStatistics(store);
  await beforeMeasuring();
  const measured = await profiled(() => drive(scenarios, concurrency, (index) => ledgerRoundTrip(runtime, 10_000_000 + index)));
  return { ...measured, close: () => runtime.close() };
}

/**
 * The round trips in `processes` forked workers (`bench:load`'s): each warms up, reports ready, and
 * runs its share once all are ready and have heard of each other at a heartbeat.
 */
async function replicaRoundTrips(databaseUrl: string): Promise<{ result: DriveResult; cpuMs: number; idleCpuMsPerSecond: number }> {
  let go: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    go = resolve;
  });
  const reports: Array<Promise<WorkerReport>> = [];
  for (let worker = 0; worker < processes; worker += 1) {
    const task: WorkerTask = {
      databaseUrl,
      sqlitePath: '',
      concurrency: Math.ceil(concurrency / processes),
      scenarios: Math.floor(scenarios / processes),
      warmup: 100,
      worker,
      idleMs: 2000,
      heartbeatMs: HEARTBEAT_MS,
    };
    const child = fork(join(import.meta.dirname, 'opsgate-worker.ts'), [JSON.stringify(task)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const ready = new Promise<void>((resolve) => child.on('message', (message: { type: string }) => message.type === 'ready' && resolve()));
    reports.push(
      new Promise((resolve, reject) => {
        child.on('message', (message: { type: string; report?: WorkerReport }) => message.report && resolve(message.report));
        child.on('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)));
      }),
    );
    void started.then(() => child.send('go'));
    await Promise.race([ready, reports.at(-1)]);
  }
  await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_MS * 1.5));
  await beforeMeasuring();
  const startedAt = performance.now();
  go();
  const done = await Promise.all(reports);
  return {
    result: {
      samples: done.flatMap((report) => report.samples),
      errors: done.flatMap((report) => report.errors),
      completed: done.reduce((sum, report) => sum + report.completed, 0),
      elapsedMs: performance.now() - startedAt,
    },
    cpuMs: done.reduce((sum, report) => sum + report.cpuMs, 0),
    idleCpuMsPerSecond: done.reduce((sum, report) => sum + (report.idleCpuMsPerSecond ?? 0), 0),
  };
}

let beforeMeasuring = async () => {};
const rate = (result: DriveResult) =>
  `${result.completed} round trips, ${result.errors.length} errors, ${(result.completed / (result.elapsedMs / 1000)).toFixed(0)}/s`;

if (process.env.PROFILE_STORE === 'sqlite') {
  const dir = mkdtempSync(join(tmpdir(), 'opsgate-profile-'));
  try {
    const store = await openStore({ databaseUrl: '', sqlitePath: join(dir, 'opsgate.db') });
    const { result, profile, cpuMs, close } = await roundTrips(store);
    await close();
    await store.close();
    const per = (value: number) => (value / result.completed).toFixed(2);
    console.log(`SQLite, 1 process, C=${concurrency}: ${rate(result)}; Node CPU ms per round trip ${per(cpuMs)}`);
    summariseProfile(profile, per);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else {
  const cluster = startPostgresCluster({ fsync: true, statementStatistics: true });
  try {
    const admin = new pg.Pool({ connectionString: cluster.url, max: 1 });
    await admin.query('CREATE DATABASE profile');
    await admin.query('CREATE EXTENSION pg_stat_statements');
    const url = new URL(cluster.url);
    url.pathname = '/profile';
    const counters = async () => {
      await admin.query('SELECT pg_stat_clear_snapshot()');
      const { rows } = await admin.query<{ xact: string; wal: string }>(
        "SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = 'profile') AS xact, (SELECT wal_sync FROM pg_stat_wal) AS wal",
      );
      return { xact: Number(rows[0]!.xact), wal: Number(rows[0]!.wal), cpuMs: postgresCpuMs(cluster.dataDir) };
    };
    let before = { xact: 0, wal: 0, cpuMs: 0 };
    beforeMeasuring = async () => {
      await admin.query('SELECT pg_stat_statements_reset()');
      before = await counters();
    };
    let measured: { result: DriveResult; profile: CpuProfile; cpuMs: number };
    if (forked) {
      const replicas = await replicaRoundTrips(url.toString());
      measured = { ...replicas, profile: { nodes: [], samples: [], timeDeltas: [] } };
      console.log(
        `${processes} processes idling (heartbeat and timers): ${replicas.idleCpuMsPerSecond.toFixed(1)} CPU ms per second in all`,
      );
    } else {
      const store = await openStore({ databaseUrl: url.toString(), sqlitePath: '', poolSize: 10 });
      const { close, ...inProcess } = await roundTrips(store);
      measured = inProcess;
      await close();
      await store.close();
    }
    const { result, profile, cpuMs } = measured;
    // Backends flush their statistics when they exit.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = await counters();
    const per = (value: number) => (value / result.completed).toFixed(2);
    console.log(`PostgreSQL (fsync on), ${processes} process${processes === 1 ? '' : 'es'}, C=${concurrency}: ${rate(result)}`);
    console.log(`transactions per round trip ${per(after.xact - before.xact)}, WAL fsyncs per round trip ${per(after.wal - before.wal)}`);
    console.log(`CPU ms per round trip: Node ${per(cpuMs)}, PostgreSQL ${per(after.cpuMs - before.cpuMs)}`);
    const { rows } = await admin.query<{ calls: string; total: number; query: string }>(
      `SELECT calls, total_exec_time AS total, query FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'profile') ORDER BY calls DESC, total DESC LIMIT 200`,
    );
    console.log('\nStatements per round trip (pg_stat_statements: calls, execution ms, statement)');
    for (const row of rows) {
      const calls = Number(row.calls) / result.completed;
      if (calls >= 0.005)
        console.log(
          `  ${calls.toFixed(2).padStart(6)}  ${(row.total / result.completed).toFixed(3).padStart(7)}  ${row.query.replace(/\s+/g, ' ').slice(0, 150)}`,
        );
    }
    summariseProfile(profile, per);
    await admin.end();
  } finally {
    cluster.dispose();
  }
}
