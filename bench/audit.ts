// `npm run bench:audit`: what the audit's anchors cost. On SQLite and PostgreSQL (fsync on):
// journaling events the way a turn does (5 events per unit of work, one transaction each), the
// sealer chaining them (events/s), and `AuditLog.verify` walking a chain of 100,000 events
// (20,000 with BENCH_QUICK=1). Wall-clock rates and this process's CPU time (what the work costs
// when other processes share the machine). Run it on a commit before the anchors for "before".
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { AuditLog } from '../src/core/audit/index.ts';
import { openStore, type Store, UnitOfWork } from '../src/core/store/index.ts';
import { startPostgresCluster } from '../src/testing/postgres-cluster.ts';
import { type BenchRow, printTable, writeResults } from './bench-report.ts';

const quick = process.env.BENCH_QUICK === '1';
const CHAIN = quick ? 20_000 : 100_000;
const JOURNALED = quick ? 5_000 : 20_000;
const EVENTS_PER_UNIT = 5;
const rows: BenchRow[] = [];

/** A realistic event: a tool call's approval with its arguments. */
function event(i: number) {
  return {
    sessionId: `session-${i % 97}`,
    type: 'tool_approved',
    actor: 'user:alice',
    payload: {
      callId: `call-${i}`,
      tool: 'grant_access_to_user',
      argsHash: 'a'.repeat(64),
      approver: 'alice',
      args: { username: 'john_doe', access_name: 'READ_DOCUMENTS' },
    },
  };
}

async function journal(store: Store, audit: AuditLog, count: number, offset: number, perUnit = EVENTS_PER_UNIT): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i += perUnit) {
    const uow = new UnitOfWork();
    for (let j = 0; j < perUnit; j += 1) audit.record(uow, event(offset + i + j));
    await uow.commit(store);
  }
  return performance.now() - started;
}

/** This process's CPU time since `start` (user + system): what the work costs on a shared machine. */
function cpuMs(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

async function measure(system: string, store: Store): Promise<void> {
  // A long seal delay: the bench, not the timer, decides when the sealer runs.
  const audit = new AuditLog(store, undefined, { sealDelayMs: 3_600_000 });
  // Fill the chain in slices so the journal never holds more than one slice.
  const slice = 10_000;
  for (let done = 0; done < CHAIN - JOURNALED; done += slice) {
    await journal(store, audit, Math.min(slice, CHAIN - JOURNALED - done), done, 500);
    await audit.seal();
  }
  const journalCpu = process.cpuUsage();
  const journalMs = await journal(store, audit, JOURNALED, CHAIN - JOURNALED);
  const journalCpuMs = cpuMs(journalCpu);
  const sealCpu = process.cpuUsage();
  const sealStarted = performance.now();
  const sealed = await audit.seal();
  const sealMs = performance.now() - sealStarted;
  const sealCpuMs = cpuMs(sealCpu);
  const verifyCpu = process.cpuUsage();
  const verifyStarted = performance.now();
  const verdict = await audit.verify();
  const verifyMs = performance.now() - verifyStarted;
  const verifyCpuMs = cpuMs(verifyCpu);
  if (!verdict.ok || verdict.checked !== CHAIN) throw new Error(`verify failed: ${JSON.stringify(verdict)}`);
  rows.push({
    system,
    chain_events: CHAIN,
    journal_events_per_s: Math.round((JOURNALED / journalMs) * 1000),
    journal_cpu_us_per_event: Math.round((journalCpuMs / JOURNALED) * 1000),
    seal_events_per_s: Math.round((sealed / sealMs) * 1000),
    seal_cpu_us_per_event: Math.round((sealCpuMs / sealed) * 1000),
    verify_ms: Math.round(verifyMs),
    verify_cpu_ms: Math.round(verifyCpuMs),
  });
  await audit.close();
}

const scratch = mkdtempSync(join(tmpdir(), 'opsgate-bench-audit-'));
const cluster = startPostgresCluster({ fsync: true });
try {
  const sqlite = await openStore({ sqlitePath: join(scratch, 'opsgate.db'), dataDir: scratch, databaseUrl: '' });
  try {
    await measure('sqlite', sqlite);
  } finally {
    await sqlite.close();
  }
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query('CREATE DATABASE bench_audit');
  await admin.end();
  const url = new URL(cluster.url);
  url.pathname = '/bench_audit';
  const postgres = await openStore({ databaseUrl: url.toString(), dataDir: scratch, poolSize: 4 });
  try {
    await measure('postgres (fsync on)', postgres);
  } finally {
    await postgres.close();
  }
} finally {
  cluster.dispose();
  rmSync(scratch, { recursive: true, force: true });
}
printTable(`audit: journal, seal and verify (${CHAIN} events)`, rows);
writeResults('audit', rows);
