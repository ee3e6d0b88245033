import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

/**
 * Writes scripts/test-durations.json from the last `npm test` run (test-results/vitest.json), so a
 * clean clone starts the longest files first (scripts/test-sequencer.ts). Run it after a full run on
 * a quiet machine; files under a second are left out.
 */
interface VitestJsonReport {
  testResults: { name: string; startTime: number; endTime: number }[];
}

const report = JSON.parse(readFileSync('test-results/vitest.json', 'utf8')) as VitestJsonReport;
const durations = Object.fromEntries(
  report.testResults
    .map((file) => [relative(process.cwd(), file.name), Math.round((file.endTime - file.startTime) / 100) / 10] as const)
    .filter(([, seconds]) => seconds >= 1)
    .sort(([a], [b]) => a.localeCompare(b)),
);
writeFileSync('scripts/test-durations.json', `${JSON.stringify(durations, null, 2)}\n`);
console.log(`scripts/test-durations.json: ${Object.keys(durations).length} files of 1 s or more`);
