import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sqliteTestStore, type TestStore } from '../../../testing/test-stores.ts';
import { helmClustersMigration } from './cluster-migration.ts';
import { type AddClusterInput, ClusterRegistry, resolveCluster } from './cluster-registry.ts';

const files = mkdtempSync(join(tmpdir(), 'opsgate-kubeconfig-'));
const kubeconfig = join(files, 'prod.kubeconfig');
writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
afterAll(() => rmSync(files, { recursive: true, force: true }));

const prod: AddClusterInput = {
  name: 'prod-eu',
  kubeContext: 'gke_acme_europe-west1_prod',
  kubeconfig,
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
      kubeconfig,
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

describe('ClusterRegistry kubeconfig check', () => {
  let testStore: TestStore;
  beforeEach(async () => {
    testStore = await sqliteTestStore.create([helmClustersMigration]);
  });
  afterEach(async () => testStore.dispose());

  it('refuses a path that is not a readable kubeconfig, never quoting the file', async () => {
    const registry = new ClusterRegistry(testStore.store);
    const secret = join(files, 'shadow');
    writeFileSync(secret, 'root:$6$SENTINEL-HASH:19000:0:99999:7:::\n');
    mkdirSync(join(files, 'a-directory'), { recursive: true });
    for (const [path, why] of [
      [secret, /is not a kubeconfig/],
      [join(files, 'missing'), /cannot be read by the opsgate server \(ENOENT\)/],
      [join(files, 'a-directory'), /is not a regular file/],
    ] as const) {
      const refused = registry.add({ ...dev, name: 'x', kubeconfig: path });
      await expect(refused).rejects.toMatchObject({ code: 'HELM_CLUSTER_INPUT_INVALID', message: expect.stringMatching(why) });
      await expect(refused).rejects.not.toMatchObject({ message: expect.stringContaining('SENTINEL') });
    }
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
