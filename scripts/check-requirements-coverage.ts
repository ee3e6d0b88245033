// Fails when docs/requirements-coverage.md and the agent docs disagree: a requirement that
// docs/agents/*.md declares (its "## Requirements" list) has no row or no test; a row under an
// agent's section names an ID no agent doc declares; or a named test no longer exists. A test is
// named as `path/to/file.test.ts` › test name; the name must appear literally in that file.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkCoverage } from './requirements-coverage.ts';

const root = resolve(import.meta.dirname, '..');
const coveragePath = join(root, 'docs/requirements-coverage.md');
const agentsDir = join(root, 'docs/agents');

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
