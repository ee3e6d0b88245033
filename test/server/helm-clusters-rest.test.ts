import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helmClustersMigration } from '../../src/agents/helm/clusters/cluster-migration.ts';
import { ClusterRegistry } from '../../src/agents/helm/clusters/cluster-registry.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import { runMigrations } from '../../src/core/store/index.ts';
import type { HelmClusterDirectory } from '../../src/server/index.ts';
import { type ActorName, createServerFixture, type ServerFixture } from '../../src/server/testing/server-fixture.ts';

// Issue 20: target clusters are registered by admins over REST too; users and approvers are refused.
const files = mkdtempSync(join(tmpdir(), 'opsgate-rest-kubeconfig-'));
const kubeconfig = join(files, 'prod.kubeconfig');
writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');

describe('/api/helm/clusters (admin only, on the record)', () => {
  let fixture: ServerFixture;
  let registry: ClusterRegistry;
  beforeAll(async () => {
    // The fixture's store is made before the registry can exist; the routes reach it through this door.
    const directory: HelmClusterDirectory = {
      list: () => registry.list(),
      add: (input) => registry.add(input),
      remove: (name) => registry.remove(name),
    };
    fixture = await createServerFixture({ helmClusters: directory });
    await runMigrations(fixture.store.db as unknown as Kysely<unknown>, 'sqlite', [helmClustersMigration]);
    registry = new ClusterRegistry(fixture.store);
  });
  afterAll(async () => {
    await fixture.dispose();
    rmSync(files, { recursive: true, force: true });
  });

  const call = (actor: ActorName, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    fixture.app.inject({ method, url, headers: { authorization: `Bearer ${fixture.tokens[actor]}` }, ...(payload ? { payload } : {}) });
  const prod = {
    name: 'prod-eu',
    kubeContext: 'gke_prod',
    kubeconfig,
    environment: 'production',
    namespaces: ['shop'],
  };

  it('refuses users and approvers on every route, changing nothing', async () => {
    for (const actor of ['owner', 'approver'] as const) {
      for (const [method, url, payload] of [
        ['GET', '/api/helm/clusters', undefined],
        ['POST', '/api/helm/clusters', prod],
        ['DELETE', '/api/helm/clusters/prod-eu', undefined],
      ] as const) {
        const response = await call(actor, method, url, payload);
        expect(response.statusCode, `${actor} ${method}`).toBe(403);
        expect(response.json()).toMatchObject({ code: 'ROLE_REQUIRED' });
      }
    }
    expect(await registry.list()).toEqual([]);
  });

  it('lets an admin register, list and remove a cluster, each change audited as the admin', async () => {
    const added = await call('admin', 'POST', '/api/helm/clusters', prod);
    expect(added.statusCode).toBe(201);
    expect(added.json()).toMatchObject({ cluster: { ...prod, createdAt: expect.any(String) } });
    expect((await call('admin', 'POST', '/api/helm/clusters', prod)).json()).toMatchObject({ code: 'HELM_CLUSTER_EXISTS' });
    const invalid = await call('admin', 'POST', '/api/helm/clusters', { ...prod, name: 'dev', namespaces: ['Kube_System'] });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ code: 'HELM_CLUSTER_INPUT_INVALID' });
    expect((await call('admin', 'POST', '/api/helm/clusters', { ...prod, token: 'x' })).statusCode).toBe(400);
    const listed = await call('admin', 'GET', '/api/helm/clusters');
    expect(listed.json()).toEqual({ clusters: [{ ...prod, createdAt: expect.any(String) }] });
    expect((await call('admin', 'DELETE', '/api/helm/clusters/prod-eu')).statusCode).toBe(200);
    expect((await call('admin', 'DELETE', '/api/helm/clusters/prod-eu')).json()).toMatchObject({ code: 'HELM_CLUSTER_UNKNOWN' });
    expect(await registry.list()).toEqual([]);
    const audit = new AuditLog(fixture.store);
    const events = (await audit.list()).filter((e) => e.type.startsWith('helm_cluster_'));
    expect(events.map((e) => [e.type, e.actor, e.payload.name])).toEqual([
      ['helm_cluster_added', 'user:admin', 'prod-eu'],
      ['helm_cluster_removed', 'user:admin', 'prod-eu'],
    ]);
    expect(events[0]!.payload).toMatchObject({ environment: 'production', namespaces: ['shop'], kubeContext: 'gke_prod' });
    await audit.close();
  });
});
