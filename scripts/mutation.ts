// `npm run test:mutation [MODULE ...] [--force] [--concurrency N] [--sample PERCENT [--seed N]]`: StrykerJS over the safety modules, one module at a
// time, and the mutation score of each against the goal. Each module keeps its own incremental
// file under reports/mutation/, so a later run re-tests only the mutants whose code or covering
// tests changed (`--force` re-tests all). A mutant shown to be equivalent is marked in the code
// with `// Stryker disable next-line MUTATOR: why it cannot change behaviour`; it counts as ignored.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sampleMutatePatterns } from './mutation-sample.ts';

const root = resolve(import.meta.dirname, '..');
const reportsDir = join(root, 'reports/mutation');
/** Killed share of the mutants that tests reach or should reach (no coverage counts as survived). */
const GOAL = 90;

/** Carries a module's test patterns to `vitest.mutation.config.ts` in Stryker's test runner processes. */
export const MUTATION_TESTS_VARIABLE = 'OPSGATE_MUTATION_TESTS';

/** A safety module: the files mutated and the suites that cover them. */
export interface SafetyModule {
  /** Stryker `mutate` patterns; `file.ts:FROM-TO` mutates those lines only. */
  readonly mutate: readonly string[];
  /** Vitest include patterns: the suites that prove the module, so a run takes minutes, not an hour. */
  readonly tests: readonly string[];
  /**
   * Its suites need PostgreSQL (code that runs only there, such as the audit's external anchor):
   * the run starts a throwaway cluster unless OPSGATE_TEST_DATABASE_URL names one.
   */
  readonly postgres?: boolean;
}

const RUNTIME_SUITES = ['src/core/runtime/**/*.test.ts', 'test/core/runtime.test.ts'];
// Not runtime.test.ts: every runtime test seals and many verify, so each audit mutant replayed the
// whole runtime suite (on both dialects); the audit suites test sealing and verifying directly.
const AUDIT_SUITES = [
  'src/core/audit/**/*.test.ts',
  'test/core/audit-integrity.test.ts',
  // The off-host checkpoint anchor (OPSGATE_AUDIT_ANCHOR_READ_COMMAND, --checkpoints FILE).
  'test/core/audit-anchor.test.ts',
  // The background sealer beside another replica holding the sealers' lock.
  'test/core/audit-sealer-replicas.test.ts',
];

