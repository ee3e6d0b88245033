import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  classifyHelmError,
  parseDryRunRelease,
  parseHelmHistory,
  parseHelmList,
  parseHelmMetadata,
  parseHelmSearch,
  parseHelmStatus,
  parseHelmValues,
  parseKubectlNamespaces,
  parseKubectlNodes,
  parseKubectlObjects,
  parseKubectlPods,
  parseKubectlVersion,
} from '../../src/agents/helm/backends/cli/parse-output.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const golden = (version: 'v3.21.4' | 'v4-main', name: string) => fixture(`helm-testdata/${version}/${name}`);

describe.each(['v3.21.4', 'v4-main'] as const)("Helm's own output goldens (%s) parse", (version) => {
  it('status -o json: no chart (Helm strips it), Helm 4 omits zero times', () => {
    const status = parseHelmStatus(golden(version, 'status.json'));
    expect(status).toMatchObject({
      name: 'flummoxed-chickadee',
      namespace: 'default',
      info: { status: 'deployed', notes: 'release notes' },
    });
    expect(status.chart.metadata.name).toBe('');
  });

  it('history and get metadata -o json', () => {
    expect(parseHelmHistory(golden(version, 'history.json')).map((h) => [h.revision, h.status, h.chart])).toEqual([
      [3, 'superseded', 'foo-0.1.0-beta.1'],
      [4, 'deployed', 'foo-0.1.0-beta.1'],
    ]);
    expect(parseHelmMetadata(golden(version, 'get-metadata.json'))).toMatchObject({
      name: 'thomas-guide',
      chart: 'foo',
      version: '0.1.0-beta.1',
    });
  });

  it('search -o json keeps the whole description', () => {
    expect(parseHelmSearch(golden(version, 'search-output-json.txt'))).toEqual([
      { name: 'testing/mariadb', version: '0.3.0', app_version: '', description: 'Chart for MariaDB' },
    ]);
  });

  it('upgrade and rollback errors map to their own codes', () => {
    expect(classifyHelmError('upgrade', golden(version, 'upgrade-with-bad-or-missing-existing-release.txt'), 'funny-bunny').code).toBe(
      'HELM_NO_DEPLOYED_RELEASES',
    );
    expect(classifyHelmError('upgrade', golden(version, 'upgrade-with-pending-install.txt'), 'funny-bunny').code).toBe(
      'HELM_OPERATION_IN_PROGRESS',
    );
    const noRevision = classifyHelmError('rollback', golden(version, 'rollback-non-existent-version.txt'), 'funny-bunny');
    expect(noRevision).toMatchObject({ code: 'HELM_REVISION_NOT_FOUND', fields: { revision: 3 } });
  });
});

describe('Helm 4 only goldens', () => {
  it('list -o json and a history with a rollback_revision', () => {
    expect(parseHelmList(golden('v4-main', 'list-json.txt'))).toEqual([
      {
        name: 'test-release',
        namespace: 'default',
        revision: '1',
        updated: '2016-01-16 00:00:00 +0000 UTC',
        status: 'deployed',
        chart: 'test-chart-1.0.0',
        app_version: '0.0.1',
      },
    ]);
    expect(parseHelmHistory(golden('v4-main', 'history-with-rollback.json')).at(-1)).toMatchObject({
      revision: 3,
      description: 'Rollback to 1',
    });
  });
});

