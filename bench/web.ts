// The web server under load, offline interpreter, SQLite file store, real HTTP and WebSocket on
// loopback: (1) time from POST message to the first event on the socket and to the approval
// request; (2) N concurrent sessions each driving access flow 1 (half of them drop and resume
// their socket mid-flow), checking that every client saw every stored event exactly once;
// (3) the built UI's JavaScript, gzipped, without and with the lazily loaded terminal.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import WebSocket from 'ws';
import { CatalogRepository } from '../src/agents/access/service/index.ts';
import { UserRepository } from '../src/core/identity/users.ts';
import type { SessionEvent } from '../src/core/runtime/types.ts';
import { startWebServer } from '../test/web/web-harness.ts';
import { type BenchRow, printTable, summarise, writeResults } from './bench-report.ts';

const quick = process.env.BENCH_QUICK === '1';
const LATENCY_RUNS = quick ? 15 : 60;
const CONCURRENT = quick ? 40 : 200;
const root = join(import.meta.dirname, '..');

spawnSync('bash', [join(root, 'scripts', 'build-web.sh')], { stdio: 'inherit' });
const server = await startWebServer();
const base = server.url;
const wsBase = base.replace('http', 'ws');
const users = new UserRepository(server.store);
const catalog = new CatalogRepository(server.store);

async function makeUser(name: string): Promise<string> {
  await users.create({ username: name, roles: ['user'] });
  await catalog.createUser(name, new Date());
  return (await users.createToken(name, 'bench')).token;
}

async function http<T>(token: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const data = (await response.json()) as T;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(data)}`);
  return data;
}

/** A session socket that records every event it is given. */
class Watcher {
  readonly events: SessionEvent[] = [];
  #socket: WebSocket | undefined;
  #listeners: Array<(event: SessionEvent) => void> = [];
  readonly #token: string;
  readonly #sessionId: string;
  constructor(token: string, sessionId: string) {
    this.#token = token;
    this.#sessionId = sessionId;
  }
  connect(): Promise<void> {
    const after = this.events.at(-1)?.seq ?? 0;
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`${wsBase}/api/sessions/${this.#sessionId}/socket?after=${after}`, {
        headers: { authorization: `Bearer ${this.#token}` },
      });
      this.#socket = socket;
      socket.on('message', (data) => {
        const frame = JSON.parse(data.toString()) as { type: string; event?: SessionEvent };
        if (frame.type === 'ready') resolve();
        if (frame.type === 'event' && frame.event) {
          this.events.push(frame.event);
          for (const listener of this.#listeners) listener(frame.event);
        }
      });
      socket.on('error', reject);
    });
  }
  until(predicate: (event: SessionEvent) => boolean): Promise<SessionEvent> {
    const seen = this.events.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const listener = (event: SessionEvent) => {
        if (!predicate(event)) return;
        this.#listeners = this.#listeners.filter((l) => l !== listener);
        resolve(event);
      };
      this.#listeners.push(listener);
    });
  }
  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.#socket || this.#socket.readyState === WebSocket.CLOSED) return resolve();
      this.#socket.once('close', () => resolve());
      this.#socket.close();
    });
  }
}

const isApproval = (event: SessionEvent) => event.type === 'interrupt' && (event.data as { type?: string }).type === 'approval';
const isGranted = (event: SessionEvent) =>
  event.type === 'message' && String((event.data as { text?: string }).text).includes("I've granted you");