/** The safety modules: the code that decides, binds, records or refuses. */
export const SAFETY_MODULES: Readonly<Record<string, SafetyModule>> = {
  'decision-authorizer': {
    mutate: ['src/core/runtime/decisions/authorize-decision.ts', 'src/core/runtime/decisions/expire.ts'],
    tests: [
      ...RUNTIME_SUITES,
      'test/core/decision-authorizer.test.ts',
      'test/core/stale-decision.test.ts',
      'test/security/decision-matrix.test.ts',
    ],
  },
  'approval-binding': {
    mutate: ['src/core/policy/approval-binding.ts', 'src/core/policy/verify-approval.ts'],
    tests: ['src/core/policy/**/*.test.ts', 'test/core/approval-binding.test.ts', 'test/core/runtime.test.ts'],
  },
  'identity-binding': {
    mutate: ['src/core/runtime/tool-input.ts'],
    tests: [...RUNTIME_SUITES, 'test/security/decision-matrix.test.ts'],
  },
  'tool-call-lifecycle': {
    mutate: ['src/core/runtime/tool-call-lifecycle.ts', 'src/core/runtime/recovery.ts'],
    tests: [
      ...RUNTIME_SUITES,
      'test/core/decision-authorizer.test.ts',
      'test/core/stale-decision.test.ts',
      'test/core/approval-binding.test.ts',
      // Recovery is proven by a real SIGKILL of a child process mid-call and by a second instance
      // on the same store; recovery itself runs in the test process, so its mutants are reached.
      'test/core/crash-recovery.test.ts',
      'test/core/replica-recovery.test.ts',
      // Recovery from the states a crash leaves, by counts (dead, unnamed and live runners; two recoverers at once).
      'test/core/recovery-lifecycle.test.ts',
    ],
  },
  'audit-verify': {
    mutate: ['src/core/audit/verify-audit.ts', 'src/core/audit/verify-tool-calls.ts', 'src/core/audit/journal-mac.ts'],
    tests: AUDIT_SUITES,
    postgres: true,
  },
  'audit-sealer': {
    mutate: [
      'src/core/audit/audit-log.ts',
      'src/core/audit/chain-hash.ts',
      'src/core/audit/checkpoints.ts',
      // The sealer's ride on a turn's commit (issue 32): runRider and rideOnNextCommit, by line (if
      // unit-of-work.ts changes above them, move the ranges).
      'src/core/store/unit-of-work.ts:322-331',
      'src/core/store/unit-of-work.ts:377-386',
    ],
    tests: [...AUDIT_SUITES, 'src/core/store/unit-of-work.rider.test.ts'],
    postgres: true,
  },
  'cedar-adapter': {
    mutate: ['src/core/policy/policy.ts', 'src/core/policy/cedar/cedar-policy.ts', 'src/core/policy/cedar/cedar-request.ts'],
    // The policy's own suites pin every rule, resource, approver and error at its boundary. The
    // runtime-level decision matrix (test/security) is left out: every static mutant (a regular
    // expression, a constant) runs the whole list, and with it the list took three times as long.
    tests: ['src/core/policy/**/*.test.ts'],
  },
  // Two runs: a static mutant (a rule table, a regular expression) runs every suite of its module,
  // and the SQLite suites open real databases and read processes while the PostgreSQL guards are
  // proven by pure parser and catalog-decision tests.
  'sql-guard': {
    mutate: [
      'src/agents/sandbox/engines/sql-guard.ts',
      'src/agents/sandbox/engines/read-budget.ts',
      // The SQLite engine's read path: #prepareRead, query, querySync.
      'src/agents/sandbox/engines/sqlite-engine.ts:107-130',
    ],
    // Not the runaway-read suite (read-budget.test.ts) nor the property test: every static mutant
    // runs the whole list, and those two start read processes and wait out budgets for each.
    tests: ['src/agents/sandbox/engines/sql-guard*.test.ts', 'src/agents/sandbox/engines/read-budget.meter.test.ts'],
  },
  'sql-guard-postgres': {
    mutate: ['src/agents/sandbox/engines/postgres-statement.ts', 'src/agents/sandbox/engines/postgres-function-policy.ts'],
    tests: ['src/agents/sandbox/engines/postgres-statement.test.ts', 'src/agents/sandbox/engines/postgres-function-policy.test.ts'],
  },
  'command-validator': {
    mutate: ['src/agents/troubleshoot/validator/*.ts', '!src/agents/troubleshoot/validator/*.test.ts'],
    // Not the property tests nor the peer corpora: they score every mutant over seconds of input
    // (the corpora from a beforeAll, which makes every mutant 'static': each would run every test).
    tests: [
      'src/agents/troubleshoot/validator/command-validator.test.ts',
      'src/agents/troubleshoot/validator/command-validator.verdicts.test.ts',
      'src/agents/troubleshoot/validator/strict-blocklist.test.ts',
      'src/agents/troubleshoot/validator/bash-commands.test.ts',
      'src/agents/troubleshoot/validator/bash-source-fixes.test.ts',
      'src/agents/troubleshoot/validator/awk-commands.test.ts',
      'src/agents/troubleshoot/validator/flags.test.ts',
      'src/agents/troubleshoot/validator/linux-paths.test.ts',
      'src/agents/troubleshoot/validator/windows-commands.test.ts',
    ],
  },
  'risk-scorer': {
    mutate: ['src/agents/troubleshoot/risk.ts', 'src/agents/troubleshoot/risk/*.ts', '!src/agents/troubleshoot/risk/*.test.ts'],
    tests: [
      'src/agents/troubleshoot/risk.test.ts',
      'src/agents/troubleshoot/risk.tables.test.ts',
      'src/agents/troubleshoot/risk/**/*.test.ts',
    ],
  },
  'helm-safety-net': {
    mutate: ['src/agents/helm/middleware/approval-hitl-middleware.ts'],
    tests: ['src/agents/helm/middleware/**/*.test.ts'],
  },
  'gateway-policy': {
    // treatmentOf and gatewayPolicyEnvironment: how an upstream tool's pin and annotations become
    // opsgate's mutability, risk and Cedar environment.
    mutate: ['src/gateway/upstream-agent.ts:36-61'],
    tests: ['test/gateway/gateway-config.test.ts', 'src/gateway/**/*.test.ts'],
  },
};