describe("Helm 3 / kubectl output parsers (demo-release fixtures in Helm's shapes)", () => {
  it('helm list -o json: sorted by name as Helm prints it, string revisions, pending-* kept, null means none', () => {
    expect(parseHelmList(fixture('helm-list.json'))).toEqual([
      {
        name: 'shop',
        namespace: 'store',
        revision: '2',
        updated: '2024-05-14 10:01:02.5 +0200 CEST',
        status: 'pending-upgrade',
        chart: 'shop-0.3.0',
        app_version: '3.4.1',
      },
      {
        name: 'web',
        namespace: 'default',
        revision: '3',
        updated: '2024-05-14 09:12:44.123456789 +0000 UTC',
        status: 'deployed',
        chart: 'webapp-1.1.0',
        app_version: '1.27.0',
      },
    ]);
    expect(parseHelmList('null')).toEqual([]);
    expect(parseHelmList('')).toEqual([]);
  });

  it('helm status -o json: info, user config, manifest, numeric version; real Helm strips the chart, so its metadata is empty', () => {
    const status = parseHelmStatus(fixture('helm-status.json'));
    expect(status).toMatchObject({
      name: 'web',
      namespace: 'default',
      version: 3,
      info: { status: 'deployed', description: 'Upgrade complete', first_deployed: '2024-05-10T08:00:00.000000001Z' },
      chart: { metadata: { name: '', version: '' } },
      config: { replicaCount: 3 },
    });
    expect(status.manifest).toContain('kind: Service');
  });

  it('helm get metadata -o json: the chart name and version a release runs', () => {
    expect(parseHelmMetadata(fixture('helm-get-metadata.json'))).toEqual({
      name: 'web',
      namespace: 'default',
      revision: 3,
      status: 'deployed',
      chart: 'webapp',
      version: '1.1.0',
      appVersion: '1.27.0',
    });
    expect(() => parseHelmMetadata('{"name":"web"}')).toThrow(/get metadata/);
  });

  it('helm history -o json: a rollback revision runs the chart it rolled back to', () => {
    expect(parseHelmHistory(fixture('helm-history.json')).map((h) => [h.revision, h.status, h.chart, h.description])).toEqual([
      [1, 'superseded', 'webapp-1.0.0', 'Install complete'],
      [2, 'superseded', 'webapp-1.1.0', 'Upgrade complete'],
      [3, 'deployed', 'webapp-1.0.0', 'Rollback to 1'],
    ]);
  });

  it('helm search repo -o json and helm get values -o json', () => {
    expect(parseHelmSearch(fixture('helm-search.json'))).toEqual([
      {
        name: 'demo/webapp',
        version: '1.1.0',
        app_version: '1.27.0',
        description: 'A stateless web application (Deployment + Service) with a values schema.',
      },
    ]);
    expect(parseHelmValues('null')).toEqual({});
    expect(parseHelmValues('{"a":1}')).toEqual({ a: 1 });
  });

  it('kubectl version, nodes, namespaces, pods (waiting reason wins), and one object or a List of them', () => {
    expect(parseKubectlVersion(fixture('kubectl-version.json'))).toBe('v1.29.4');
    expect(parseKubectlNodes(fixture('kubectl-nodes.json'))).toEqual([
      { name: 'node-a', ready: true },
      { name: 'node-b', ready: false },
    ]);
    expect(parseKubectlNamespaces(fixture('kubectl-namespaces.json'))).toEqual(['default', 'kube-system']);
    expect(parseKubectlPods(fixture('kubectl-pods.json'))).toEqual([
      { name: 'web-webapp-5d8c7b9f6-abcde', status: 'CrashLoopBackOff', ready: false, restarts: 7 },
      { name: 'web-webapp-5d8c7b9f6-fghij', status: 'ImagePullBackOff', ready: false, restarts: 0 },
      { name: 'web-webapp-5d8c7b9f6-klmno', status: 'Running', ready: true, restarts: 0 },
    ]);
    expect(parseKubectlObjects('{"kind":"Deployment","metadata":{"name":"a"}}')).toEqual([{ kind: 'Deployment', metadata: { name: 'a' } }]);
    expect(parseKubectlObjects('{"kind":"List","items":[{"kind":"Job"},{"kind":"DaemonSet"}]}').map((o) => o.kind)).toEqual([
      'Job',
      'DaemonSet',
    ]);
  });

  it('bad output fails with a typed error naming the command', () => {
    expect(() => parseHelmStatus('Error: something')).toThrow(expect.objectContaining({ code: 'HELM_BAD_OUTPUT' }));
    expect(() => parseHelmList('{"name":"x"}')).toThrow(expect.objectContaining({ code: 'HELM_BAD_OUTPUT' }));
  });

  it('a dry run keeps hooks out of the manifest: they come apart with their events', () => {
    const output = JSON.stringify({
      name: 'web',
      info: { status: 'pending-upgrade', description: 'Dry run complete' },
      manifest: '---\n# Source: webapp/templates/service.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: web-webapp\n',
      hooks: [{ name: 'web-migrate', kind: 'Job', path: 'webapp/templates/migrate.yaml', manifest: '...', events: ['pre-upgrade'] }],
      version: 4,
      namespace: 'default',
    });
    const { status, rendered } = parseDryRunRelease(output, 'upgrade --dry-run');
    expect(status.version).toBe(4);
    expect(rendered.hooks).toEqual([{ key: 'Job/web-migrate', events: ['pre-upgrade'], manifest: '...' }]);
    expect(rendered.manifest).not.toContain('web-migrate');
  });

  it('a lost connection or refusal while applying is not "nothing was changed"; Helm recorded a failed revision', () => {
    const applyTime =
      'Error: UPGRADE FAILED: failed to create resource: Post "https://10.0.0.1:6443/apis/apps/v1/namespaces/default/deployments": dial tcp 10.0.0.1:6443: connect: connection refused';
    expect(classifyHelmError('upgrade', applyTime, 'web').code).toBe('HELM_APPLY_FAILED');
    expect(
      classifyHelmError(
        'install',
        'Error: INSTALLATION FAILED: deployments.apps "web" is forbidden: User "x" cannot create resource',
        'web',
      ).code,
    ).toBe('HELM_APPLY_FAILED');
    expect(classifyHelmError('upgrade', 'Error: UPGRADE FAILED: context deadline exceeded', 'web').code).toBe('HELM_TIMEOUT');
    // Helm's own "cluster unreachable" comes before it changes anything.
    expect(
      classifyHelmError('upgrade', 'Error: UPGRADE FAILED: Kubernetes cluster unreachable: dial tcp 10.0.0.1:6443: i/o timeout').code,
    ).toBe('HELM_CLUSTER_UNREACHABLE');
    expect(classifyHelmError('install', 'Error: INSTALLATION FAILED: cannot reuse a name that is still in use').code).toBe(
      'HELM_NAME_IN_USE',
    );
  });

  // Issue 20 M7 (review 2026-11-24-helm §2 M7). Texts: Helm's storage driver wrapping (v3.21.4 and v4
  // pkg/storage/driver/secrets.go: "query: failed to query with labels", "create: failed to create")
  // around the API server's Forbidden text, as kubectl 1.32.4 printed it against the review's stub
  // API server ('secrets is forbidden: User "…" cannot list resource "secrets" in API group "" in the namespace "…"').
  it('M7: an RBAC refusal on the release records is not "recorded the new revision as failed"', () => {
    const forbidden = (verb: string) =>
      `secrets is forbidden: User "system:serviceaccount:team-a:deployer" cannot ${verb} resource "secrets" in API group "" in the namespace "team-b"`;
    const query = `Error: INSTALLATION FAILED: query: failed to query with labels: ${forbidden('list')}`;
    const create = `Error: UPGRADE FAILED: create: failed to create: ${forbidden('create')}`;
    for (const [operation, stderr] of [
      ['install', query],
      ['upgrade', create],
      ['rollback', `Error: get: failed to get "sh.helm.release.v1.web.v3": ${forbidden('get')}`],
    ] as const) {
      const error = classifyHelmError(operation, stderr, 'web');
      expect(error.code).toBe('HELM_RELEASE_STORAGE_FORBIDDEN');
      expect(error.message).toMatch(/no revision was recorded.*Secrets/);
      expect(error.message).not.toMatch(/recorded the new revision as failed/);
    }
    // Refused while applying the chart's objects: Helm has recorded a failed revision.
    expect(classifyHelmError('upgrade', `Error: UPGRADE FAILED: update: failed to update: ${forbidden('update')}`, 'web').code).toBe(
      'HELM_APPLY_FAILED',
    );
  });

  it('only "release: not found" is not-found; unreachable and forbidden are their own errors', () => {
    expect(classifyHelmError('status', 'Error: release: not found').code).toBe('HELM_RELEASE_NOT_FOUND');
    expect(
      classifyHelmError('status', 'Error: Kubernetes cluster unreachable: dial tcp 10.0.0.1:6443: connect: connection refused').code,
    ).toBe('HELM_CLUSTER_UNREACHABLE');
    expect(
      classifyHelmError(
        'status',
        'Error: query: failed to query with labels: secrets is forbidden: User "x" cannot list resource "secrets"',
      ).code,
    ).toBe('HELM_FORBIDDEN');
    expect(classifyHelmError('install', 'Error: INSTALLATION FAILED: cannot re-use a name that is still in use').code).toBe(
      'HELM_NAME_IN_USE',
    );
  });
});
