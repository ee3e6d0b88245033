import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterRegistry, helmClustersMigration } from '../../src/agents/helm/index.ts';
import { postgresTestStore, type TestStore, testDatabaseUrl } from '../../src/testing/test-stores.ts';

// The cluster registry on PostgreSQL (serial ids, text columns): the same answers as on SQLite.
describe.skipIf(!testDatabaseUrl)('helm cluster registry on PostgreSQL', () => {
  let testStore: TestStore;
  const files = mkdtempSync(join(tmpdir(), 'opsgate-pg-kubeconfig-'));
  const kubeconfig = join(files, 'dev.kubeconfig');
  writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
  beforeAll(async () => {
    testStore = await postgresTestStore.create([helmClustersMigration]);
  });
  afterAll(async () => {
    await testStore?.dispose();
    rmSync(files, { recursive: true, force: true });
  });

  it('adds, lists, refuses a duplicate and removes', async () => {
    const registry = new ClusterRegistry(testStore.store);
    await registry.add({ name: 'prod-eu', kubeContext: 'gke_prod', environment: 'production', namespaces: ['web', 'shop'] });
    await registry.add({ name: 'dev', kubeContext: 'kind-dev', kubeconfig, environment: 'dev', namespaces: ['*'] });
    expect((await registry.list()).map((c) => [c.name, c.namespaces, c.kubeconfig])).toEqual([
      ['dev', ['*'], kubeconfig],
      ['prod-eu', ['shop', 'web'], undefined],
    ]);
    await expect(registry.add({ name: 'dev', kubeContext: 'x', environment: 'dev', namespaces: ['a'] })).rejects.toMatchObject({
      code: 'HELM_CLUSTER_EXISTS',
    });
    await registry.remove('dev');
    expect((await registry.list()).map((c) => c.name)).toEqual(['prod-eu']);
  });
});
