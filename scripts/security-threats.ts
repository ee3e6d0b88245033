// docs/security.md lists each threat with the test that proves it. This reads its threat tables
// (a table whose first header cell is "threat") and checks that every row names at least one
// test as `` `path/to/file.test.ts` › title `` (several joined by <br>), and that each named title
// is an it(), test() or describe() in that file that runs. scripts/security-threats.test.ts runs it.
import { declaredTitles, namesTitle } from './test-titles.ts';

/** Stands for a `\|` inside a cell while the row is split at its borders. */
const ESCAPED_BAR = '\uE000';

export interface ThreatRow {
  readonly threat: string;
  readonly tests: ReadonlyArray<{ readonly file: string; readonly name: string }>;
}

export function threatRows(markdown: string): ThreatRow[] {
  const rows: ThreatRow[] = [];
  let inThreatTable = false;
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) {
      inThreatTable = false;
      continue;
    }
    // A literal `\|` inside a cell is not a column border.
    const cells = line
      .replace(/\\\|/g, ESCAPED_BAR)
      .split('|')
      .map((cell) => cell.trim().replaceAll(ESCAPED_BAR, '|'));
    if (cells[1]?.toLowerCase() === 'threat') {
      inThreatTable = true;
      continue;
    }
    if (!inThreatTable || /^-+$/.test(cells[1] ?? '')) continue;
    const tests = (cells[cells.length - 2] ?? '')
      .split(/<br\s*\/?>/)
      .map((entry) => /`([^`]+\.test\.ts)`\s*›\s*(.+)/.exec(entry.trim()))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => ({ file: match[1]!, name: match[2]!.trim() }));
    rows.push({ threat: cells[1] ?? '', tests });
  }
  return rows;
}

export function threatTestProblems(markdown: string, readTestFile: (file: string) => string | undefined): string[] {
  const problems: string[] = [];
  const rows = threatRows(markdown);
  if (rows.length === 0) problems.push('no threat table (a table whose first column is "threat") was found');
  for (const row of rows) {
    if (row.tests.length === 0) problems.push(`"${row.threat}": names no test as \`file.test.ts\` › title`);
    for (const test of row.tests) {
      const text = readTestFile(test.file);
      if (text === undefined) problems.push(`"${row.threat}": ${test.file} does not exist`);
      else if (!namesTitle(test.name, declaredTitles(text).runnable))
        problems.push(`"${row.threat}": no running it(), test() or describe() in ${test.file} is titled "${test.name}"`);
    }
  }
  return problems;
}
