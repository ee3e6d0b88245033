/**
 * Both safety validators after issue 14.
 *
 * 1. Command validator: every corpus line (dangerous, legitimate, the bypass classes and former
 *    false positives, Linux and Windows) validated many times; commands/s and per-call p50/p99.
 *    Goal: ≥ 5,000 commands/s.
 * 2. SQL read-path guard: every line of the SQL corpus (disguised writes and scary reads) compiled
 *    under the read authorizer with the statement-kind check, on a read-only connection, without the
 *    statement cache (what a new statement costs); statements/s and per-call p50/p99.
 *
 * BENCH_QUICK=1 runs fewer rounds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { ensureDemoDatabase } from '../src/agents/sandbox/demo/index.ts';
import { DISGUISED_WRITES, SCARY_READS } from '../src/agents/sandbox/engines/sql-corpus.ts';
import { SqlAuthorizer } from '../src/agents/sandbox/engines/sql-guard.ts';
import { DANGEROUS_COMMANDS, LEGITIMATE_COMMANDS } from '../src/agents/troubleshoot/validator/corpus/index.ts';
import { createCommandValidator } from '../src/agents/troubleshoot/validator/index.ts';
import { type BenchRow, printTable, summarise, writeResults } from './bench-report.ts';

const quick = process.env.BENCH_QUICK === '1';
const rounds = quick ? 10 : 60;

function measure(count: number, items: readonly (() => void)[]): { perSecond: number; p50: number; p99: number } {
  for (const item of items) item(); // warm up
  const samples: number[] = [];
  const started = performance.now();
  for (let round = 0; round < count; round++) {
    for (const item of items) {
      const start = performance.now();
      item();
      samples.push(performance.now() - start);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const { p50, p99 } = summarise(samples);
  return { perSecond: Math.round(samples.length / seconds), p50, p99 };
}

const validator = await createCommandValidator();
const commands = [...DANGEROUS_COMMANDS, ...LEGITIMATE_COMMANDS];
const command = measure(
  rounds,
  commands.map((c) => () => validator.validate(c.command, c.os)),
);

const dir = mkdtempSync(join(tmpdir(), 'opsgate-bench-validators-'));
const db = new DatabaseSync(ensureDemoDatabase(join(dir, 'demo.db')), { readOnly: true });
db.enableDefensive(true);
const guard = new SqlAuthorizer('read');
guard.install(db);
const statements = [...DISGUISED_WRITES, ...SCARY_READS];
const sql = measure(
  rounds,
  statements.map((text) => () => {
    try {
      guard.prepare(db, text);
    } catch {
      // A refusal is the guard's answer; its cost is what is measured.
    }
  }),
);
db.close();
rmSync(dir, { recursive: true, force: true });

const results: BenchRow[] = [
  {
    system: 'command validator (tree-sitter-bash + blocklists)',
    lines: commands.length,
    perSecond: command.perSecond,
    p50Ms: command.p50,
    p99Ms: command.p99,
    goal: '>= 5,000/s',
    met: command.perSecond >= 5_000,
  },
  {
    system: 'SQL read guard (authorizer + kind check, uncached compile)',
    lines: statements.length,
    perSecond: sql.perSecond,
    p50Ms: sql.p50,
    p99Ms: sql.p99,
    goal: 'report',
    met: true,
  },
];
printTable('validators', results);
writeResults('validators', results, { rounds });
