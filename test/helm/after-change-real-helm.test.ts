import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanRequest } from '../../src/agents/helm/service/helm-service.ts';
import { type HelmMajor, realHelmBinaries } from '../../src/testing/real-helm-binaries.ts';
import { type RealHelmRig, startRealHelmRig } from './support/real-helm-rig.ts';

const run = promisify(execFile);
const TESTED_CHART = new URL('./charts-extra/tested-1.0.0', import.meta.url).pathname;
/** Generous for a loaded 2-core machine (each real helm/kubectl process costs 0.3–1 s of CPU); not a timed assertion. */
const REAL_BINARY_TIMEOUT_MS = 120_000;

// Day-one features around a change, with the real binaries against the stub API server and one
// chart (test/helm/charts-extra/tested: a ConfigMap and a `helm test` hook Pod):
// - `helm test` after an approved install (review 2026-11-26 §4), on Helm 3.17 and 4.1: their
//   texts differ (a failed test is named on stderr in two wordings). The stub runs bare
//   restartPolicy=Never pods to completion, and fails those named in `failingPods`.
// - the live state behind an upgrade plan (`kubectl edit` drift), on Helm 4.1 only: the drift is
//   read by kubectl and compared by opsgate, so Helm 3 adds nothing but processes.
describe('after an approved change and before the next one, on the real binaries', () => {
  let rig: RealHelmRig;
  const service = (major: HelmMajor) => rig.service(major);
  beforeAll(async () => {
    rig = await startRealHelmRig({
      name: 'after',
      charts: [{ path: TESTED_CHART }],
      stub: { failingPods: ['bad-v3-test-connection', 'bad-v4-test-connection'] },
    });
  }, REAL_BINARY_TIMEOUT_MS);
  afterAll(() => rig?.close());

  describe.each(['v3', 'v4'] as const)('helm test on real Helm %s', (major: HelmMajor) => {
    const install = (release: string): PlanRequest => ({ operation: 'install', release, namespace: 'default', chart: 'tested' });

    it(
      'a passing test: the plan says it will run, the answer says it passed',
      async () => {
        const helm = service(major);
        const plan = await helm.plan(install(`ok-${major}`));
        expect(plan.risks.join('\n')).toContain(`\`helm test\` runs the chart's test hook Pod/ok-${major}-test-connection`);
        const done = await helm.execute(install(`ok-${major}`), plan.planHash);
        expect(done.tests).toEqual({ passed: true, suites: [{ name: `ok-${major}-test-connection`, phase: 'Succeeded' }] });
        expect(done.confirmed).toContain(`helm test passed (ok-${major}-test-connection)`);
      },
      REAL_BINARY_TIMEOUT_MS,
    );

    it(
      'a failing test: the revision stays deployed and the answer names the failed test pod',
      async () => {
        const helm = service(major);
        const plan = await helm.plan(install(`bad-${major}`));
        const done = await helm.execute(install(`bad-${major}`), plan.planHash);
        expect(done.status).toMatchObject({ info: { status: 'deployed' } });
        expect(done.tests).toMatchObject({ passed: false, suites: [{ name: `bad-${major}-test-connection`, phase: 'Failed' }] });
        expect(done.confirmed).toContain(`helm test FAILED (bad-${major}-test-connection)`);
      },
      REAL_BINARY_TIMEOUT_MS,
    );
  });

  it(
    'an upgrade plan lists fields changed behind Helm and deleted objects; its hash does not move with them (Helm 4.1)',
    async () => {
      // The release `ok-v4` was installed by opsgate above (the file's tests run in order).
      const upgrade: PlanRequest = {
        operation: 'upgrade',
        release: 'ok-v4',
        namespace: 'default',
        chart: 'tested',
        values: { greeting: 'hi' },
      };
      const before = await service('v4').plan(upgrade);
      expect(before.liveDrift).toEqual({ checked: 1, drifted: [], missing: [], skipped: [] });
      const kubectl = (args: string[]) =>
        run(realHelmBinaries('v4').kubectl, [...args, '--kubeconfig', rig.kubeconfig], { env: rig.env() });
      // As `kubectl edit` would.
      await kubectl(['patch', 'configmap/ok-v4-config', '-p', '{"data":{"greeting":"edited by hand"}}', '--namespace', 'default']);
      const after = await service('v4').plan(upgrade);
      expect(after.liveDrift?.drifted).toEqual([
        { object: 'ConfigMap/ok-v4-config', changes: [{ path: 'data.greeting', release: 'hello', live: 'edited by hand' }] },
      ]);
      await kubectl(['delete', 'configmap/ok-v4-config', '--namespace', 'default']);
      const gone = await service('v4').plan(upgrade);
      expect(gone.liveDrift).toMatchObject({ drifted: [], missing: ['ConfigMap/ok-v4-config'] });
      expect(new Set([before.planHash, after.planHash, gone.planHash]).size).toBe(1);
    },
    REAL_BINARY_TIMEOUT_MS,
  );
});
