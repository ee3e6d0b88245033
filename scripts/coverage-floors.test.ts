import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// SANDBOX-4's floor (≥ 90 % branch coverage on the bridge and the registry) is enforced by the
// coverage run in scripts/test.sh, not by a test: this pins that run's settings, so the floor
// cannot be lowered, made an average over the files again, or lose a file without a red test.
const testScript = readFileSync(join(resolve(import.meta.dirname, '..'), 'scripts/test.sh'), 'utf8');
const coverageRun = testScript.split('\n').reduce<{ lines: string[]; open: boolean }>(
  (run, line) => {
    const starts = line.includes('--outputFile.json=test-results/vitest-coverage-floors.json');
    const open = starts || (run.open && run.lines.at(-1)!.trimEnd().endsWith('\\'));
    return open ? { lines: [...run.lines, line], open: true } : { ...run, open: false };
  },
  { lines: [], open: false },
).lines;
const options = coverageRun.join(' ').split(/\s+/);

describe('the SANDBOX-4 coverage floor in npm test', () => {
  it('holds each file on its own at 90 % of branches', () => {
    expect(coverageRun.length).toBeGreaterThan(0);
    expect(options).toContain('--coverage');
    expect(options).toContain('--coverage.thresholds.branches=90');
    expect(options).toContain('--coverage.thresholds.perFile=true');
  });

  it('measures the sandbox bridge and the tool registry, with the suites that cover them', () => {
    expect(options).toContain('--coverage.include=src/agents/sandbox/bridge/db-bridge.ts');
    expect(options).toContain('--coverage.include=src/core/tools/tool-registry.ts');
    const suites = /coverage_floor_suites=\(([^)]*)\)/.exec(testScript)?.[1]?.split(/\s+/) ?? [];
    expect(suites).toContain('src/core/tools/');
    expect(suites).toContain('src/agents/sandbox/bridge/orchestrator.state-pollution.test.ts');
    expect(options).toContain('"${coverage_floor_suites[@]}"');
  });
});
