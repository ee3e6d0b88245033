/**
 * Troubleshoot validator and output pipeline benchmark.
 *
 * 1. Validator: every corpus line (Linux and Windows, dangerous and legitimate) validated many
 *    times; commands/s and per-call p50/p99. Goal: p99 ≤ 1 ms and ≥ 5,000 commands/s.
 * 2. Output pipeline on a generated recorded-terminal stream (colours, cursor moves, OSC titles and
 *    hyperlinks, progress bars with \r, long lines), fed in 64 KiB chunks: streaming ANSI strip +
 *    pager detection on every chunk's tail + truncation for the model at the end; against
 *    `strip-ansi` alone on the same chunks. Goal: ≥ 200 MB/s and not slower than strip-ansi.
 *
 * 100 MB of stream by default; BENCH_QUICK=1 uses 10 MB and fewer validator rounds.
 */
import stripAnsiPackage from 'strip-ansi';
import { DANGEROUS_COMMANDS, LEGITIMATE_COMMANDS } from '../src/agents/troubleshoot/validator/corpus/index.ts';
import { createCommandValidator } from '../src/agents/troubleshoot/validator/index.ts';
import { createAnsiStripper, createOutputCollector, detectPagerPrompt, stripAnsi } from '../src/core/text/index.ts';
import { type BenchRow, printTable, summarise, writeResults } from './bench-report.ts';

const quick = process.env.BENCH_QUICK === '1';
const streamMegabytes = quick ? 10 : 100;
const validatorRounds = quick ? 20 : 100;
const CHUNK = 64 * 1024;

// ---------------------------------------------------------------- validator
const validator = await createCommandValidator();
const corpus = [...DANGEROUS_COMMANDS, ...LEGITIMATE_COMMANDS];
for (let round = 0; round < 3; round++) for (const c of corpus) validator.validate(c.command, c.os); // warm up
const samples: number[] = [];
const validatorStart = performance.now();
for (let round = 0; round < validatorRounds; round++) {
  for (const c of corpus) {
    const start = performance.now();
    validator.validate(c.command, c.os);
    samples.push(performance.now() - start);
  }
}
const validatorSeconds = (performance.now() - validatorStart) / 1000;
const latency = summarise(samples);
const slowest = corpus
  .map((c) => {
    const start = performance.now();
    for (let i = 0; i < 20; i++) validator.validate(c.command, c.os);
    return { command: c.command, ms: (performance.now() - start) / 20 };
  })
  .sort((a, b) => b.ms - a.ms)[0]!;

// ---------------------------------------------------------------- stream
let seed = 2026;
function random(n: number): number {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
}
const WORDS = [
  'nginx',
  'error',
  'GET',
  '/api/v1/health',
  '200',
  'connection',
  'upstream',
  'timeout',
  'worker',
  'pid',
  'ms',
  'ok',
  'ünïcødé',
  '→',
];
function line(): string {
  const kind = random(10);
  const words = Array.from({ length: 6 + random(20) }, () => WORDS[random(WORDS.length)]).join(' ');
  switch (kind) {
    case 0:
      return `\u001b[1;3${random(8)}m${words}\u001b[0m\r\n`; // coloured log line
    case 1:
      return `\u001b[${1 + random(40)};${1 + random(120)}H\u001b[K${words}`; // cursor move + erase (top, htop)
    case 2:
      return `\u001b]0;user@host: ~/srv\u0007\u001b[01;32muser@host\u001b[00m:\u001b[01;34m~/srv\u001b[00m$ ls --color\r\n`; // prompt with title
    case 3:
      return `${'#'.repeat(random(50))}${' '.repeat(5)}${random(100)}%\r`; // progress bar overwrite
    case 4:
      return `${words} ${'x'.repeat(500 + random(2000))}\r\n`; // long line
    case 5:
      return `see \u001b]8;;https://example.com/${random(1000)}\u001b\\the docs\u001b]8;;\u001b\\ for ${words}\r\n`; // hyperlink
    case 6:
      return `\u001b[38;5;${random(256)}m${words}\u001b[39m \u001b[48;2;${random(256)};${random(256)};${random(256)}m bg \u001b[49m\r\n`;
    default:
      return `${words}\r\n`; // plain text
  }
}
const target = streamMegabytes * 1_000_000;
const chunks: string[] = [];
let pending = '';
let generated = 0;
while (generated < target) {
  pending += line();
  if (pending.length >= CHUNK) {
    chunks.push(pending.slice(0, CHUNK));
    generated += CHUNK;
    pending = pending.slice(CHUNK);
  }
}
const totalCharacters = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
const megabytes = Buffer.byteLength(chunks.join(''), 'utf8') / 1_000_000;

