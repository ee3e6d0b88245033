import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sqliteTestStore, type TestStore } from '../../../testing/test-stores.ts';
import { helmSimulatorMigrations } from '../backends/simulator/migration.ts';
import { SimulatedCluster } from '../backends/simulator/simulated-cluster.ts';
import { ChartRepository } from '../charts/chart-repository.ts';
import { HelmMcpClient } from '../mcp/mcp-client.ts';
import { createHelmMcpServer } from '../mcp/mcp-server.ts';
import { HelmService } from '../service/helm-service.ts';
import { helmClustersMigration } from './cluster-migration.ts';
import { ClusterRegistry, type HelmCluster } from './cluster-registry.ts';
import { HelmTargets } from './helm-targets.ts';

describe('HelmTargets', () => {
  let testStore: TestStore;
  let registry: ClusterRegistry;
  let targets: HelmTargets;
  let fallback: HelmMcpClient;
  const opened: string[] = [];
  beforeEach(async () => {
    testStore = await sqliteTestStore.create([...helmSimulatorMigrations, helmClustersMigration]);
    registry = new ClusterRegistry(testStore.store);
    const repository = await ChartRepository.open();
    const cluster = new SimulatedCluster(testStore.store);
    fallback = await HelmMcpClient.inProcess(createHelmMcpServer(new HelmService(cluster, repository)));
    opened.length = 0;
    targets = new HelmTargets(registry, fallback, (c: HelmCluster) => {
      opened.push(c.name);
      return HelmMcpClient.inProcess(
        createHelmMcpServer(new HelmService(cluster, repository, { cluster: { name: c.name, environment: c.environment } })),
      );
    });
  });
  afterEach(async () => {
    await targets.close();
    await testStore.dispose();
  });

  it('goes to the default backend with no cluster registered, and tells the model nothing about clusters', async () => {
    expect((await targets.resolve(undefined, 'default')).client).toBe(fallback);
    expect(targets.describe()).toBeUndefined();
    expect(targets.policyTarget(undefined)).toBeUndefined();
  });

  it('sees a cluster registered after start at the next call, opens one client per cluster and reuses it', async () => {
    await targets.refresh();
    await registry.add({ name: 'prod-eu', kubeContext: 'kind-prod', environment: 'production', namespaces: ['shop'] });
    expect(targets.policyTarget('prod-eu')).toBeUndefined();
    const first = await targets.resolve(undefined, 'shop');
    expect(first.cluster?.name).toBe('prod-eu');
    expect(first.client).not.toBe(fallback);
    expect((await targets.resolve('prod-eu', 'shop')).client).toBe(first.client);
    expect(opened).toEqual(['prod-eu']);
    expect(targets.policyTarget(undefined)).toEqual({ name: 'prod-eu', environment: 'production' });
    expect(targets.describe()).toContain('- prod-eu (production; namespaces shop)');
    expect(targets.describe()).not.toContain('kind-prod');
    const answer = await first.client.call('helm_get_installation_plan', {
      operation: 'install',
      release: 'web',
      namespace: 'shop',
      chart: 'webapp',
      version: '1.0.0',
      createNamespace: true,
    });
    expect((answer.plan as { cluster?: unknown }).cluster).toEqual({ name: 'prod-eu', environment: 'production' });
  });

  it('names every cluster for the model when there are several, and asks it to pass one', async () => {
    await registry.add({ name: 'a', kubeContext: 'ctx-a', environment: 'dev', namespaces: ['*'] });
    await registry.add({ name: 'b', kubeContext: 'ctx-b', environment: 'staging', namespaces: ['x', 'y'] });
    await targets.refresh();
    expect(targets.describe()).toMatch(/- a \(dev; namespaces \*\)\n- b \(staging; namespaces x, y\)\nPass "cluster" on every tool call/);
    expect(targets.policyTarget(undefined)).toBeUndefined();
    expect(targets.policyTarget('b')).toEqual({ name: 'b', environment: 'staging' });
  });
});