/** Every module's suites: what `vitest.mutation.config.ts` runs when no module is named. */
export const ALL_MUTATION_SUITES: readonly string[] = [...new Set(Object.values(SAFETY_MODULES).flatMap((module) => module.tests))];

interface MutantResult {
  readonly status: string;
}
interface StrykerReport {
  readonly files: Record<string, { readonly mutants: readonly MutantResult[] }>;
}

export interface ModuleScore {
  readonly module: string;
  readonly killed: number;
  readonly survived: number;
  readonly noCoverage: number;
  readonly ignored: number;
  readonly errors: number;
  /** Killed (timeouts included) out of killed + survived + no coverage, in percent; null without mutants. */
  readonly score: number | null;
}

export function scoreOf(module: string, report: StrykerReport): ModuleScore {
  const count = (statuses: readonly string[]) =>
    Object.values(report.files)
      .flatMap((file) => file.mutants)
      .filter((mutant) => statuses.includes(mutant.status)).length;
  const killed = count(['Killed', 'Timeout']);
  const survived = count(['Survived']);
  const noCoverage = count(['NoCoverage']);
  const valid = killed + survived + noCoverage;
  return {
    module,
    killed,
    survived,
    noCoverage,
    ignored: count(['Ignored']),
    errors: count(['CompileError', 'RuntimeError']),
    score: valid === 0 ? null : Math.round((killed / valid) * 1000) / 10,
  };
}

/** A throwaway PostgreSQL cluster (`scripts/test-services.sh`), which Stryker's runner processes reach through the environment. */
interface Postgres {
  readonly url: string;
  stop(): void;
}

/** Starts a cluster; undefined when PostgreSQL is not installed (the PostgreSQL suites then skip, and their code counts as not covered). */
function startPostgres(): Postgres | undefined {
  const started = spawnSync(
    'bash',
    ['-c', 'source scripts/test-services.sh && start_postgres >&2 && printf "%s\\n%s" "${OPSGATE_TEST_DATABASE_URL:-}" "${PG_TMP:-}"'],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [url, dir] = started.stdout.split('\n');
  if (started.status !== 0 || !url) return undefined;
  return {
    url,
    stop: () => {
      spawnSync('bash', ['-c', 'source scripts/test-services.sh && stop_postgres'], {
        cwd: root,
        env: { ...process.env, PG_TMP: dir },
        stdio: 'inherit',
      });
    },
  };
}

/** A seeded random share of each module's lines (see mutation-sample.ts); undefined for a full run. */
interface Sample {
  readonly percent: number;
  readonly seed: number;
}

function run(
  module: string,
  force: boolean,
  concurrency: string | undefined,
  databaseUrl: string | undefined,
  sample: Sample | undefined,
): ModuleScore | { readonly module: string; readonly failed: string } {
  const report = join(reportsDir, `${module}.json`);
  const config = join(reportsDir, `${module}.stryker.json`);
  const base = JSON.parse(readFileSync(join(root, 'stryker.config.json'), 'utf8')) as Record<string, unknown>;
  const { $schema: _schema, ...options } = base;
  writeFileSync(
    config,
    JSON.stringify({
      ...options,
      mutate: sample
        ? sampleMutatePatterns(SAFETY_MODULES[module]!.mutate, root, sample.percent, sample.seed)
        : SAFETY_MODULES[module]!.mutate,
      ...(concurrency ? { concurrency: Number(concurrency) } : {}),
      // A sandbox folder per module: two modules measured at once must not clean each other's away.
      tempDirName: `.stryker-tmp-${module}`,
      incrementalFile: join(reportsDir, `${module}.incremental.json`),
      jsonReporter: { fileName: report },
    }),
  );
  console.log(
    `\n== ${module}: ${SAFETY_MODULES[module]!.mutate.join(' ')}${sample ? ` (lines sampled: ${sample.percent} %, seed ${sample.seed})` : ''}`,
  );
  const result = spawnSync('npx', ['stryker', 'run', config, ...(force ? ['--force'] : [])], {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      [MUTATION_TESTS_VARIABLE]: JSON.stringify(SAFETY_MODULES[module]!.tests),
      ...(databaseUrl ? { OPSGATE_TEST_DATABASE_URL: databaseUrl } : {}),
    },
  });
  if (result.status !== 0 || !existsSync(report))
    return { module, failed: `stryker exited ${result.status}: see its output above (a failing test in the initial run stops it)` };
  return scoreOf(module, JSON.parse(readFileSync(report, 'utf8')) as StrykerReport);
}

