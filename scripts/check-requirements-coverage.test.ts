import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { coverageRows } from './requirements-coverage.ts';

// The after-the-run check as `npm test` calls it (`--ran` with vitest's JSON reports), on reports
// made from the repository's own map: every mapped test passed, except those of one requirement,
// which were skipped (as a suite gated on a missing service is).
const root = resolve(import.meta.dirname, '..');
const rows = coverageRows(readFileSync(join(root, 'docs/requirements-coverage.md'), 'utf8')).filter((row) => row.tests.length > 0);
const skippedRow = rows.find((row) => row.id === 'CORE-AUDIT')!;
const dir = mkdtempSync(join(tmpdir(), 'opsgate-coverage-ran-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function report(name: string, skipped: string | undefined): string {
  const testResults = rows.flatMap((row) =>
    row.tests.map((test) => ({
      name: join(root, test.file),
      assertionResults: [{ ancestorTitles: [], title: test.name, status: row.id === skipped ? 'skipped' : 'passed' }],
    })),
  );
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ testResults }));
  return path;
}

function checkRan(reports: readonly string[], ci: boolean) {
  const { CI: _ci, ...environment } = process.env;
  const run = spawnSync(process.execPath, [join(root, 'scripts/check-requirements-coverage.ts'), '--ran', ...reports], {
    cwd: root,
    encoding: 'utf8',
    env: ci ? { ...environment, CI: 'true' } : environment,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('check-requirements-coverage --ran (after the run)', () => {
  it('passes when a mapped test of every requirement passed', () => {
    const ran = checkRan([report('all.json', undefined)], true);
    expect(ran).toMatchObject({ status: 0, stderr: '' });
    expect(ran.stdout).toContain('every mapped requirement had a test pass in this run');
  });

  it('names a requirement whose mapped tests ran only skipped, and fails on it in CI', () => {
    const skipped = report('skipped.json', skippedRow.id);
    const local = checkRan([skipped], false);
    expect(local.status).toBe(0);
    expect(local.stderr).toContain(`no mapped test passed in this run for ${skippedRow.id} (skipped for a missing service, or not run)`);
    const ci = checkRan([skipped], true);
    expect(ci.status).toBe(1);
    expect(ci.stderr).toContain(`no mapped test passed in this run for ${skippedRow.id} (skipped or absent)`);
  });

  it('counts a test that passed in any of the reports (the main run and the coverage-floor run)', () => {
    const onlyPassed = report('passed.json', undefined);
    const skipped = report('skipped-too.json', skippedRow.id);
    expect(checkRan([skipped, onlyPassed], true).status).toBe(0);
  });

  it('refuses to run without a report to read', () => {
    const ran = checkRan([join(dir, 'missing.json')], true);
    expect(ran.status).toBe(2);
    expect(ran.stderr).toContain("--ran needs vitest's JSON reports");
  });
});
