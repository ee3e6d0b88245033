import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agents } from '../src/agents/index.ts';
import { checkCoverage, coverageRows, declaredRequirements, type RanTest, requirementsNotRun } from './requirements-coverage.ts';
import { declaredTitles } from './test-titles.ts';

const AGENT_DOC = `# The demo agent

Mentions **AR-99** here, which declares nothing.

## Requirements

- **DEMO-1** — *First.* Text.
  - **DEMO-NESTED** an indented item is part of DEMO-1, not a declaration.
- **DEMO-2** — *Second.*

### A sub-heading stays in the section

- **DEMO-3** — *Third.*

## Risk

- **DEMO-4** — listed under another section: not a requirement.
`;

const COVERAGE = `# Requirements coverage

## Demo ([agents/demo.md](agents/demo.md))

| ID | requirement | tests |
| --- | --- | --- |
| DEMO-1 | first | \`test/a.test.ts\` › does the first thing |
| DEMO-2 | second | \`test/a.test.ts\` › does the second thing<br>\`test/b-cases.ts\` › shared case |
| DEMO-3 | third | \`test/a.test.ts\` › does the third thing |

## Core invariants ([architecture.md](architecture.md))

| ID | requirement | tests |
| --- | --- | --- |
| CORE-X | not an agent requirement | \`test/a.test.ts\` › does the first thing |
`;

const FILES: Record<string, string> = {
  'test/a.test.ts': "it('does the first thing'); it('does the second thing'); it('does the third thing');",
  'test/b-cases.ts': "it('shared case');",
};

function check(coverage: string, docs = [{ path: 'docs/agents/demo.md', markdown: AGENT_DOC }]) {
  return checkCoverage({ agentDocs: docs, coverage, readTestFile: (file) => FILES[file] }).problems;
}

describe('declaredRequirements', () => {
  it('reads the bold IDs that start top-level items of the Requirements section, through its sub-headings', () => {
    expect(declaredRequirements(AGENT_DOC)).toEqual(['DEMO-1', 'DEMO-2', 'DEMO-3']);
  });

  it('finds none in a page without a Requirements section, nor in a fenced template', () => {
    expect(declaredRequirements('# How to add an agent\n\n- **Step 1** copy a folder\n')).toEqual([]);
    const template = '# New agent\n\n```md\n## Requirements\n\n- **MINE-1** — what it promises\n```\n';
    expect(declaredRequirements(template)).toEqual([]);
  });
});

describe('coverageRows', () => {
  it('knows which rows sit under an agent page and which tests they name', () => {
    const rows = coverageRows(COVERAGE);
    expect(rows.map((r) => [r.id, r.agentSection])).toEqual([
      ['DEMO-1', true],
      ['DEMO-2', true],
      ['DEMO-3', true],
      ['CORE-X', false],
    ]);
    expect(rows[1]!.tests).toEqual([
      { file: 'test/a.test.ts', name: 'does the second thing' },
      { file: 'test/b-cases.ts', name: 'shared case' },
    ]);
  });
});

describe('checkCoverage', () => {
  it('accepts docs and rows that agree', () => {
    expect(check(COVERAGE)).toEqual([]);
  });

  it('fails when a declared requirement has no row, or a row with no test', () => {
    expect(check(COVERAGE.replace(/^\| DEMO-3 .*$/m, ''))).toEqual([
      'DEMO-3 (docs/agents/demo.md): no row in docs/requirements-coverage.md',
    ]);
    expect(check(COVERAGE.replace('`test/a.test.ts` › does the third thing', 'none yet'))).toEqual([
      'DEMO-3 (docs/agents/demo.md): its row names no test',
    ]);
  });

  it("fails when a row in an agent's section names an ID no agent page declares, but not elsewhere", () => {
    const extra = COVERAGE.replace('| DEMO-3 |', '| DEMO-9 | made up | `test/a.test.ts` › does the first thing |\n| DEMO-3 |');
    expect(check(extra)).toEqual(['DEMO-9: listed under "Demo ([agents/demo.md](agents/demo.md))" but no docs/agents/*.md declares it']);
    expect(check(COVERAGE)).not.toContainEqual(expect.stringContaining('CORE-X'));
  });

  it('fails on an ID with two rows, a missing test file and a test that is gone', () => {
    const twice = `${COVERAGE}| DEMO-1 | again | \`test/a.test.ts\` › does the first thing |\n`;
    expect(check(twice)).toEqual(['DEMO-1: 2 rows; keep one']);
    expect(check(COVERAGE.replace('test/b-cases.ts', 'test/gone-cases.ts'))).toEqual(['DEMO-2: test/gone-cases.ts does not exist']);
    expect(check(COVERAGE.replace('does the first thing |\n| DEMO-2', 'does a renamed thing |\n| DEMO-2'))).toEqual([
      'DEMO-1: no it(), test() or describe() in test/a.test.ts is titled "does a renamed thing"',
    ]);
  });

  it('counts a name only in the title of a test that runs: not in a comment, a string elsewhere, .skip or .todo', () => {
    const files: Record<string, string> = {
      ...FILES,
      'test/a.test.ts': [
        "// it('does the first thing')",
        "it.skip('does the second thing', () => {});",
        "const label = 'does the third thing';",
      ].join('\n'),
    };
    const problems = checkCoverage({
      agentDocs: [{ path: 'docs/agents/demo.md', markdown: AGENT_DOC }],
      coverage: COVERAGE,
      readTestFile: (file) => files[file],
    }).problems;
    expect(problems).toEqual([
      'DEMO-1: no it(), test() or describe() in test/a.test.ts is titled "does the first thing"',
      'DEMO-2: "does the second thing" in test/a.test.ts is declared with .skip or .todo and never runs',
      'DEMO-3: no it(), test() or describe() in test/a.test.ts is titled "does the third thing"',
      'CORE-X: no it(), test() or describe() in test/a.test.ts is titled "does the first thing"',
    ]);
  });

  it('fails on a reference that names a file and no test', () => {
    expect(check(COVERAGE.replace('`test/a.test.ts` › does the third thing', '`test/a.test.ts`'))).toEqual([
      "DEMO-3: test/a.test.ts is named without a test; write `test/a.test.ts` › the test's title",
    ]);
  });

  it('fails when no agent page declares anything, or one declares an ID twice', () => {
    expect(check(COVERAGE, [])).toContainEqual(expect.stringContaining('no agent doc declares a requirement'));
    const twice = AGENT_DOC.replace('- **DEMO-2**', '- **DEMO-1** again\n- **DEMO-2**');
    expect(check(COVERAGE, [{ path: 'docs/agents/demo.md', markdown: twice }])).toEqual(['DEMO-1: declared twice in docs/agents/demo.md']);
  });
});