function main(): void {
  const args = process.argv.slice(2);
  const force = args.includes('--force');
  const concurrencyAt = args.indexOf('--concurrency');
  const concurrency = concurrencyAt >= 0 ? args[concurrencyAt + 1] : undefined;
  if (concurrencyAt >= 0 && !/^[1-9][0-9]*$/.test(concurrency ?? '')) {
    console.error('--concurrency needs a whole number of test runner processes, e.g. --concurrency 1');
    process.exit(2);
  }
  const sampleAt = args.indexOf('--sample');
  const seedAt = args.indexOf('--seed');
  const percent = sampleAt >= 0 ? Number(args[sampleAt + 1]) : undefined;
  const seed = seedAt >= 0 ? Number(args[seedAt + 1]) : 36;
  if (percent !== undefined && !(percent > 0 && percent <= 100)) {
    console.error('--sample needs the percentage of lines to mutate, e.g. --sample 10');
    process.exit(2);
  }
  if (seedAt >= 0 && !Number.isInteger(seed)) {
    console.error('--seed needs a whole number, e.g. --seed 36');
    process.exit(2);
  }
  const sample = percent === undefined ? undefined : { percent, seed };
  const valueAt = new Set([concurrencyAt, sampleAt, seedAt].filter((at) => at >= 0).map((at) => at + 1));
  const asked = args.filter((arg, at) => !arg.startsWith('--') && !valueAt.has(at));
  const unknown = asked.filter((name) => !(name in SAFETY_MODULES));
  if (unknown.length > 0) {
    console.error(`unknown module ${unknown.join(', ')}; the modules are: ${Object.keys(SAFETY_MODULES).join(', ')}`);
    process.exit(2);
  }
  mkdirSync(reportsDir, { recursive: true });
  const modules = asked.length > 0 ? asked : Object.keys(SAFETY_MODULES);
  const givenUrl = process.env.OPSGATE_TEST_DATABASE_URL;
  const postgres = !givenUrl && modules.some((module) => SAFETY_MODULES[module]!.postgres) ? startPostgres() : undefined;
  const databaseUrl = givenUrl || postgres?.url;
  if (!databaseUrl && modules.some((module) => SAFETY_MODULES[module]!.postgres))
    console.error('PostgreSQL is not installed: the PostgreSQL-only code of the audit modules will count as not covered');
  let scores: Array<ModuleScore | { readonly module: string; readonly failed: string }>;
  try {
    scores = modules.map((module) => run(module, force, concurrency, SAFETY_MODULES[module]!.postgres ? databaseUrl : undefined, sample));
  } finally {
    postgres?.stop();
  }
  console.log('\n| module | score | killed | survived | no coverage | ignored (equivalent) | goal |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const s of scores)
    if ('failed' in s) console.log(`| ${s.module} | — | — | — | — | — | not measured: ${s.failed} |`);
    else
      console.log(
        `| ${s.module} | ${s.score === null ? '—' : `${s.score} %`} | ${s.killed} | ${s.survived} | ${s.noCoverage} | ${s.ignored} | ${
          s.score !== null && s.score >= GOAL ? 'met' : `missed (≥ ${GOAL} %)`
        } |`,
      );
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim();
  writeFileSync(
    join(reportsDir, 'scores.json'),
    `${JSON.stringify({ measuredAt: new Date().toISOString(), commit, goal: GOAL, ...(sample ? { sample } : {}), modules: scores }, null, 2)}\n`,
  );
  if (scores.some((s) => 'failed' in s || (s.score !== null && s.score < GOAL))) process.exitCode = 1;
}

if (import.meta.main) main();
