// Fails when docs/requirements-coverage.md leaves a requirement of ../shared/specs without a test,
// or names a test that no longer exists. A test is named as `path/to/file.test.ts` › test name;
// the name must appear literally in that file (as written in its it()/test() call).
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const docPath = join(root, 'docs/requirements-coverage.md');

/** Every requirement of the four specs, by the IDs the coverage document uses. */
export const REQUIRED_IDS = [
  '3_MCP-RISK-202',
  ...['1', '2', '3', '4', '5', '6'].map((n) => `SANDBOX-${n}`),
  ...Array.from({ length: 21 }, (_, i) => `AR-${String(i + 1).padStart(2, '0')}`),
  'ACCESS-TOOL-1',
  'ACCESS-TOOL-2',
  'ACCESS-TOOL-3',
  'ACCESS-FLOW-1',
  'ACCESS-FLOW-2',
  'ACCESS-FLOW-3',
  'ACCESS-AUTH',
  'ACCESS-HTTP-ERRORS',
  'ACCESS-NETWORK-ERRORS',
  'ACCESS-VALIDATION',
  'ACCESS-RESILIENCE',
  'HELM-2',
  'HELM-2.1',
  'HELM-3.1',
  'HELM-3.2',
  'HELM-3.3',
  'HELM-3.4',
  'HELM-3.5',
  'HELM-4.1',
  'HELM-4.2',
  'HELM-4.3',
  'HELM-5',
  'HELM-6',
];

interface Row {
  id: string;
  tests: Array<{ file: string; name: string }>;
}

function parseRows(markdown: string): Row[] {
  const rows: Row[] = [];
  for (const line of markdown.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4) continue;
    const id = cells[1]!.replace(/\*/g, '');
    if (!/^[A-Z0-9_][A-Z0-9_.-]*$/i.test(id) || id === 'ID' || /^-+$/.test(id)) continue;
    const testCell = cells[cells.length - 2]!;
    const tests = testCell
      .split(/<br\s*\/?>/)
      // A `*-cases.ts` module defines tests that several test files run (one per backend).
      .map((entry) => /`([^`]+(?:\.test|-cases)\.ts)`\s*›\s*(.+)$/.exec(entry.trim()))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ file: m[1]!, name: m[2]!.trim().replace(/^"|"$/g, '') }));
    rows.push({ id, tests });
  }
  return rows;
}

const problems: string[] = [];
if (!existsSync(docPath)) {
  problems.push('docs/requirements-coverage.md is missing');
} else {
  const rows = parseRows(readFileSync(docPath, 'utf8'));
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const id of REQUIRED_IDS) {
    const row = byId.get(id);
    if (!row) problems.push(`${id}: not listed`);
    else if (row.tests.length === 0) problems.push(`${id}: no test named`);
  }
  let checked = 0;
  for (const row of rows) {
    for (const test of row.tests) {
      const path = join(root, test.file);
      if (!existsSync(path)) {
        problems.push(`${row.id}: ${test.file} does not exist`);
        continue;
      }
      if (!readFileSync(path, 'utf8').includes(test.name)) problems.push(`${row.id}: "${test.name}" is not in ${test.file}`);
      checked += 1;
    }
  }
  if (problems.length === 0) console.log(`requirements coverage OK: ${REQUIRED_IDS.length} requirements, ${checked} test references`);
}
if (problems.length > 0) {
  console.error(`requirements coverage is broken:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