describe('requirementsNotRun', () => {
  const passed = (file: string, ...titles: string[]): RanTest => ({ file, titles, status: 'passed' });
  it('names the requirements none of whose mapped tests passed in the run', () => {
    const ran = [
      passed('test/a.test.ts', 'a suite', 'does the first thing'),
      { file: 'test/a.test.ts', titles: ['does the second thing'], status: 'skipped' },
      passed('test/other.test.ts', 'shared case'),
    ];
    expect(requirementsNotRun(COVERAGE, ran)).toEqual(['DEMO-3']);
  });

  it('matches each-table and template titles as patterns', () => {
    const coverage = '| DEMO-1 | x | `test/a.test.ts` › ${count} clients on %s |\n';
    expect(requirementsNotRun(coverage, [passed('test/a.test.ts', '64 clients on postgres')])).toEqual([]);
    expect(requirementsNotRun(coverage, [passed('test/a.test.ts', '64 servers on postgres')])).toEqual(['DEMO-1']);
  });
});

describe('declaredTitles', () => {
  it('reads titles through .each, .skipIf and .concurrent, apart from .skip and .todo, ignoring comments and regex literals', () => {
    const source = [
      "describe.skipIf(!url)('on PostgreSQL', () => {",
      "  it.each([['a', 1]])('case %s', (name) => { expect(name).toMatch(/it\\('x'/); });",
      "  it.concurrent('runs \\'quoted\\' things', async () => {});",
      "  /* it('commented out') */",
      "  test.todo('later');",
      "  it.skip('parked', () => {});",
      "  workflowIt?.('through a local alias', async () => {});",
      '});',
    ].join('\n');
    expect(declaredTitles(source)).toEqual({
      runnable: ['on PostgreSQL', 'case %s', "runs \\'quoted\\' things", "runs 'quoted' things", 'through a local alias'],
      skipped: ['later', 'parked'],
    });
  });
});

describe("the repository's own docs", () => {
  const root = resolve(import.meta.dirname, '..');
  const agentsDir = join(root, 'docs/agents');
  const agentDocs = readdirSync(agentsDir)
    .filter((name) => name.endsWith('.md'))
    .map((name) => ({ path: `docs/agents/${name}`, markdown: readFileSync(join(agentsDir, name), 'utf8') }));
  const coverage = readFileSync(join(root, 'docs/requirements-coverage.md'), 'utf8');

  it('each agent registered in src/agents/index.ts declares its requirements, and every agent section of the coverage links its page', () => {
    for (const agent of agents.map((a) => a.name)) {
      const doc = agentDocs.find((d) => d.path === `docs/agents/${agent}.md`);
      expect(doc && declaredRequirements(doc.markdown).length, agent).toBeGreaterThan(0);
      expect(coverage, agent).toMatch(new RegExp(`^## .*\\(agents/${agent}\\.md\\)`, 'm'));
    }
  });

  it('agree with docs/requirements-coverage.md', () => {
    const report = checkCoverage({
      agentDocs,
      coverage,
      readTestFile: (file) => (existsSync(join(root, file)) ? readFileSync(join(root, file), 'utf8') : undefined),
    });
    expect(report.problems).toEqual([]);
  });
});
