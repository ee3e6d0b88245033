// Benchmark of the sandbox read/write paths: DbBridge over the MCP hop (in-memory, stdio) and over
// the in-process direct channel, against raw node:sqlite on the same file; and what the read budget
// costs (reads in a child process that can be killed) against the same channel without it.
// BENCH_QUICK=1 for a short run.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { directChannel } from '../src/agents/sandbox/bridge/channel.ts';
import { connectInMemory, connectStdio } from '../src/agents/sandbox/bridge/connect.ts';
import { DbBridge } from '../src/agents/sandbox/bridge/db-bridge.ts';
import { SqliteSandboxEngine } from '../src/agents/sandbox/engines/sqlite-engine.ts';

const quick = process.env.BENCH_QUICK === '1';
const iterations = { scan: quick ? 100 : 1000, point: quick ? 1000 : 10000, write: quick ? 100 : 500 };

const dir = mkdtempSync(join(tmpdir(), 'opsgate-bench-sandbox-'));
const path = join(dir, 'bench.db');
const seed = new DatabaseSync(path);
seed.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL NOT NULL, note TEXT)');
const insert = seed.prepare('INSERT INTO items (id, name, price, note) VALUES (?, ?, ?, ?)');
seed.exec('BEGIN');
for (let i = 1; i <= 10_000; i++) insert.run(i, `item ${i}`, i * 1.5, i % 3 ? null : `note ${i}`);
seed.exec('COMMIT');
seed.close();

const SCAN = 'SELECT id, name, price, note FROM items WHERE id <= 1000';
const POINT = 'SELECT id, name, price, note FROM items WHERE id = ?';

async function time(count: number, body: (i: number) => unknown): Promise<{ meanUs: number; p50Us: number; p99Us: number }> {
  for (let i = 0; i < Math.min(50, count); i++) await body(i);
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await body(i);
    samples.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  samples.sort((a, b) => a - b);
  const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
  return {
    meanUs: round(mean),
    p50Us: round(samples[Math.floor(samples.length * 0.5)]!),
    p99Us: round(samples[Math.floor(samples.length * 0.99)]!),
  };
}
const round = (value: number) => Math.round(value * 10) / 10;

interface Row {
  system: string;
  scan1000MeanUs: number;
  scan1000P99Us: number;
  pointMeanUs: number;
  pointP99Us: number;
  beginInsertCommitMeanUs?: number;
  scanVsRaw?: number;
  pointVsRaw?: number;
}
const results: Row[] = [];

// Raw node:sqlite, statements prepared once (the fastest a caller can be).
const raw = new DatabaseSync(path, { readOnly: true });
const rawScan = raw.prepare(SCAN);
const rawPoint = raw.prepare(POINT);
const rawScanTime = await time(iterations.scan, () => rawScan.all());
const rawPointTime = await time(iterations.point, (i) => rawPoint.get((i % 10_000) + 1));
const rawWriter = new DatabaseSync(path);
let nextId = 100_000;
const rawWrite = await time(iterations.write, () => {
  rawWriter.exec('BEGIN IMMEDIATE');
  rawWriter.prepare('INSERT INTO items (id, name, price) VALUES (?, ?, ?)').run(nextId++, 'w', 1);
  rawWriter.exec('COMMIT');
});
rawWriter.close();
raw.close();
results.push({
  system: 'raw node:sqlite',
  scan1000MeanUs: rawScanTime.meanUs,
  scan1000P99Us: rawScanTime.p99Us,
  pointMeanUs: rawPointTime.meanUs,
  pointP99Us: rawPointTime.p99Us,
  beginInsertCommitMeanUs: rawWrite.meanUs,
});

async function measure(system: string, bridge: DbBridge, withWrites: boolean): Promise<void> {
  const scan = await time(iterations.scan, () => bridge.query(SCAN));
  const point = await time(iterations.point, (i) => bridge.query(POINT, [(i % 10_000) + 1]));
  const row: Row = {
    system,
    scan1000MeanUs: scan.meanUs,
    scan1000P99Us: scan.p99Us,
    pointMeanUs: point.meanUs,
    pointP99Us: point.p99Us,
    scanVsRaw: round(scan.meanUs / rawScanTime.meanUs),
    pointVsRaw: round(point.meanUs / rawPointTime.meanUs),
  };
  if (withWrites) {
    const write = await time(iterations.write, async () => {
      const transaction = await bridge.beginTransaction();
      await transaction.execute('INSERT INTO items (id, name, price) VALUES (?, ?, ?)', [nextId++, 'w', 1]);
      await transaction.commit();
    });
    row.beginInsertCommitMeanUs = write.meanUs;
  }
  results.push(row);
}

// In-process sync read path (no promise, no tool routing): what the guard itself costs.
const engine = new SqliteSandboxEngine(path, { readBudget: false });
const guardScan = await time(iterations.scan, () => engine.querySync(SCAN));
const guardPoint = await time(iterations.point, (i) => engine.querySync(POINT, [(i % 10_000) + 1]));
results.push({
  system: 'guarded engine, sync (authorizer + read-only conn)',
  scan1000MeanUs: guardScan.meanUs,
  scan1000P99Us: guardScan.p99Us,
  pointMeanUs: guardPoint.meanUs,
  pointP99Us: guardPoint.p99Us,
  scanVsRaw: round(guardScan.meanUs / rawScanTime.meanUs),
  pointVsRaw: round(guardPoint.meanUs / rawPointTime.meanUs),
});
await measure(
  'DbBridge, in-process direct channel, no read budget',
  new DbBridge({ id: 'direct', channel: directChannel(engine) }, path),
  true,
);
const budgeted = new SqliteSandboxEngine(path);
await measure(
  'DbBridge, direct channel, read budget (10 s / 10,000 rows, child process)',
  new DbBridge({ id: 'budget', channel: directChannel(budgeted) }, path),
  false,
);
await budgeted.close();
const memory = await connectInMemory(new SqliteSandboxEngine(path));
await measure('DbBridge, MCP in-memory transport', new DbBridge({ id: 'memory', channel: memory.channel }, path), true);
await memory.close();
const stdio = await connectStdio(['--db', path]);
await measure('DbBridge, MCP stdio (opsgate mcp-server)', new DbBridge({ id: 'stdio', channel: stdio.channel }, path), true);
await stdio.close();
await engine.close();
rmSync(dir, { recursive: true, force: true });

console.table(results);
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/sandbox.json', `${JSON.stringify({ quick, iterations, results }, null, 2)}\n`);
console.log('written to bench/results/sandbox.json');
