import { describe, expect, it } from 'vitest';
import { failedTestPods, parseHelmTestOutput } from './parse-test-output.ts';

// Captured from the real Helm 3.17.2 and 4.1.4 (`helm test`) against src/testing/kube-api-stub,
// chart test/helm/charts-extra/tested-1.0.0; the failing run with the stub's `failingPods`.
const HELM4_PASSED = `NAME: ok4
LAST DEPLOYED: Fri Nov 27 05:19:55 2026
NAMESPACE: default
STATUS: deployed
REVISION: 1
DESCRIPTION: Install complete
TEST SUITE:     ok4-test-connection
Last Started:   Fri Nov 27 05:19:56 2026
Last Completed: Fri Nov 27 05:19:56 2026
Phase:          Succeeded
`;

describe('helm test output', () => {
  it('reads each test suite and its phase', () => {
    expect(parseHelmTestOutput(HELM4_PASSED)).toEqual({ passed: true, suites: [{ name: 'ok4-test-connection', phase: 'Succeeded' }] });
    expect(parseHelmTestOutput(HELM4_PASSED.replace('Succeeded', 'Failed')).passed).toBe(false);
  });

  it('names the failed pods from either version', () => {
    expect(failedTestPods('Error: 1 error occurred:\n\t* pod bad3-test-connection failed\n')).toEqual(['bad3-test-connection']);
    expect(
      failedTestPods(
        'Error: resource Pod/default/bad4-test-connection not ready. status: Failed, message: pod bad4-test-connection failed',
      ),
    ).toEqual(['bad4-test-connection']);
  });
});
