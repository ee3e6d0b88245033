import type { ReleaseTestResult } from '../types.ts';

/**
 * `helm test` prints the release, then per test hook `TEST SUITE: NAME` … `Phase: PHASE` (text
 * only, Helm 3 and 4 alike: pkg/cli/output of `helm status` with hooks). A failed run exits 1 and
 * names the failed pods on stderr: Helm 3.17 `* pod NAME failed`, Helm 4.1 `resource Pod/NS/NAME
 * not ready. status: Failed`.
 */
export function parseHelmTestOutput(stdout: string): ReleaseTestResult {
  const suites = [...stdout.matchAll(/^TEST SUITE:\s+(\S+)[\s\S]*?^Phase:\s+(\S+)/gm)].map((match) => ({
    name: match[1]!,
    phase: match[2]!,
  }));
  return { passed: suites.every((suite) => suite.phase === 'Succeeded'), suites };
}

/** The failed test pods a failed `helm test` names on stderr. */
export function failedTestPods(stderr: string): string[] {
  return [
    ...new Set([...stderr.matchAll(/pod (\S+) failed|resource Pod\/[^/\s]+\/(\S+) not ready/g)].map((match) => match[1] ?? match[2]!)),
  ];
}
