// Reading the requirement IDs the agent docs declare and the rows of docs/requirements-coverage.md,
// and what is wrong between them. Pure functions over text; check-requirements-coverage.ts reads
// the files and prints the result.
import { declaredTitles, namesTitle, titlePattern } from './test-titles.ts';

/** A requirement ID: `AR-01`, `HELM-3.2`, `3_MCP-RISK-202`. */
const ID = /^[A-Z0-9][A-Z0-9_.-]*$/i;
/** A declared requirement: a top-level list item that starts with the ID in bold, `- **AR-01** — …`. */
const DECLARATION = /^- \*\*([^*\s]+)\*\*/;

/**
 * The requirement IDs an agent doc declares: the list items of its `## Requirements` section (up to
 * the next `## ` heading) that start with a bold ID. Other sections, and fenced code blocks (a
 * template in docs/agents/new-agent.md), may mention IDs freely.
 */
export function declaredRequirements(markdown: string): string[] {
  const ids: string[] = [];
  let inRequirements = false;
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence) continue;
    if (/^## /.test(line)) inRequirements = /^## Requirements\s*$/.test(line);
    if (!inRequirements) continue;
    const id = DECLARATION.exec(line)?.[1];
    if (id && ID.test(id)) ids.push(id);
  }
  return ids;
}

export interface TestReference {
  readonly file: string;
  readonly name: string;
}

export interface CoverageRow {
  readonly id: string;
  /** The `## ` heading the row is under. */
  readonly section: string;
  /** True when that heading links an agent doc (`docs/agents/…`): its IDs must be declared there. */
  readonly agentSection: boolean;
  readonly tests: readonly TestReference[];
}

/** The rows of the coverage document: `| ID | requirement | tests |`, tests as `` `file` › name `` joined by `<br>`. */
export function coverageRows(markdown: string): CoverageRow[] {
  const rows: CoverageRow[] = [];
  let section = '';
  for (const line of markdown.split('\n')) {
    if (/^## /.test(line)) {
      section = line.slice(3).trim();
      continue;
    }
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4) continue;
    const id = cells[1]!.replace(/\*/g, '');
    if (!ID.test(id) || id === 'ID') continue;
    const tests = cells[cells.length - 2]!.split(/<br\s*\/?>/)
      // A `*-cases.ts` module defines tests that several test files run (one per backend).
      .map((entry) => /`([^`]+(?:\.test|-cases)\.ts)`(?:\s*›\s*(.+))?/.exec(entry.trim()))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ file: m[1]!, name: (m[2] ?? '').trim().replace(/^"|"$/g, '') }));
    rows.push({ id, section, agentSection: /\bagents\/[a-z0-9-]+\.md\b/.test(section), tests });
  }
  return rows;
}

export interface CoverageInput {
  /** Each agent doc's path and text. */
  readonly agentDocs: ReadonlyArray<{ readonly path: string; readonly markdown: string }>;
  readonly coverage: string;
  /** The text of a test file named by a row, or undefined when it does not exist. */
  readonly readTestFile: (file: string) => string | undefined;
}

export interface CoverageReport {
  readonly problems: string[];
  readonly requirements: number;
  readonly testReferences: number;
}

/**
 * What is wrong: an ID an agent doc declares with no row or no test; a row in an agent section
 * naming an ID no agent doc declares; an ID with two rows; a named test file that does not exist; a
 * reference that names no test, or a name that is not the title (or part of the title) of a test or
 * suite that runs in that file: a comment, a `.skip` or a `.todo` does not count.
 */
export function checkCoverage(input: CoverageInput): CoverageReport {
  const problems: string[] = [];
  const declared = new Map<string, string>();
  for (const doc of input.agentDocs) {
    const seen = new Set<string>();
    for (const id of declaredRequirements(doc.markdown)) {
      if (seen.has(id)) problems.push(`${id}: declared twice in ${doc.path}`);
      seen.add(id);
      if (!declared.has(id)) declared.set(id, doc.path);
    }
  }
  if (declared.size === 0) problems.push('no agent doc declares a requirement (a "## Requirements" list of "- **ID** …" items)');
  const rows = coverageRows(input.coverage);
  const rowsById = new Map<string, CoverageRow[]>();
  for (const row of rows) rowsById.set(row.id, [...(rowsById.get(row.id) ?? []), row]);
  for (const [id, path] of declared) {
    const found = rowsById.get(id);
    if (!found) problems.push(`${id} (${path}): no row in docs/requirements-coverage.md`);
    else if (found.every((row) => row.tests.length === 0)) problems.push(`${id} (${path}): its row names no test`);
  }
  for (const [id, found] of rowsById) if (found.length > 1) problems.push(`${id}: ${found.length} rows; keep one`);
  for (const row of rows) {
    if (row.agentSection && !declared.has(row.id))
      problems.push(`${row.id}: listed under "${row.section}" but no docs/agents/*.md declares it`);
  }
  let testReferences = 0;
  for (const row of rows) {
    for (const test of row.tests) {
      const text = input.readTestFile(test.file);
      if (text === undefined) {
        problems.push(`${row.id}: ${test.file} does not exist`);
        continue;
      }
      testReferences += 1;
      if (test.name === '') {
        problems.push(`${row.id}: ${test.file} is named without a test; write \`${test.file}\` › the test's title`);
        continue;
      }
      const titles = declaredTitles(text);
      if (namesTitle(test.name, titles.runnable)) continue;
      if (namesTitle(test.name, titles.skipped))
        problems.push(`${row.id}: "${test.name}" in ${test.file} is declared with .skip or .todo and never runs`);
      else problems.push(`${row.id}: no it(), test() or describe() in ${test.file} is titled "${test.name}"`);
    }
  }
  return { problems, requirements: declared.size, testReferences };
}

/** One test as vitest's JSON reporter lists it. */
export interface RanTest {
  /** The test file's path, relative to the repository. */
  readonly file: string;
  readonly titles: readonly string[];
  readonly status: string;
}

/** True when a reference's name is part of the title, or the title is an instance of the reference's `each` pattern. */
function referenceNames(name: string, title: string): boolean {
  return title.includes(name) || (/%|\$/.test(name) && titlePattern(name).test(title));
}

/**
 * The requirements none of whose named tests ran: each of them was skipped (a `skipIf` on a
 * missing service) or is absent from the run. A `*-cases.ts` reference counts for any file.
 */
export function requirementsNotRun(coverage: string, ran: readonly RanTest[]): string[] {
  const notRun: string[] = [];
  for (const row of coverageRows(coverage)) {
    if (row.tests.length === 0) continue;
    const someRan = row.tests.some((reference) =>
      ran.some(
        (test) =>
          test.status === 'passed' &&
          (reference.file.endsWith('-cases.ts') || test.file === reference.file) &&
          test.titles.some((title) => referenceNames(reference.name, title)),
      ),
    );
    if (!someRan) notRun.push(row.id);
  }
  return notRun;
}
