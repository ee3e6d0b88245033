import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

/** The commit a figure was measured at (with "+dirty" for uncommitted changes), so published figures can be traced. */
export function measuredCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return dirty.trim() ? `${head}+dirty` : head;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

/** One row of a benchmark: which system, then its figures. */
export type BenchRow = { system: string } & Record<string, string | number | boolean>;

/** p50/p99/mean of latency samples in milliseconds, rounded to microseconds. */
export function summarise(samples: readonly number[]): { p50: number; p99: number; mean: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return { p50: round(at(0.5)), p99: round(at(0.99)), mean: round(sorted.reduce((a, b) => a + b, 0) / Math.max(sorted.length, 1)) };
}

export function printTable(name: string, rows: readonly BenchRow[]): void {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ');
  console.log(`\n${name}`);
  console.log(line(columns));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(columns.map((c) => String(row[c] ?? ''))));
}

/** Writes `bench/results/NAME.json` as `{ "results": [...] }`, with the commit and machine it was measured on. */
export function writeResults(name: string, rows: readonly BenchRow[], extra: Record<string, unknown> = {}): string {
  const dir = join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.json`);
  writeFileSync(
    path,
    `${JSON.stringify(
      {
        results: rows,
        commit: measuredCommit(),
        node: process.version,
        cpus: availableParallelism(),
        quick: process.env.BENCH_QUICK === '1',
        measuredAt: new Date().toISOString(),
        ...extra,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`\nwrote ${path}`);
  return path;
}
