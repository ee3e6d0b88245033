// Fails when docs/requirements-coverage.md and the agent docs disagree: a requirement that
// docs/agents/*.md declares (its "## Requirements" list) has no row or no test; a row under an
// agent's section names an ID no agent doc declares; or a named test no longer exists. A test is
// named as `path/to/file.test.ts` › test name; the name must be (part of) the title of an `it`,
// `test` or `describe` in that file that is not `.skip` or `.todo`.
//
// With `--ran test-results/vitest.json [more reports]` (after the run: `npm test` runs vitest twice,
// the second time for the coverage floors) it lists the requirements none of whose tests passed in
// those runs (skipped for a missing service, or absent), and fails on any when CI is set.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { checkCoverage, type RanTest, requirementsNotRun } from './requirements-coverage.ts';

const root = resolve(import.meta.dirname, '..');
const coveragePath = join(root, 'docs/requirements-coverage.md');
const agentsDir = join(root, 'docs/agents');

const ranIndex = process.argv.indexOf('--ran');
if (ranIndex !== -1) {
  const reportPaths = process.argv.slice(ranIndex + 1);
  const missing = reportPaths.find((path) => !existsSync(path));
  if (reportPaths.length === 0 || missing !== undefined) {
    console.error(`--ran needs vitest's JSON reports (vitest --reporter=json --outputFile=FILE); got ${missing ?? 'nothing'}`);
    process.exit(2);
  }
  checkRan(reportPaths);
  process.exit(0);
}

function checkRan(reportPaths: readonly string[]): void {
  const ran: RanTest[] = reportPaths.flatMap((reportPath) => {
    const report = JSON.parse(readFileSync(reportPath, 'utf8')) as {
      testResults: { name: string; assertionResults: { ancestorTitles: string[]; title: string; status: string }[] }[];
    };
    return report.testResults.flatMap((file) =>
      file.assertionResults.map((test) => ({
        file: relative(root, file.name),
        titles: [...test.ancestorTitles, test.title],
        status: test.status,
      })),
    );
  });
  const notRun = requirementsNotRun(readFileSync(coveragePath, 'utf8'), ran);
  if (notRun.length === 0) {
    console.log('requirements coverage: every mapped requirement had a test pass in this run');
    return;
  }
  const list = notRun.join(', ');
  if (process.env.CI) {
    console.error(
      `requirements coverage: no mapped test passed in this run for ${list} (skipped or absent); CI runs every service, so this is a failure`,
    );
    process.exit(1);
  }
  console.warn(
    `requirements coverage: no mapped test passed in this run for ${list} (skipped for a missing service, or not run); CI fails on this`,
  );
}

const problems: string[] = [];
if (!existsSync(coveragePath)) problems.push('docs/requirements-coverage.md is missing');
if (!existsSync(agentsDir)) problems.push('docs/agents is missing');
if (problems.length === 0) {
  const agentDocs = readdirSync(agentsDir)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => ({ path: `docs/agents/${name}`, markdown: readFileSync(join(agentsDir, name), 'utf8') }));
  const report = checkCoverage({
    agentDocs,
    coverage: readFileSync(coveragePath, 'utf8'),
    readTestFile: (file) => {
      const path = join(root, file);
      return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    },
  });
  problems.push(...report.problems);
  if (problems.length === 0)
    console.log(
      `requirements coverage OK: ${report.requirements} requirements declared in docs/agents, ${report.testReferences} test references`,
    );
}
if (problems.length > 0) {
  console.error(`requirements coverage is broken:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
