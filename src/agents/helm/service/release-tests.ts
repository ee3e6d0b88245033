import type { ReleaseHook, ReleaseTestResult } from '../backends/types.ts';

/** The chart's `helm test` hooks among a plan's hooks. */
export function testHooks(hooks: readonly ReleaseHook[] | undefined): string[] {
  return (hooks ?? []).filter((hook) => hook.events.includes('test')).map((hook) => hook.key);
}

/** The plan's line about the tests that run after the change (bound with the rest of the plan). */
export function testsRisk(tests: readonly string[], runsTests: boolean): string | undefined {
  if (tests.length === 0) return undefined;
  return runsTests
    ? `after the change, \`helm test\` runs the chart's test hook${tests.length === 1 ? '' : 's'} ${tests.join(', ')}; a failed test leaves the new revision in place and is reported in the answer`
    : `the chart has test hook${tests.length === 1 ? '' : 's'} ${tests.join(', ')}; this backend does not run \`helm test\``;
}

/** One sentence for the answer. */
export function testsSentence(result: ReleaseTestResult): string {
  if (result.passed) return `; helm test passed (${result.suites.map((suite) => suite.name).join(', ')})`;
  const failed = result.suites.filter((suite) => suite.phase !== 'Succeeded').map((suite) => suite.name);
  return `; helm test FAILED${failed.length ? ` (${failed.join(', ')})` : ''}: ${result.detail ?? 'a test did not succeed'}. The new revision stays deployed; read the test pod's logs, then roll back if needed`;
}