/** One flow 1 run: message, approval request, approve, answer. */
async function flowOne(token: string, options: { reconnect: boolean; timings?: { first: number[]; approval: number[] } }) {
  const session = await http<{ id: string }>(token, 'POST', '/api/sessions', { agent: 'access' });
  const watcher = new Watcher(token, session.id);
  await watcher.connect();
  // Only events caused by this message count (the backlog may hold the session's start).
  const baseline = watcher.events.at(-1)?.seq ?? 0;
  const started = performance.now();
  const firstEvent = watcher.until((event) => event.seq > baseline).then(() => performance.now() - started);
  const approvalEvent = watcher.until(isApproval);
  const sent = http(token, 'POST', `/api/sessions/${session.id}/messages`, { text: 'I need access to read documents' });
  const first = await firstEvent;
  const approval = await approvalEvent;
  const approvalMs = performance.now() - started;
  await sent;
  options.timings?.first.push(first);
  options.timings?.approval.push(approvalMs);
  if (options.reconnect) {
    await watcher.close();
    await watcher.connect();
  }
  const callId = (approval.data as { callId: string }).callId;
  await http(token, 'POST', `/api/sessions/${session.id}/decisions`, { type: 'approve', callId });
  await watcher.until(isGranted);
  await new Promise((r) => setTimeout(r, 20));
  await watcher.close();
  const stored = await server.runtime.events.since(session.id, 0);
  const seen = watcher.events.map((e) => e.seq);
  const storedSeqs = new Set(stored.map((e) => e.seq));
  return {
    lost: stored.filter((e) => !seen.includes(e.seq)).length,
    duplicated: seen.length - new Set(seen).size,
    foreign: seen.filter((s) => !storedSeqs.has(s)).length,
    events: seen.length,
  };
}

const rows: BenchRow[] = [];

// (1) Latency, one session at a time.
const timings = { first: [] as number[], approval: [] as number[] };
for (let i = 0; i < LATENCY_RUNS; i += 1) {
  await flowOne(await makeUser(`lat${i}`), { reconnect: false, timings });
}
const first = summarise(timings.first);
const approval = summarise(timings.approval);
rows.push({
  system: 'opsgate web: POST message → first socket event',
  runs: LATENCY_RUNS,
  p50_ms: first.p50,
  p99_ms: first.p99,
  mean_ms: first.mean,
});
rows.push({
  system: 'opsgate web: POST message → approval request on socket',
  runs: LATENCY_RUNS,
  p50_ms: approval.p50,
  p99_ms: approval.p99,
  mean_ms: approval.mean,
});

// (2) Concurrency.
const tokens = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => makeUser(`con${i}`)));
const wall = performance.now();
const outcomes = await Promise.all(tokens.map((token, i) => flowOne(token, { reconnect: i % 2 === 0 })));
const wallMs = performance.now() - wall;
const lost = outcomes.reduce((n, o) => n + o.lost, 0);
const duplicated = outcomes.reduce((n, o) => n + o.duplicated + o.foreign, 0);
rows.push({
  system: `opsgate web: ${CONCURRENT} concurrent flow-1 sessions (half reconnect mid-flow)`,
  sessions: CONCURRENT,
  events: outcomes.reduce((n, o) => n + o.events, 0),
  lost,
  duplicated,
  wall_s: Math.round(wallMs) / 1000,
  sessions_per_s: Math.round((CONCURRENT / wallMs) * 1000 * 10) / 10,
});

// (3) Bundle size.
const assets = join(root, 'src', 'web', 'dist', 'assets');
const gz = (file: string) => gzipSync(readFileSync(join(assets, file))).length;
const js = readdirSync(assets).filter((f) => f.endsWith('.js'));
const terminalJs = js.filter((f) => f.startsWith('xterm-terminal'));
const appJs = js.filter((f) => !terminalJs.includes(f));
const kb = (bytes: number) => Math.round(bytes / 102.4) / 10;
rows.push({
  system: 'opsgate web UI JavaScript (gzip)',
  app_kb: kb(appJs.reduce((n, f) => n + gz(f), 0)),
  terminal_lazy_kb: kb(terminalJs.reduce((n, f) => n + gz(f), 0)),
  budget_kb: 300,
});

await server.close();
printTable('web server and UI', rows);
writeResults('web', rows);
if (lost > 0 || duplicated > 0) {
  console.error(`FAILED: ${lost} events lost, ${duplicated} duplicated`);
  process.exitCode = 1;
}
