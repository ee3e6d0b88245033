// The access-catalog service under load on loopback: SQLite store, 1,000 users × 50 accesses.
// The service runs in a child process (its own event loop and core); autocannon drives it from here.
// Goal: ≥ 10,000 reads/s with p99 ≤ 10 ms; grants p99 ≤ 20 ms. `BENCH_QUICK=1` finishes within a minute.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import pino from 'pino';
import { accessCatalogMigration, createAccessService } from '../src/agents/access/service/index.ts';
import type { AccessDatabase } from '../src/agents/access/service/schema.ts';
import { openStore } from '../src/core/store/index.ts';

/** The part of autocannon's API used here (the package ships no types). */
interface LoadRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: LoadRequest) => LoadRequest;
}
interface LoadOptions {
  url: string;
  connections?: number;
  duration?: number;
  amount?: number;
  headers?: Record<string, string>;
  requests?: LoadRequest[];
}
interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: LoadOptions) => Promise<LoadResult>;

const USERS = 1000;
const ACCESSES = 50;
const HELD_PER_USER = 5;
const ADMIN_KEY = 'bench-admin-key-0123456789abcdef';
const quick = process.env.BENCH_QUICK === '1';
const duration = quick ? 4 : 10;
const connections = 10;

/** Child mode: serve the catalog in `dir` and print the URL. */
async function serve(dir: string): Promise<void> {
  const store = await openStore({ sqlitePath: join(dir, 'opsgate.db'), databaseUrl: '', migrations: [accessCatalogMigration] });
  const catalogCacheMs = Number(process.env.BENCH_CATALOG_CACHE_MS ?? 1000);
  const app = createAccessService({ store, adminKey: ADMIN_KEY, logger: pino({ level: 'silent' }), catalogCacheMs });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(`URL ${url}\n`);
  process.on('SIGTERM', async () => {
    await app.close();
    await store.close();
    process.exit(0);
  });
}

async function seed(dir: string): Promise<void> {
  const store = await openStore({ sqlitePath: join(dir, 'opsgate.db'), databaseUrl: '', migrations: [accessCatalogMigration] });
  const db = store.db as unknown as Kysely<AccessDatabase>;
  const now = '2026-02-11T10:30:00Z';
  await db.transaction().execute(async (trx) => {
    for (let a = 1; a <= ACCESSES; a += 1) {
      await trx
        .insertInto('accesses')
        .values({
          name: `ACCESS_${String(a).padStart(2, '0')}`,
          description: `Benchmark access number ${a}`,
          renewal_period: a % 3 === 0 ? 90 : null,
          teams: JSON.stringify(a % 2 === 0 ? ['engineering'] : ['support']),
          created_at: now,
        })
        .execute();
    }
    for (let u = 1; u <= USERS; u += 1)
      await trx
        .insertInto('access_users')
        .values({ username: `user_${u}`, created_at: now })
        .execute();
    for (let u = 1; u <= USERS; u += 1) {
      for (let h = 1; h <= HELD_PER_USER; h += 1) {
        await trx
          .insertInto('user_accesses')
          .values({
            user_id: u,
            access_id: h,
            assigned_at: now,
            expires_at: h % 3 === 0 ? '2099-01-01T00:00:00Z' : null,
            reason: null,
            revoked_at: null,
          })
          .execute();
      }
    }
  });
  await store.close();
}

function startServer(dir: string, catalogCacheMs = 1000): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [import.meta.filename, 'serve', dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, BENCH_CATALOG_CACHE_MS: String(catalogCacheMs) },
    });
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const match = /URL (\S+)/.exec(out);
      if (match) resolve({ child, url: match[1]! });
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
}

interface Row {
  system: string;
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  non_2xx: number;
  requests: number;
  goal: string;
  meets_goal: boolean;
}

