import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  classifyHelmError,
  parseHelmHistory,
  parseHelmList,
  parseHelmMetadata,
  parseHelmSearch,
  parseHelmStatus,
  parseHelmValues,
  parseKubectlDeployments,
  parseKubectlNamespaces,
  parseKubectlNodes,
  parseKubectlPods,
  parseKubectlVersion,
} from './parse-output.ts';

const fixture = (name: string) => readFileSync(new URL(`../../../../../test/helm/fixtures/${name}`, import.meta.url), 'utf8');

describe('Helm 3 / kubectl output parsers (golden fixtures)', () => {
  it('helm list -o json: string revisions, pending-* kept, null means none', () => {
    expect(parseHelmList(fixture('helm-list.json'))).toEqual([
      {
        name: 'web',
        namespace: 'default',
        revision: '3',
        updated: '2024-05-14 09:12:44.123456789 +0000 UTC',
        status: 'deployed',
        chart: 'webapp-1.1.0',
        app_version: '1.27.0',
      },
      {
        name: 'shop',
        namespace: 'store',
        revision: '2',
        updated: '2024-05-14 10:01:02.5 +0200 CEST',
        status: 'pending-upgrade',
        chart: 'shop-0.3.0',
        app_version: '3.4.1',
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

  it('helm history -o json', () => {
    expect(parseHelmHistory(fixture('helm-history.json')).map((h) => [h.revision, h.status, h.description])).toEqual([
      [1, 'superseded', 'Install complete'],
      [2, 'superseded', 'Upgrade complete'],
      [3, 'deployed', 'Rollback to 1'],
    ]);
  });

  it('helm search repo -o json and helm get values -o json', () => {
    expect(parseHelmSearch(fixture('helm-search.json'))).toEqual([
      { name: 'demo/webapp', version: '1.1.0', app_version: '1.27.0', description: 'A stateless web application' },
    ]);
    expect(parseHelmValues('null')).toEqual({});
    expect(parseHelmValues('{"a":1}')).toEqual({ a: 1 });
  });

  it('kubectl version, nodes, namespaces, pods (waiting reason wins) and deployments (ProgressDeadlineExceeded)', () => {
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
    expect(parseKubectlDeployments(fixture('kubectl-deployments.json'))).toEqual([
      { kind: 'Deployment', name: 'web-webapp', condition: 'ProgressDeadlineExceeded' },
    ]);
  });

  it('bad output fails with a typed error naming the command', () => {
    expect(() => parseHelmStatus('Error: something')).toThrow(expect.objectContaining({ code: 'HELM_BAD_OUTPUT' }));
    expect(() => parseHelmList('{"name":"x"}')).toThrow(expect.objectContaining({ code: 'HELM_BAD_OUTPUT' }));
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
