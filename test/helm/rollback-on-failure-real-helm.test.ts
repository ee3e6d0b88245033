import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanRequest } from '../../src/agents/helm/service/helm-service.ts';
import { OpsgateError } from '../../src/core/errors/index.ts';
import type { HelmMajor } from '../../src/testing/real-helm-binaries.ts';
import { type RealHelmRig, startRealHelmRig } from './support/real-helm-rig.ts';

const ROLLOUT_CHART = new URL('./charts-extra/rollout-1.0.0', import.meta.url).pathname;
/** Generous for a loaded 2-core machine: Helm waits out the 30 s `--timeout` first; not a timed assertion. */
const REAL_BINARY_TIMEOUT_MS = 120_000;
/** The stub's workloads become ready this long after a change: far past any `--timeout` here, so never. */
const NEVER_READY_MS = 3_600_000;

// Rollback on failure (issue 30, review 2026-11-26 E-items) on Helm 3.17 (`--atomic`) and 4.1
// (`--rollback-on-failure`): a Deployment that never becomes ready within the change's 30 s
// `--timeout` fails the install, and Helm uninstalls it. The two versions run concurrently, each
// waiting out its own timeout, so the file costs one timeout of wall time.
describe('rollback on failure, on the real binaries', () => {
  let rig: RealHelmRig;
  beforeAll(async () => {
    rig = await startRealHelmRig({ name: 'atomic', charts: [{ path: ROLLOUT_CHART }], stub: { rolloutDelayMs: NEVER_READY_MS } });
  }, REAL_BINARY_TIMEOUT_MS);
  afterAll(() => rig?.close());

  it.concurrent.each(['v3', 'v4'] as const)(
    'an install that never becomes ready within its timeout is uninstalled by Helm %s, and the answer says so',
    async (major: HelmMajor) => {
      const helm = rig.service(major);
      const install: PlanRequest = {
        operation: 'install',
        release: `stuck-${major}`,
        namespace: 'default',
        chart: 'rollout',
        timeoutSeconds: 30,
        rollbackOnFailure: true,
      };
      const plan = await helm.plan(install);
      expect(plan.rollbackOnFailure).toBe(true);
      expect(plan.risks).toContain(`if the install fails or is not ready within 30s, Helm undoes it: uninstalls the release`);
      // The flag is bound: the same request without it is another plan.
      const without = await helm.plan({ ...install, rollbackOnFailure: false });
      expect(without.planHash).not.toBe(plan.planHash);

      const failure = await helm.execute(install, plan.planHash).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(OpsgateError.isInstance(failure) && failure.code).toBe('HELM_CHANGE_ROLLED_BACK');
      expect(String((failure as Error).message)).toContain(
        `helm install of stuck-${major} failed and was undone as the plan asked (the release was uninstalled)`,
      );
      await expect(helm.detectScenario(`stuck-${major}`, 'default')).resolves.toMatchObject({ scenario: 'INSTALL' });
      expect(rig.stub.object('apps/v1', 'Deployment', 'default', `stuck-${major}-web`)).toBeUndefined();
    },
    REAL_BINARY_TIMEOUT_MS,
  );
});
