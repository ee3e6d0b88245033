import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTERFACES, layerOf, relativeImports, root, sourceFiles, src } from './source-graph.ts';

/**
 * One test rule (CONTRIBUTING.md, "Where a test goes"). A unit test sits beside the file it tests
 * and starts nothing; a test that starts something, or enters through an interface, or runs the
 * assembled runtime, lives under test/<area>/. Each marker below is one of those reasons.
 */
const STARTS_SOMETHING: ReadonlyArray<readonly [reason: string, pattern: RegExp]> = [
  ['starts a process', /['"]node:child_process['"]|StdioClientTransport|bin\/opsgate|fake-helm\/install-fakes/],
  ['listens on a port', /\.listen\(|\bstartKubeApiStub\(/],
  ['drives Chromium', /['"]playwright-core['"]/],
  ['starts sshd', /support\/sshd\.ts/],
  ['uses PostgreSQL', /testStoreFactories|postgresTestStore|testDatabaseUrl|OPSGATE_TEST_DATABASE_URL|postgres-cluster\.ts/],
  ['runs the assembled runtime (store, policy, audit, turn loop)', /\bcreateRuntime\(/],
  ['reads upstream test data kept under test/<area>/fixtures', /\bfixtures\b|support\/helm-testcharts\.ts/],
];

const read = (file: string) => readFileSync(file, 'utf8');

/** The file and the helpers under test/ it imports, transitively (a harness starts things for its tests). */
function withHelpers(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file) || !existsSync(file)) return [];
  seen.add(file);
  const helpers = relativeImports(file).filter((t) => relative(root, t).startsWith('test/') && !t.endsWith('.test.ts'));
  return [file, ...helpers.flatMap((helper) => withHelpers(helper, seen))];
}

/** Why a test belongs under test/ (empty: it is a unit test and belongs beside its file). */
function reasonsForTestFolder(file: string): string[] {
  const files = withHelpers(file);
  const reasons = STARTS_SOMETHING.filter(([, pattern]) => files.some((f) => pattern.test(read(f)))).map(([reason]) => reason);
  const entered = files.flatMap((f) => relativeImports(f)).filter((t) => (INTERFACES as readonly string[]).includes(layerOf(t)));
  if (entered.length > 0) reasons.push(`enters through ${[...new Set(entered.map(layerOf))].join(', ')}`);
  return reasons;
}

/** What is wrong with a test beside the code (empty when it follows the rule). */
function unitTestProblems(file: string): string[] {
  const problems: string[] = [];
  const base = basename(file).split('.')[0]!;
  if (!['.ts', '.tsx'].some((ext) => existsSync(join(dirname(file), `${base}${ext}`))))
    problems.push(`no ${base}.ts beside it (name a test <file>.test.ts or <file>.<aspect>.test.ts)`);
  if (relativeImports(file).some((t) => relative(root, t).startsWith('test/'))) problems.push('imports a harness from test/');
  for (const [reason, pattern] of STARTS_SOMETHING) if (pattern.test(read(file))) problems.push(`${reason}: belongs under test/`);
  return problems;
}

const tests = (dir: string) => sourceFiles(dir).filter((f) => /\.test\.tsx?$/.test(f));

describe('one test rule', () => {
  it('flags a unit test with no file beside it or that starts something, and a test/ file that needs neither', () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsgate-test-rule-'));
    try {
      writeFileSync(join(dir, 'parser.ts'), 'export const parse = 1;\n');
      writeFileSync(join(dir, 'parser.test.ts'), "import { parse } from './parser.ts';\n");
      writeFileSync(join(dir, 'parser.edge-cases.test.ts'), "import { spawn } from 'node:child_process';\nserver.listen(0);\n");
      writeFileSync(join(dir, 'helpers.test.ts'), '\n');
      expect(unitTestProblems(join(dir, 'parser.test.ts'))).toEqual([]);
      expect(unitTestProblems(join(dir, 'parser.edge-cases.test.ts'))).toEqual([
        'starts a process: belongs under test/',
        'listens on a port: belongs under test/',
      ]);
      expect(unitTestProblems(join(dir, 'helpers.test.ts'))).toEqual([
        'no helpers.ts beside it (name a test <file>.test.ts or <file>.<aspect>.test.ts)',
      ]);
      expect(reasonsForTestFolder(join(dir, 'parser.test.ts'))).toEqual([]);
      expect(reasonsForTestFolder(join(dir, 'parser.edge-cases.test.ts'))).toEqual(['starts a process', 'listens on a port']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every test under src/ sits beside its file and starts nothing', () => {
    const offenders = tests(src).flatMap((f) => unitTestProblems(f).map((p) => `${relative(root, f)}: ${p}`));
    expect(offenders).toEqual([]);
  });

  it('every test under test/ starts something, enters through an interface, runs the runtime or reads the source tree', () => {
    const offenders = tests(join(root, 'test'))
      // The architecture tests read the whole repository; no one file is theirs to sit beside.
      .filter((f) => !relative(root, f).startsWith('test/architecture/'))
      .filter((f) => reasonsForTestFolder(f).length === 0)
      .map((f) => `${relative(root, f)}: a unit test; move it beside the file it tests`);
    expect(offenders).toEqual([]);
  });
});
