// The human-in-the-loop round trip: one user message → read-only call → mutable call → pause
// persisted → fresh resume with approval → execution → final answer. Mock model, tools without
// I/O, a SQLite file store in WAL mode. opsgate against the AI SDK's own approval round trip.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { generateText, type ModelMessage, tool } from 'ai';
import { z } from 'zod';
import { createRuntime } from '../src/core/runtime/index.ts';
import { openStore } from '../src/core/store/index.ts';
import { createLedgerAgent, createLedgerModel } from '../src/testing/index.ts';
import { type BenchRow, printTable, summarise, writeResults } from './bench-report.ts';
import { goal } from './load/goals.ts';
import { createOpenAiAgentsScenario } from './openai-agents-anchor.ts';

const quick = process.env.BENCH_QUICK === '1';
const warmup = quick ? 50 : 200;
const iterations = quick ? 300 : 2000;
const alice = { userId: 1, username: 'alice', roles: ['user'] };

async function measure(system: string, scenario: () => Promise<void>): Promise<BenchRow> {
  for (let i = 0; i < warmup; i += 1) await scenario();
  const samples: number[] = [];
  let peakRss = process.memoryUsage().rss;
  // CPU of the main thread per round trip: steadier than rates on a shared machine, and without the
  // time spent blocked (fsyncs) or in worker threads (SQLite checkpoints), which the rate includes.
  const cpuBefore = process.threadCpuUsage();
  const started = performance.now();
  for (let i = 0; i < iterations; i += 1) {
    const t0 = performance.now();
    await scenario();
    samples.push(performance.now() - t0);
    if (i % 100 === 0) peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.threadCpuUsage(cpuBefore);
  const stats = summarise(samples);
  return {
    system,
    turns_per_s: Math.round(iterations / elapsed),
    p50_ms: stats.p50,
    p99_ms: stats.p99,
    main_thread_cpu_ms: Number(((cpu.user + cpu.system) / 1000 / iterations).toFixed(3)),
    peak_rss_mb: Math.round(peakRss / 1048576),
    iterations,
  };
}

async function opsgateScenario(dir: string): Promise<BenchRow> {
  const store = await openStore({ sqlitePath: join(dir, 'opsgate.db'), databaseUrl: '' });
  const recorder = { reads: 0, transfers: [] as unknown[] };
  const model = createLedgerModel();
  const runtime = await createRuntime({ store, agents: [createLedgerAgent(recorder as never)], model: () => model });
  let count = 0;
  const row = await measure('opsgate', async () => {
    const session = await runtime.startSession({ agent: 'ledger', identity: alice });
    const paused = await runtime.send(session.id, 'pay bob 30', alice);
    if (paused.status !== 'waiting' || !paused.interrupt) throw new Error('expected a pause');
    const done = await runtime.decide(session.id, { type: 'approve', callId: paused.interrupt.callId }, alice);
    if (done.status !== 'completed') throw new Error('expected a final answer');
    count += 1;
  });
  if (recorder.transfers.length !== count + warmup - warmup && recorder.transfers.length < iterations) throw new Error('transfers missing');
  await store.close();
  return row;
}

async function aiSdkScenario(dir: string): Promise<BenchRow> {
  const db = new DatabaseSync(join(dir, 'ai-sdk.db'));
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; CREATE TABLE paused (id INTEGER PRIMARY KEY, messages TEXT NOT NULL)');
  const save = db.prepare('INSERT INTO paused (messages) VALUES (?)');
  const load = db.prepare('SELECT messages FROM paused WHERE id = ?');
  const model = createLedgerModel();
  const tools = {
    read_balance: tool({ description: 'Read the current balance.', inputSchema: z.object({}), execute: async () => ({ balance: 100 }) }),
    transfer: tool({
      description: 'Transfer an amount.',
      inputSchema: z.object({ to: z.string(), amount: z.number() }),
      needsApproval: true,
      execute: async (input) => ({ ok: true, transferred: input.amount, to: input.to }),
    }),
  };
  const row = await measure('ai-sdk generateText + toolApproval', async () => {
    const messages: ModelMessage[] = [{ role: 'user', content: 'pay bob 30' }];
    const first = await generateText({ model, tools, messages, stopWhen: () => false });
    const approval = first.content.find((part) => part.type === 'tool-approval-request');
    if (!approval) throw new Error('expected an approval request');
    const id = Number(save.run(JSON.stringify([...messages, ...first.response.messages])).lastInsertRowid);
    const restored = JSON.parse(String((load.get(id) as { messages: string }).messages)) as ModelMessage[];
    restored.push({ role: 'tool', content: [{ type: 'tool-approval-response', approvalId: approval.approvalId, approved: true }] });
    const second = await generateText({ model, tools, messages: restored, stopWhen: () => false });
    if (!second.text.startsWith('Done')) throw new Error(`unexpected final answer: ${second.text}`);
  });
  db.close();
  return row;
}

async function openAiAgentsScenario(dir: string): Promise<BenchRow | undefined> {
  const db = new DatabaseSync(join(dir, 'openai-agents.db'));
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL');
  db.exec('CREATE TABLE IF NOT EXISTS agents_state (id INTEGER PRIMARY KEY, state TEXT NOT NULL)');
  const save = db.prepare('INSERT INTO agents_state (state) VALUES (?)');
  const load = db.prepare('SELECT state FROM agents_state WHERE id = ?');
  const rows = {
    save: (state: string) => Number(save.run(state).lastInsertRowid),
    load: (id: number) => String((load.get(id) as { state: string }).state),
  };
  try {
    return await measure('openai-agents needsApproval + RunState', createOpenAiAgentsScenario(rows));
  } catch (error) {
    console.error(`openai-agents anchor skipped: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  } finally {
    db.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'opsgate-bench-'));
try {
  const results: BenchRow[] = [];
  results.push(await aiSdkScenario(dir));
  results.push(await opsgateScenario(dir));
  const agentsRow = await openAiAgentsScenario(dir);
  if (agentsRow) results.push(agentsRow);
  const anchor = results[0]!;
  const ours = results[1]!;
  ours.vs_ai_sdk = Number(((ours.turns_per_s as number) / (anchor.turns_per_s as number)).toFixed(2));
  ours.cpu_vs_ai_sdk = Number(((anchor.main_thread_cpu_ms as number) / (ours.main_thread_cpu_ms as number)).toFixed(2));
  printTable('hitl-roundtrip', results);
  const goals = [goal('opsgate / AI SDK, one round trip at a time (SQLite)', Number(ours.vs_ai_sdk), 0.7, true)];
  printTable('goal (issue 32), from the rows above', goals);
  writeResults('hitl-roundtrip', results, { goals });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