/** Fresh copies of the chunks, so no run profits from V8 caches keyed on string identity. */
function freshChunks(): string[] {
  return chunks.map((chunk) => Buffer.from(chunk, 'utf8').toString('utf8'));
}

/**
 * Times several systems over fresh copies of the stream, interleaved round by round (so JIT warm-up,
 * GC and the neighbours' load hit them alike), after two warm-up rounds. Best round, in seconds.
 */
function timeAll(systems: Record<string, (input: readonly string[]) => void>, rounds = quick ? 4 : 3): Record<string, number> {
  const best: Record<string, number> = {};
  for (let round = -2; round < rounds; round++) {
    for (const [name, run] of Object.entries(systems)) {
      const input = freshChunks();
      const start = performance.now();
      run(input);
      const seconds = (performance.now() - start) / 1000;
      if (round >= 0) best[name] = Math.min(best[name] ?? Number.POSITIVE_INFINITY, seconds);
    }
  }
  return best;
}

let pagerHits = 0;
let truncatedLength = 0;
let sink = 0;
const timings = timeAll({
  pipeline: (input) => {
    const stripper = createAnsiStripper();
    const collector = createOutputCollector();
    pagerHits = 0;
    for (const chunk of input) {
      collector.push(stripper.push(chunk));
      // The pager check reads the raw screen tail (it strips that itself): slicing the stripped
      // chunk would flatten the rope V8 builds for replace results, a 64 KiB copy per chunk.
      if (detectPagerPrompt(chunk.length > 256 ? chunk.slice(-256) : chunk)) pagerHits++;
    }
    truncatedLength = collector.finish().text.length;
  },
  streamStrip: (input) => {
    const stripper = createAnsiStripper();
    for (const chunk of input) sink += stripper.push(chunk).length;
  },
  stripAnsiPackage: (input) => {
    for (const chunk of input) sink += stripAnsiPackage(chunk).length;
  },
  oneShot: (input) => {
    for (const chunk of input) sink += stripAnsi(chunk).length;
  },
});
const pipelineSeconds = timings.pipeline!;
const stripAnsiPackageSeconds = timings.stripAnsiPackage!;

const rows: BenchRow[] = [
  {
    system: 'opsgate CommandValidator (corpus, linux+windows)',
    commands: samples.length,
    commandsPerSecond: Math.round(samples.length / validatorSeconds),
    p50Ms: latency.p50,
    p99Ms: latency.p99,
    meanMs: latency.mean,
    slowestCommandMs: Math.round(slowest.ms * 1000) / 1000,
    goal: 'p99 <= 1 ms, >= 5000/s',
    meetsGoal: latency.p99 <= 1 && samples.length / validatorSeconds >= 5000,
  },
  {
    system: 'opsgate output pipeline (streaming strip + pager detection + truncation)',
    megabytes: Math.round(megabytes),
    mbPerSecond: Math.round(megabytes / pipelineSeconds),
    goal: '>= 200 MB/s, not slower than strip-ansi',
    meetsGoal: megabytes / pipelineSeconds >= 200 && pipelineSeconds <= stripAnsiPackageSeconds,
    atLeast200MBs: megabytes / pipelineSeconds >= 200,
    notSlowerThanStripAnsi: pipelineSeconds <= stripAnsiPackageSeconds,
    stripperNotSlowerThanStripAnsi: timings.streamStrip! <= stripAnsiPackageSeconds * 1.05,
  },
  {
    system: 'strip-ansi 7 alone (same chunks, not chunk-boundary safe)',
    megabytes: Math.round(megabytes),
    mbPerSecond: Math.round(megabytes / stripAnsiPackageSeconds),
  },
  {
    system: 'opsgate streaming stripper alone (same chunks)',
    megabytes: Math.round(megabytes),
    mbPerSecond: Math.round(megabytes / timings.streamStrip!),
  },
  {
    system: 'opsgate stripAnsi one-shot (same chunks)',
    megabytes: Math.round(megabytes),
    mbPerSecond: Math.round(megabytes / timings.oneShot!),
  },
];
printTable('troubleshoot validator and output pipeline', rows);
console.log(`\nslowest corpus line: ${JSON.stringify(slowest.command)} (${slowest.ms.toFixed(3)} ms)`);
console.log(
  `stream: ${totalCharacters.toLocaleString('en-US')} characters in ${chunks.length} chunks; truncated to ${truncatedLength} for the model; pager prompts seen: ${pagerHits}`,
);
writeResults('troubleshoot-validator', rows, { corpusSize: corpus.length, streamChunks: chunks.length, chunkCharacters: CHUNK, sink });
