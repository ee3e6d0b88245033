// Benchmark of the sandbox's PostgreSQL read path (issue 35) on a throwaway cluster, as the
// application's non-superuser role: what parsing, the catalog check, the cursor and the reset
// (ROLLBACK + DISCARD ALL) cost against a raw pooled query of the same statement. Reports wall time,
// the Node process's CPU per read (less skewed by a busy machine than wall time) and the round
// trips per read, counted. BENCH_QUICK=1 for a short run.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PostgresSandboxEngine } from '../src/agents/sandbox/engines/postgres-engine.ts';
import { startPostgresCluster } from '../src/testing/postgres-cluster.ts';
import { type BenchRow, printTable, summarise, writeResults } from './bench-report.ts';

const quick = process.env.BENCH_QUICK === '1';
const reads = quick ? 200 : 2_000;

const POINT = 'SELECT id, name, price, note FROM items WHERE id = $1';
const SCAN = 'SELECT id, name, price, note FROM items WHERE id <= 1000';
const CATALOG = "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'items' ORDER BY ordinal_position";

const cluster = startPostgresCluster();
const role = `bench_${randomBytes(3).toString('hex')}`;
const admin = new pg.Client({ connectionString: cluster.url });
await admin.connect();
await admin.query(`CREATE ROLE ${role} LOGIN`);
await admin.query(`CREATE DATABASE ${role} OWNER ${role}`);
await admin.end();
const url = new URL(cluster.url);
url.pathname = `/${role}`;
url.username = role;
const owner = new pg.Client({ connectionString: url.toString() });
await owner.connect();
await owner.query('CREATE TABLE items (id integer PRIMARY KEY, name text NOT NULL, price numeric NOT NULL, note text)');
await owner.query(
  "INSERT INTO items SELECT i, 'item ' || i, i * 1.5, CASE WHEN i % 3 = 0 THEN 'note ' || i END FROM generate_series(1, 10000) AS i",
);
await owner.end();

/** Every query a pg client sends in this process is one round trip; counted per read. */
let roundTrips = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
  roundTrips += 1;
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

async function measure(system: string, count: number, read: (i: number) => Promise<unknown>): Promise<BenchRow> {
  for (let i = 0; i < Math.min(50, count); i++) await read(i);
  const samples: number[] = [];
  roundTrips = 0;
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await read(i);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const cpu = process.cpuUsage(cpuBefore);
  const { p50, p99, mean } = summarise(samples);
  return {
    system,
    reads: count,
    p50Ms: p50,
    p99Ms: p99,
    meanMs: mean,
    nodeCpuMsPerRead: Math.round(((cpu.user + cpu.system) / 1000 / count) * 1000) / 1000,
    roundTripsPerRead: Math.round((roundTrips / count) * 10) / 10,
  };
}

const rows: BenchRow[] = [];
const raw = new pg.Pool({ connectionString: url.toString(), max: 4 });
const engine = await PostgresSandboxEngine.connect(url.toString());
try {
  rows.push(await measure('raw pg pool, point read', reads, (i) => raw.query(POINT, [(i % 10_000) + 1])));
  rows.push(await measure('sandbox read path, point read', reads, (i) => engine.query(POINT, [(i % 10_000) + 1])));
  rows.push(await measure('raw pg pool, 1,000-row scan', reads / 10, () => raw.query(SCAN)));
  rows.push(await measure('sandbox read path, 1,000-row scan', reads / 10, () => engine.query(SCAN)));
  rows.push(await measure('raw pg pool, information_schema read', reads / 10, () => raw.query(CATALOG)));
  rows.push(await measure('sandbox read path, information_schema read', reads / 10, () => engine.query(CATALOG)));
} finally {
  await engine.close();
  await raw.end();
  cluster.dispose();
}

printTable('sandbox PostgreSQL read path (throwaway cluster, fsync off, non-superuser owner role)', rows);
writeResults('sandboxpg', rows, { note: 'taken on a shared, loaded machine unless said otherwise' });
