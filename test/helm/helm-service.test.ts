import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { helmSimulatorMigrations } from '../../src/agents/helm/backends/simulator/migration.ts';
import { SimulatedCluster } from '../../src/agents/helm/backends/simulator/simulated-cluster.ts';
import { ChartRepository } from '../../src/agents/helm/charts/chart-repository.ts';
import { HelmService } from '../../src/agents/helm/service/helm-service.ts';
import { type TestStore, testStoreFactories } from '../../src/testing/test-stores.ts';

describe.each(testStoreFactories())('HelmService on the simulated cluster ($dialect)', (factory) => {
  let testStore: TestStore;
  let cluster: SimulatedCluster;
  let service: HelmService;
  beforeEach(async () => {
    testStore = await factory.create([...helmSimulatorMigrations]);
    cluster = new SimulatedCluster(testStore.store);
    service = new HelmService(cluster, await ChartRepository.open(), { sleep: async () => {} });
  });
  afterEach(async () => testStore.dispose());

  it('refuses to execute a plan whose hash is not the approved one', async () => {
    const request = { operation: 'install' as const, release: 'web', namespace: 'default', chart: 'webapp', values: { replicaCount: 2 } };
    const plan = await service.plan(request);
    await expect(service.execute({ ...request, values: { replicaCount: 9 } }, plan.planHash)).rejects.toMatchObject({
      code: 'HELM_PLAN_STALE',
    });
    expect(await cluster.listReleases({ all: true })).toEqual([]);
    await service.execute(request, plan.planHash);
    expect(await cluster.listReleases({ all: true })).toHaveLength(1);
  });

  it('kubeVersion constraints are checked against the cluster', async () => {
    expect((await service.checkPrerequisites({ chart: 'metrics-agent', namespace: 'default' })).ok).toBe(true);
    const legacy = await service.checkPrerequisites({ chart: 'legacy-cron', namespace: 'default' });
    expect(legacy.ok).toBe(false);
    expect(legacy.checks.find((c) => c.name === 'kubeVersion')?.detail).toContain('>=1.16.0-0 <1.22.0-0');
    await expect(service.plan({ operation: 'install', release: 'cron', namespace: 'default', chart: 'legacy-cron' })).rejects.toMatchObject(
      { code: 'HELM_PREREQUISITES_FAILED' },
    );
  });

  it('a timed-out upgrade fails, and monitoring reports ProgressDeadlineExceeded with names', async () => {
    const install = { operation: 'install' as const, release: 'web', namespace: 'default', chart: 'webapp', version: '1.0.0' };
    await service.execute(install, (await service.plan(install)).planHash);
    await cluster.injectFault('upgrade-timeout', 'web');
    const upgrade = { operation: 'upgrade' as const, release: 'web', namespace: 'default', values: { replicaCount: 4 } };
    await expect(service.execute(upgrade, (await service.plan(upgrade)).planHash)).rejects.toMatchObject({ code: 'HELM_TIMEOUT' });
    const report = await service.monitor('web', 'default', { timeoutSeconds: 1, intervalMs: 1 });
    expect(report.healthy).toBe(false);
    expect(report.problems).toContainEqual({ object: 'deployment/web-webapp', reason: 'ProgressDeadlineExceeded' });
    expect(report.releaseStatus).toBe('failed');
  });

  it('image pull failures are reported with the pod names; a healthy release is reported healthy', async () => {
    await cluster.injectFault('image-pull', 'bad');
    for (const release of ['bad', 'good']) {
      const request = { operation: 'install' as const, release, namespace: 'default', chart: 'webapp' };
      await service.execute(request, (await service.plan(request)).planHash);
    }
    const bad = await service.monitor('bad', 'default', { timeoutSeconds: 1, intervalMs: 1 });
    expect(bad.problems).toHaveLength(2);
    expect(bad.problems[0]).toMatchObject({ object: expect.stringMatching(/^pod\/bad-webapp-/), reason: 'ImagePullBackOff' });
    expect((await service.monitor('good', 'default', { intervalMs: 1 })).healthy).toBe(true);
  });

  it('forbidden aborts scenario detection (never treated as "not found")', async () => {
    await cluster.injectFault('forbidden');
    await expect(service.detectScenario('web', 'default')).rejects.toMatchObject({ code: 'HELM_FORBIDDEN' });
  });
});
