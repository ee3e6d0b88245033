// Two trees of opsgate side by side on `bench:hitl-roundtrip`'s round trip (start → message → pause →
// approve → answer, mock model, a SQLite file each): main-thread CPU per round trip, both trees in one
// process, in alternating blocks. On a shared machine the rate of one run against another is noise;
// the same minutes, the same process and CPU rather than time make a few per cent visible (issue 32).
//
//   npm run bench:hitl-ab -- <commit A> [<commit B>]   (B defaults to this checkout, uncommitted changes included)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BenchRow, printTable, writeResults } from './bench-report.ts';

const quick = process.env.BENCH_QUICK === '1';
/** Blocks per tree, alternating which tree goes first; round trips per block; warm-up round trips per tree. */
const blocks = quick ? 4 : 16;
const perBlock = 300;
const warmup = 200;
const checkout = resolve(import.meta.dirname, '..');

interface Tree {
  readonly label: string;
  readonly root: string;
  readonly cleanup: () => void;
}

/** A commit unpacked into a temporary directory that shares this checkout's node_modules; '.' is this checkout. */
function treeOf(ref: string): Tree {
  if (ref === '.')
    return {
      label: `. (${execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).trim()} + changes)`,
      root: checkout,
      cleanup: () => {},
    };
  let commit: string;
  try {
    commit = execFileSync('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: checkout, encoding: 'utf8' }).trim();
  } catch {
    console.error(`bench:hitl-ab: "${ref}" names no commit here; give a commit, branch or tag (git log --oneline shows them).`);
    process.exit(2);
  }
  const root = mkdtempSync(join(tmpdir(), 'opsgate-ab-'));
  const archive = execFileSync('git', ['archive', commit], { cwd: checkout, maxBuffer: 512 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', root], { input: archive });
  symlinkSync(join(checkout, 'node_modules'), join(root, 'node_modules'));
  return { label: `${ref} (${commit.slice(0, 12)})`, root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

interface Runner {
  readonly tree: Tree;
  readonly roundTrip: () => Promise<void>;
  readonly close: () => Promise<void>;
  cpuMicros: number;
  roundTrips: number;
}

/** Opens a store and a runtime from the tree's own modules (each tree's code, not this checkout's). */
async function runnerOf(tree: Tree): Promise<Runner> {
  const runtimeModule = await import(join(tree.root, 'src/core/runtime/index.ts'));
  const storeModule = await import(join(tree.root, 'src/core/store/index.ts'));
  const testing = await import(join(tree.root, 'src/testing/index.ts'));
  const dir = mkdtempSync(join(tmpdir(), 'opsgate-ab-store-'));
  const store = await storeModule.openStore({ sqlitePath: join(dir, 'opsgate.db'), databaseUrl: '' });
  const model = testing.createLedgerModel();
  const runtime = await runtimeModule.createRuntime({
    store,
    agents: [testing.createLedgerAgent({ reads: 0, transfers: [] })],
    model: () => model,
  });
  const alice = { userId: 1, username: 'alice', roles: ['user'] };
  return {
    tree,
    cpuMicros: 0,
    roundTrips: 0,
    roundTrip: async () => {
      const session = await runtime.startSession({ agent: 'ledger', identity: alice });
      const paused = await runtime.send(session.id, 'pay bob 30', alice);
      if (paused.status !== 'waiting' || !paused.interrupt) throw new Error(`${tree.label}: expected a pause`);
      const done = await runtime.decide(session.id, { type: 'approve', callId: paused.interrupt.callId }, alice);
      if (done.status !== 'completed') throw new Error(`${tree.label}: expected a final answer`);
    },
    close: async () => {
      await runtime.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const [refA, refB = '.', ...extra] = process.argv.slice(2);
if (!refA || extra.length > 0 || refA === '--help' || refA === '-h') {
  console.error(
    'usage: npm run bench:hitl-ab -- <commit A> [<commit B>]   (B defaults to this checkout; BENCH_QUICK=1 for 4 blocks instead of 16)',
  );
  process.exit(refA === '--help' || refA === '-h' ? 0 : 2);
}
const trees = [treeOf(refA), treeOf(refB)];
try {
  const runners = [await runnerOf(trees[0]!), await runnerOf(trees[1]!)];
  for (const runner of runners) for (let i = 0; i < warmup; i += 1) await runner.roundTrip();
  for (let block = 0; block < blocks; block += 1) {
    for (const runner of block % 2 === 0 ? runners : [...runners].reverse()) {
      const before = process.threadCpuUsage();
      for (let i = 0; i < perBlock; i += 1) await runner.roundTrip();
      const used = process.threadCpuUsage(before);
      runner.cpuMicros += used.user + used.system;
      runner.roundTrips += perBlock;
    }
  }
  for (const runner of runners) await runner.close();
  const cpuOf = (runner: Runner) => runner.cpuMicros / runner.roundTrips / 1000;
  const [a, b] = runners as [Runner, Runner];
  const rows: BenchRow[] = runners.map((runner) => ({
    system: runner.tree.label,
    main_thread_cpu_ms: Number(cpuOf(runner).toFixed(3)),
    round_trips: runner.roundTrips,
    vs_a: Number((cpuOf(runner) / cpuOf(a)).toFixed(3)),
  }));
  printTable(`hitl-ab: main-thread CPU per round trip, ${blocks} alternating blocks of ${perBlock} after ${warmup} warm-up`, rows);
  console.log(`\nB uses ${((1 - cpuOf(b) / cpuOf(a)) * 100).toFixed(1)} % less CPU per round trip than A (negative: more).`);
  writeResults('hitl-ab', rows, { blocks, perBlock, warmup });
} finally {
  for (const tree of trees) tree.cleanup();
}
