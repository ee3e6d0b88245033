import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sqliteTestStore, type TestStore } from '../../../testing/test-stores.ts';
import { helmClustersMigration } from './cluster-migration.ts';
import { type AddClusterInput, ClusterRegistry, resolveCluster } from './cluster-registry.ts';

const prod: AddClusterInput = {
  name: 'prod-eu',
  kubeContext: 'gke_acme_europe-west1_prod',
  kubeconfig: '/etc/opsgate/prod.kubeconfig',
  environment: 'production',
  namespaces: ['shop', 'web', 'shop'],
};
const dev: AddClusterInput = { name: 'dev', kubeContext: 'kind-dev', environment: 'dev', namespaces: ['*'] };

describe('ClusterRegistry (SQLite store)', () => {
  let testStore: TestStore;
  let registry: ClusterRegistry;
  beforeEach(async () => {
    testStore = await sqliteTestStore.create([helmClustersMigration]);
    registry = new ClusterRegistry(testStore.store, { now: () => new Date('2026-11-24T19:00:00Z') });
  });
  afterEach(async () => testStore.dispose());

  it('adds, lists in name order, finds and removes clusters', async () => {
    expect(await registry.add(prod)).toEqual({
      name: 'prod-eu',
      kubeContext: 'gke_acme_europe-west1_prod',
      kubeconfig: '/etc/opsgate/prod.kubeconfig',
      environment: 'production',
      namespaces: ['shop', 'web'],
      createdAt: '2026-11-24T19:00:00.000Z',
    });
    await registry.add(dev);
    expect((await registry.list()).map((c) => c.name)).toEqual(['dev', 'prod-eu']);
    expect((await registry.find('dev'))?.kubeconfig).toBeUndefined();
    await expect(registry.add(dev)).rejects.toMatchObject({ code: 'HELM_CLUSTER_EXISTS' });
    await registry.remove('dev');
    expect(await registry.find('dev')).toBeUndefined();
    await expect(registry.remove('dev')).rejects.toMatchObject({ code: 'HELM_CLUSTER_UNKNOWN' });
  });

  it.each([
    [{ ...dev, name: 'Prod EU' }, /the name "Prod EU"/],
    [{ ...dev, kubeContext: '--kubeconfig=/tmp/x' }, /the kube context/],
    [{ ...dev, kubeContext: '' }, /the kube context/],
    [{ ...dev, kubeconfig: 'relative/kubeconfig' }, /absolute path/],
    [{ ...dev, environment: 'Production!' }, /the environment/],
    [{ ...dev, namespaces: [] }, /at least one namespace/],
    [{ ...dev, namespaces: ['shop', 'Kube_System'] }, /"Kube_System" is not a Kubernetes namespace/],
  ])('refuses an invalid registration with a message naming the field (%#)', async (input, message) => {
    await expect(registry.add(input)).rejects.toMatchObject({
      code: 'HELM_CLUSTER_INPUT_INVALID',
      message: expect.stringMatching(message),
    });
    expect(await registry.list()).toEqual([]);
  });
});

describe('resolveCluster', () => {
  const clusters = [
    { ...prod, namespaces: ['shop'], createdAt: '' },
    { ...dev, createdAt: '' },
  ];

  it('picks the named cluster, or the only one; none registered means no target', () => {
    expect(resolveCluster(clusters, 'prod-eu', 'shop')?.name).toBe('prod-eu');
    expect(resolveCluster(clusters, 'dev', 'anything')?.name).toBe('dev');
    expect(resolveCluster([clusters[0]!], undefined, 'shop')?.name).toBe('prod-eu');
    expect(resolveCluster([], undefined, 'shop')).toBeUndefined();
    expect(resolveCluster(clusters, 'prod-eu', undefined)?.name).toBe('prod-eu');
  });

  it('refuses unknown clusters, an unnamed one among several, and namespaces off the allow-list', () => {
    expect(() => resolveCluster(clusters, 'nowhere', 'shop')).toThrow(expect.objectContaining({ code: 'HELM_CLUSTER_UNKNOWN' }));
    expect(() => resolveCluster(clusters, undefined, 'shop')).toThrow(/several clusters are registered \(prod-eu, dev\)/);
    expect(() => resolveCluster([], 'prod-eu', 'shop')).toThrow(/no cluster is registered/);
    expect(() => resolveCluster(clusters, 'prod-eu', 'kube-system')).toThrow(
      expect.objectContaining({ code: 'HELM_NAMESPACE_NOT_ALLOWED', message: expect.stringContaining('ask an admin') }),
    );
  });
});
