// `npm run bench:troubleshoot`: the three troubleshoot figures in one table — the command
// validator and the output pipeline (bench/troubleshoot-validator.ts) and the SSH round trip of
// `true` (bench/troubleshoot-ssh.ts). Runs both, then merges their results.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BenchRow, printTable, writeResults } from './bench-report.ts';

const parts = ['troubleshoot-validator', 'troubleshoot-ssh'];
const rows: BenchRow[] = [];
for (const part of parts) {
  const run = spawnSync(process.execPath, [join(import.meta.dirname, `${part}.ts`)], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: process.env,
  });
  if (run.status !== 0) {
    console.error(`bench:${part} failed (exit ${run.status}); its figures are missing below`);
    continue;
  }
  const { results } = JSON.parse(readFileSync(join(import.meta.dirname, 'results', `${part}.json`), 'utf8')) as { results: BenchRow[] };
  rows.push(...results.map((row) => ({ ...row, part })));
}
printTable('troubleshoot', rows);
writeResults('troubleshoot', rows);
if (rows.length === 0) process.exitCode = 1;
