import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanRequest } from '../../src/agents/helm/service/helm-service.ts';
import { OpsgateError } from '../../src/core/errors/index.ts';
import type { HelmMajor } from '../../src/testing/real-helm-binaries.ts';
import { type RealHelmRig, startRealHelmRig } from './support/real-helm-rig.ts';

const ROLLOUT_CHART = new URL('./charts-extra/rollout-1.0.0', import.meta.url).pathname;
/** Generous for a loaded 2-core machine; not a timed assertion. */
const REAL_BINARY_TIMEOUT_MS = 120_000;
const VERSIONS = ['v3', 'v4'] as const;

/** The error a change ended with, or undefined when it succeeded. */
const failureOf = (change: Promise<unknown>) =>
  change.then(
    () => undefined,
    (error: unknown) => error,
  );

// Rollback on failure (issue 30, review 2026-11-26 E-items) on Helm 3.17 (`--atomic`) and 4.1
// (`--rollback-on-failure`). The change fails at once rather than by waiting out its `--timeout`
// (30 s per case before): the chart's migration Job may not be created (the stub forbids creating
// Jobs), so Helm's apply fails. Helm's undo is the same whatever failed the change (v3 and v4
// `failRelease`: uninstall, or roll back to the previous revision), so the proof stands: the flag
// reaches Helm, Helm undoes the change, and opsgate says so only after reading the release back.
// (A failed Job is not enough: Helm 3's `--wait` retries a failed Job's error until its timeout.)
describe('rollback on failure, on the real binaries', () => {
  let rig: RealHelmRig;
  beforeAll(async () => {
    rig = await startRealHelmRig({
      name: 'atomic',
      charts: [{ path: ROLLOUT_CHART }],
      stub: { forbid: ['jobs:create', 'jobs:patch'] },
    });
  }, REAL_BINARY_TIMEOUT_MS);
  afterAll(() => rig?.close());

  it.concurrent.each(VERSIONS)(
    'an install whose Job cannot be created is uninstalled by Helm %s, and the answer says so',
    async (major: HelmMajor) => {
      const helm = rig.service(major);
      const install: PlanRequest = {
        operation: 'install',
        release: `stuck-${major}`,
        namespace: 'default',
        chart: 'rollout',
        values: { migrate: true },
        timeoutSeconds: 30,
        rollbackOnFailure: true,
      };
      const plan = await helm.plan(install);
      expect(plan.rollbackOnFailure).toBe(true);
      expect(plan.risks).toContain(`if the install fails or is not ready within 30s, Helm undoes it: uninstalls the release`);
      // The flag is bound: the same request without it is another plan.
      const without = await helm.plan({ ...install, rollbackOnFailure: false });
      expect(without.planHash).not.toBe(plan.planHash);

      const failure = await failureOf(helm.execute(install, plan.planHash));
      expect(OpsgateError.isInstance(failure) && failure.code).toBe('HELM_CHANGE_ROLLED_BACK');
      expect(String((failure as Error).message)).toContain(
        `helm install of stuck-${major} failed and was undone as the plan asked (the release was uninstalled)`,
      );
      await expect(helm.detectScenario(`stuck-${major}`, 'default')).resolves.toMatchObject({ scenario: 'INSTALL' });
      expect(rig.stub.object('apps/v1', 'Deployment', 'default', `stuck-${major}-web`)).toBeUndefined();
    },
    REAL_BINARY_TIMEOUT_MS,
  );

  it.concurrent.each(VERSIONS)(
    'an upgrade whose Job cannot be created is rolled back by Helm %s to the running revision, and the answer says so',
    async (major: HelmMajor) => {
      const helm = rig.service(major);
      const release = `up-${major}`;
      const install: PlanRequest = { operation: 'install', release, namespace: 'default', chart: 'rollout' };
      await helm.execute(install, (await helm.plan(install)).planHash);

      const upgrade: PlanRequest = {
        operation: 'upgrade',
        release,
        namespace: 'default',
        chart: 'rollout',
        values: { migrate: true, image: 'registry.example/web:2.0' },
        timeoutSeconds: 30,
        rollbackOnFailure: true,
      };
      const plan = await helm.plan(upgrade);
      expect(plan.risks).toContain(`if the upgrade fails or is not ready within 30s, Helm undoes it: rolls back to revision 1`);

      const failure = await failureOf(helm.execute(upgrade, plan.planHash));
      expect(OpsgateError.isInstance(failure) && failure.code).toBe('HELM_CHANGE_ROLLED_BACK');
      expect(String((failure as Error).message)).toContain(
        `helm upgrade of ${release} failed and was undone as the plan asked (rolled back to revision 1, now revision 3)`,
      );
      const history = await helm.backend.history(release, 'default');
      expect(history.map((revision) => [revision.revision, revision.status])).toEqual([
        [1, 'superseded'],
        [2, 'failed'],
        [3, 'deployed'],
      ]);
      expect(rig.stub.object('apps/v1', 'Deployment', 'default', `${release}-web`)).toMatchObject({
        spec: { template: { spec: { containers: [{ image: 'registry.example/web:1.0' }] } } },
      });
      expect(rig.stub.object('batch/v1', 'Job', 'default', `${release}-migrate`)).toBeUndefined();
    },
    REAL_BINARY_TIMEOUT_MS,
  );
});
