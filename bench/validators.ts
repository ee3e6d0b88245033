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
 * 3. Risk over the same corpora (issue 29): how many lines each set has at each risk level, how many
 *    the validator blocks (true positives of the dangerous set, false positives of the legitimate
 *    one), the risk of the dangerous lines it lets through (none may be low), and the assessor's
 *    commands/s and p50/p99. Written to bench/results/risk.json too.
 *
 * 4. The peers' corpora (issue 29): the ordinary and destructive lines of two peer command guards'
 *    own test suites (test/fixtures/peer-commands): false positives (ordinary lines blocked), true
 *    positives (destructive lines blocked, or caught = blocked or ≥ high risk) and the risk
 *    distribution. Goal: ≤ 1.4 % of ordinary lines blocked and ≥ 96.8 % of destructive ones caught
 *    (the review's 6 of 424 and 240 of 248). Written to bench/results/peer-commands.json.
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
import { createCommandRiskAssessor } from '../src/agents/troubleshoot/risk.ts';
import { DANGEROUS_COMMANDS, LEGITIMATE_COMMANDS } from '../src/agents/troubleshoot/validator/corpus/index.ts';
import { createCommandValidator } from '../src/agents/troubleshoot/validator/index.ts';
import { type BenchRow, printTable, summarise, writeResults } from './bench-report.ts';
import { scorePeerCorpora } from './peer-commands.ts';

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

// ---------------------------------------------------------------- risk over the corpora
const assessor = await createCommandRiskAssessor();
const LEVELS = ['low', 'medium', 'high', 'critical'] as const;
function distribution(name: string, lines: readonly (typeof commands)[number][]): BenchRow {
  const counts = { low: 0, medium: 0, high: 0, critical: 0 };
  let blocked = 0;
  for (const line of lines) {
    counts[assessor.assess(line.command, line.os).level]++;
    if (validator.validate(line.command, line.os).verdict === 'block') blocked++;
  }
  return { system: name, lines: lines.length, blocked, ...Object.fromEntries(LEVELS.map((level) => [level, counts[level]])) };
}
const allowedDangerous = DANGEROUS_COMMANDS.filter((c) => validator.validate(c.command, c.os).verdict === 'allow');
const riskRows: BenchRow[] = [
  distribution('dangerous corpus (blocked = true positives)', DANGEROUS_COMMANDS),
  distribution('legitimate corpus (blocked = false positives)', LEGITIMATE_COMMANDS),
  { ...distribution('dangerous lines the validator allows (goal: none low)', allowedDangerous), goal: 'low = 0' },
];
const riskSpeed = measure(
  rounds,
  commands.map((c) => () => assessor.assess(c.command, c.os)),
);
riskRows.push({
  system: 'risk assessor (tree-sitter-bash + unwrapping)',
  lines: commands.length,
  perSecond: riskSpeed.perSecond,
  p50Ms: riskSpeed.p50,
  p99Ms: riskSpeed.p99,
  goal: 'report',
});
printTable('troubleshoot risk over the validator corpora', riskRows);
writeResults('risk', riskRows, { rounds, note: 'counts are exact; speeds depend on the machine load' });

// ---------------------------------------------------------------- the peers' corpora
const percent = (part: number, whole: number) => `${((100 * part) / Math.max(whole, 1)).toFixed(1)} %`;
const peerRows: BenchRow[] = [];
const peerScores = scorePeerCorpora(validator, assessor);
for (const score of peerScores) {
  for (const [kind, judged] of [
    ['ordinary', score.ordinary],
    ['destructive', score.destructive],
  ] as const) {
    peerRows.push({
      system: `${score.name} ${kind}`,
      lines: judged.lines,
      blocked: judged.blocked,
      caught: kind === 'destructive' ? `${judged.caught} (${percent(judged.caught, judged.lines)})` : '',
      falsePositives: kind === 'ordinary' ? `${judged.blocked} (${percent(judged.blocked, judged.lines)})` : '',
      ...judged.levels,
    });
  }
}
const total = (kind: 'ordinary' | 'destructive', field: 'lines' | 'blocked' | 'caught') =>
  peerScores.reduce((sum, score) => sum + score[kind][field], 0);
peerRows.push({
  system: 'both peers',
  lines: total('ordinary', 'lines') + total('destructive', 'lines'),
  falsePositives: `${total('ordinary', 'blocked')} of ${total('ordinary', 'lines')} (${percent(total('ordinary', 'blocked'), total('ordinary', 'lines'))})`,
  caught: `${total('destructive', 'caught')} of ${total('destructive', 'lines')} (${percent(total('destructive', 'caught'), total('destructive', 'lines'))})`,
  goal: 'FP <= 1.4 %, caught >= 96.8 %',
  met:
    total('ordinary', 'blocked') / total('ordinary', 'lines') <= 6 / 424 &&
    total('destructive', 'caught') / total('destructive', 'lines') >= 240 / 248,
});
printTable("the peers' own test lines (test/fixtures/peer-commands)", peerRows);
for (const score of peerScores) {
  for (const line of score.ordinary.wrong) console.log(`  ${score.name} ordinary line blocked: ${JSON.stringify(line)}`);
  for (const line of score.destructive.wrong)
    console.log(`  ${score.name} destructive line neither blocked nor >= high: ${JSON.stringify(line)}`);
}
writeResults('peer-commands', peerRows, { origins: peerScores.map((score) => score.origin), note: 'counts are exact' });
