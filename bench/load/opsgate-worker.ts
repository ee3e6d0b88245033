// One opsgate process of the load benchmark (started with fork by bench/load.ts): opens the store,
// warms up, reopens (so the parent can read the transaction counter without the warm-up), warms the
// reopened runtime a little and has its backends report their statistics, waits for "go", runs its
// share of approval round trips and reports over IPC.
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { openStore, type Store } from '../../src/core/store/index.ts';
import { createLedgerAgent, createLedgerModel, type LedgerRecorder } from '../../src/testing/index.ts';
import { flushBackendStatistics } from './backend-statistics.ts';
import { processCpuMs } from './cpu.ts';
import { drive } from './drive.ts';
import { ledgerRoundTrip } from './ledger-round-trip.ts';

export interface WorkerTask {
  readonly databaseUrl: string;
  readonly sqlitePath: string;
  readonly concurrency: number;
  readonly scenarios: number;
  readonly warmup: number;
  /** Distinguishes the users of each process so amounts and sessions never collide. */
  readonly worker: number;
  /** Before reporting ready, idle twice this long with the runtime open and measure its CPU in the second half (heartbeat, timers). Default 0. */
  readonly idleMs?: number;
  /** The runtime's heartbeat; the product's default (10 s) when absent. Replicas need a short one to find each other in a run of seconds. */
  readonly heartbeatMs?: number;
}

export interface WorkerReport {
  readonly samples: number[];
  readonly errors: string[];
  readonly completed: number;
  readonly elapsedMs: number;
  /** Transfers the ledger tool executed in the measured run. */
  readonly transfers: number;
  /** Transfers executed during the warm-up (they are in the database and the audit too). */
  readonly warmupTransfers: number;
  /** CPU milliseconds this process spent in the measured run. */
  readonly cpuMs: number;
  /** CPU milliseconds per second while idling (`WorkerTask.idleMs`), when measured. */
  readonly idleCpuMsPerSecond?: number;
}

async function open(task: WorkerTask, recorder: LedgerRecorder): Promise<{ store: Store; runtime: Runtime }> {
  const store = await openStore({ databaseUrl: task.databaseUrl, sqlitePath: task.sqlitePath, poolSize: 10 });
  const model = createLedgerModel();
  // Replicas learn of each other at their heartbeat (they share the commit slots); the parent waits one.
  const runtime = await createRuntime({
    store,
    agents: [createLedgerAgent(recorder)],
    model: () => model,
    ...(task.heartbeatMs === undefined ? {} : { heartbeatMs: task.heartbeatMs }),
  });
  return { store, runtime };
}

/** CPU per second of an idle runtime, measured after as long again to settle (the warm-up's GC and JIT work would count otherwise). */
async function idleCpuPerSecond(idleMs: number): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, idleMs));
  const cpuBefore = processCpuMs();
  await new Promise((resolve) => setTimeout(resolve, idleMs));
  return ((processCpuMs() - cpuBefore) * 1000) / idleMs;
}

async function main(task: WorkerTask): Promise<WorkerReport> {
  const warmRecorder: LedgerRecorder = { reads: 0, transfers: [] };
  const warm = await open(task, warmRecorder);
  await drive(task.warmup, task.concurrency, (i) => ledgerRoundTrip(warm.runtime, 1_000_000 + task.worker * 100_000 + i));
  await warm.runtime.close();
  await warm.store.close();

  const recorder: LedgerRecorder = { reads: 0, transfers: [] };
  const { store, runtime } = await open(task, recorder);
  // The measured runtime warms up too (its pool's connections, their prepared statements, the store's
  // compiled statement shapes): with few round trips per process, first-use costs were most of the
  // 8-process rows' CPU. Its own transfers count with the warm-up's.
  await drive(Math.max(10, task.concurrency), task.concurrency, (i) => ledgerRoundTrip(runtime, 2_000_000 + task.worker * 100_000 + i));
  const warmTransfers = recorder.transfers.length;
  const idleCpuMsPerSecond = task.idleMs ? await idleCpuPerSecond(task.idleMs) : undefined;
  await flushBackendStatistics(store);
  process.send?.({ type: 'ready' });
  await new Promise<void>((resolve) => process.once('message', () => resolve()));
  const cpuBefore = processCpuMs();
  const result = await drive(task.scenarios, task.concurrency, (i) => ledgerRoundTrip(runtime, 10_000_000 + task.worker * 1_000_000 + i));
  const cpuMs = processCpuMs() - cpuBefore;
  await runtime.close();
  await store.close();
  return {
    ...result,
    cpuMs,
    ...(idleCpuMsPerSecond === undefined ? {} : { idleCpuMsPerSecond }),
    transfers: recorder.transfers.length - warmTransfers,
    warmupTransfers: warmRecorder.transfers.length + warmTransfers,
  };
}

const task = JSON.parse(process.argv[2] ?? '{}') as WorkerTask;
const report = await main(task);
process.send?.({ type: 'report', report }, () => process.exit(0));