async function load(
  system: string,
  options: Omit<LoadOptions, 'connections' | 'duration'>,
  goal: { rps?: number; p99: number },
): Promise<Row> {
  const result = await autocannon({ connections, duration, ...options });
  const rps = Math.round(result.requests.average);
  const p99 = result.latency.p99;
  const row: Row = {
    system,
    requests_per_s: rps,
    p50_ms: result.latency.p50,
    p99_ms: p99,
    errors: result.errors + result.timeouts,
    non_2xx: result.non2xx,
    requests: result.requests.total,
    goal: `${goal.rps ? `≥ ${goal.rps} req/s, ` : ''}p99 ≤ ${goal.p99} ms`,
    meets_goal: (goal.rps === undefined || rps >= goal.rps) && p99 <= goal.p99 && result.non2xx === 0 && result.errors === 0,
  };
  return row;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'opsgate-bench-access-'));
  await seed(dir);
  const { child, url } = await startServer(dir);
  const rows: Row[] = [];
  try {
    // Warm up the JIT and the statement cache.
    await autocannon({ url: `${url}/users/1/accesses`, headers: { 'x-username': 'user_1' }, connections, duration: 1 });

    let reader = 0;
    rows.push(
      await load(
        'GET /users/{id}/accesses',
        {
          url,
          requests: [
            {
              method: 'GET',
              setupRequest: (request) => {
                const id = (reader++ % USERS) + 1;
                return { ...request, path: `/users/${id}/accesses`, headers: { 'x-username': `user_${id}` } };
              },
            },
          ],
        },
        { rps: 10_000, p99: 10 },
      ),
    );
    rows.push(
      await load(
        'GET /admin/accesses?limit=100 (1 s catalog cache)',
        { url: `${url}/admin/accesses?limit=100&offset=0`, headers: { 'x-admin-key': ADMIN_KEY } },
        { rps: 10_000, p99: 10 },
      ),
    );
    const uncached = await startServer(dir, 0);
    try {
      rows.push(
        await load(
          'GET /admin/accesses?limit=100 (no cache)',
          { url: `${uncached.url}/admin/accesses?limit=100&offset=0`, headers: { 'x-admin-key': ADMIN_KEY } },
          { rps: 10_000, p99: 10 },
        ),
      );
    } finally {
      uncached.child.kill('SIGTERM');
    }
    // Each grant is a new (user, access) pair that the user does not hold yet: 1,000 × 45 of them.
    let granted = 0;
    const free = USERS * (ACCESSES - HELD_PER_USER);
    rows.push(
      await load(
        'POST /users/{id}/accesses (grant)',
        {
          url,
          amount: free,
          requests: [
            {
              method: 'POST',
              setupRequest: (request) => {
                const n = granted++;
                const user = (n % USERS) + 1;
                const access = HELD_PER_USER + 1 + Math.floor(n / USERS);
                return {
                  ...request,
                  path: `/users/${user}/accesses`,
                  headers: { 'x-username': `user_${user}`, 'content-type': 'application/json' },
                  body: JSON.stringify({ access_name: `ACCESS_${String(access).padStart(2, '0')}` }),
                };
              },
            },
          ],
        },
        { p99: 20 },
      ),
    );
  } finally {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }

  const load1 = loadavg()[0]!.toFixed(1);
  console.log(
    `access-service on loopback, SQLite, ${USERS} users × ${ACCESSES} accesses, ${connections} connections, ${duration} s each (load average ${load1})`,
  );
  console.table(
    rows.map((r) => ({
      system: r.system,
      'req/s': r.requests_per_s,
      'p50 ms': r.p50_ms,
      'p99 ms': r.p99_ms,
      errors: r.errors,
      'non-2xx': r.non_2xx,
      goal: r.goal,
      met: r.meets_goal,
    })),
  );
  const resultsDir = join(import.meta.dirname, 'results');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(
    join(resultsDir, 'access-service.json'),
    `${JSON.stringify({ results: rows, quick, load_average_1m: Number(load1), users: USERS, accesses: ACCESSES, connections, duration_s: duration }, null, 2)}\n`,
  );
}

if (process.argv[2] === 'serve') await serve(process.argv[3]!);
else await main();
