import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chooseModel, createConfiguredModel, describeModelChoice } from '../src/core/model/index.ts';
import { type Cassette, loadCassette, recordingModel, replayingModel, saveCassette } from './cassette.ts';
import { mergeReports, readReport } from './eval-results.ts';
import { runScenario } from './run-scenario.ts';
import { type ModelFactory, type ScenarioScore, type Suite, score } from './scenario.ts';
import { suites } from './suites/index.ts';

export interface SuiteResult {
  readonly agent: string;
  readonly skipped?: string;
  readonly scenarios: readonly ScenarioScore[];
}

export interface EvalOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly agents?: readonly string[];
  /** Only the first N scenarios of each suite (for the quick run inside `npm test`). */
  readonly limit?: number;
  /** Replay this cassette instead of calling a model. */
  readonly cassette?: Cassette;
  /** Record the real model's answers into this cassette. */
  readonly record?: Cassette;
  readonly log?: (line: string) => void;
}

/** The model for a scenario: a cassette's replay, the configured model (recorded or not), or the offline interpreter. */
function modelFor(options: EvalOptions, key: string): ModelFactory | undefined {
  if (options.cassette) {
    const cassette = options.cassette;
    return () => replayingModel(cassette, key);
  }
  const choice = chooseModel(options.env);
  if (!choice) return undefined;
  const record = options.record;
  return () => {
    const model = createConfiguredModel(choice, options.env);
    return record ? recordingModel(model, record, key) : model;
  };
}

/** Runs each suite's scenarios, each in a fresh runtime so that no scenario sees another's changes. */
export async function runEval(options: EvalOptions): Promise<SuiteResult[]> {
  const log = options.log ?? (() => {});
  const results: SuiteResult[] = [];
  for (const suite of suites.filter((s) => !options.agents || options.agents.includes(s.agent))) {
    results.push(await runSuite(suite, options, log));
  }
  return results;
}

async function runSuite(suite: Suite, options: EvalOptions, log: (line: string) => void): Promise<SuiteResult> {
  try {
    return await runScenarios(suite, options, log);
  } finally {
    await suite.dispose?.();
  }
}

async function runScenarios(suite: Suite, options: EvalOptions, log: (line: string) => void): Promise<SuiteResult> {
  const scores: ScenarioScore[] = [];
  for (const scenario of suite.scenarios.slice(0, options.limit ?? suite.scenarios.length)) {
    const opened = await suite.open(modelFor(options, scenario.id));
    if ('skipped' in opened) return { agent: suite.agent, skipped: opened.skipped, scenarios: [] };
    try {
      const result = score(scenario, await runScenario(suite.agent, scenario, opened.context));
      scores.push(result);
      log(
        `${result.passed ? 'pass' : 'FAIL'} ${result.id} ${result.title}${result.passed ? '' : `\n     ${result.problems.join('\n     ')}`}`,
      );
    } finally {
      await opened.close();
    }
  }
  return { agent: suite.agent, scenarios: scores };
}

const percent = (part: number, whole: number) => (whole === 0 ? 'n/a' : `${Math.round((100 * part) / whole)}%`);

/** One agent's figures, as the table and the results file show them. */
export type SummaryRow = { readonly agent: string } & Record<string, string | number>;

/** Per agent: scenarios, passed, tool-choice accuracy, approvals respected, injections resisted. */
export function summarize(results: readonly SuiteResult[]): SummaryRow[] {
  return results.map(({ agent, skipped, scenarios }) => {
    const injections = scenarios.filter((s) => s.injectionResisted !== undefined);
    return {
      agent,
      scenarios: scenarios.length,
      passed: scenarios.filter((s) => s.passed).length,
      'tool choice': percent(scenarios.filter((s) => s.toolChoice).length, scenarios.length),
      arguments: percent(scenarios.filter((s) => s.args).length, scenarios.length),
      'approvals respected': percent(scenarios.filter((s) => s.approvalsRespected).length, scenarios.length),
      'answer facts': percent(scenarios.filter((s) => s.facts).length, scenarios.length),
      'injections resisted': `${injections.filter((s) => s.injectionResisted).length}/${injections.length}`,
      ...(skipped ? { skipped } : {}),
    };
  });
}

function table(rows: ReadonlyArray<Record<string, string | number>>): string {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const width = (c: string) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? '').length));
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(columns.map((c) => c.padEnd(width(c)))),
    line(columns.map((c) => '-'.repeat(width(c)))),
    ...rows.map((row) => line(columns.map((c) => String(row[c] ?? '').padEnd(width(c))))),
  ].join('\n');
}

async function main(): Promise<void> {
  const env = process.env;
  const args = process.argv.slice(2);
  const agents = args.filter((a) => !a.startsWith('--'));
  const cassettePath = env.OPSGATE_EVAL_CASSETTE;
  const choice = cassettePath ? undefined : chooseModel(env);
  const label = cassettePath ? `cassette ${cassettePath}` : describeModelChoice(choice);
  const record = choice && env.OPSGATE_EVAL_RECORD === '1' ? ({ model: label, steps: {} } as Cassette) : undefined;
  console.log(`opsgate eval on ${label}`);
  const results = await runEval({
    env,
    ...(agents.length ? { agents } : {}),
    ...(cassettePath ? { cassette: loadCassette(cassettePath) } : {}),
    ...(record ? { record } : {}),
    log: (line) => console.log(line),
  });
  const summary = summarize(results);
  console.log(`\n${table(summary)}`);
  const name = (choice ? `${choice.provider}-${choice.modelId}` : cassettePath ? 'cassette' : 'offline').replace(/[^\w.-]+/g, '_');
  const dir = join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.json`);
  // A run of some agents keeps the stored rows of the others.
  const report = mergeReports(
    readReport<SummaryRow, SuiteResult>(file),
    { model: label, summary, results },
    suites.map((suite) => suite.agent),
  );
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nwrote ${file}`);
  if (record) {
    const saved = saveCassette(record, join(import.meta.dirname, 'cassettes', `${name}.json`));
    console.log(`recorded ${saved}; replay offline with OPSGATE_EVAL_CASSETTE=${saved} npm run eval`);
  }
}

if (import.meta.main) await main();
