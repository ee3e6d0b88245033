/**
 * A small Kubernetes API server for the real `kubectl`: legacy discovery (`/api`, `/apis` and the
 * resource lists of v1, apps/v1, batch/v1), `/version`, and GET of the objects it holds, one by
 * name or as a list (with `labelSelector` equality). Anything else is answered with the API
 * server's own `Status` shapes: NotFound for a missing object, and Forbidden for the resources
 * named in `forbidden` (the text of k8s.io/apiserver's `forbiddenMessage`:
 * `nodes is forbidden: User "…" cannot list resource "nodes" in API group "" at the cluster scope`).
 * Shapes from the Kubernetes API reference (meta/v1 Status, APIVersions, APIGroupList, APIResourceList).
 */
import { createServer, type Server } from 'node:http';

type KubeObject = Record<string, unknown> & { metadata: { name: string; namespace?: string; labels?: Record<string, string> } };

const RESOURCES: Record<string, { group: string; version: string; kind: string; namespaced: boolean }> = {
  nodes: { group: '', version: 'v1', kind: 'Node', namespaced: false },
  namespaces: { group: '', version: 'v1', kind: 'Namespace', namespaced: false },
  pods: { group: '', version: 'v1', kind: 'Pod', namespaced: true },
  deployments: { group: 'apps', version: 'v1', kind: 'Deployment', namespaced: true },
  statefulsets: { group: 'apps', version: 'v1', kind: 'StatefulSet', namespaced: true },
  daemonsets: { group: 'apps', version: 'v1', kind: 'DaemonSet', namespaced: true },
  jobs: { group: 'batch', version: 'v1', kind: 'Job', namespaced: true },
};

export interface StubApiServer {
  readonly url: string;
  /** A kubeconfig for it; `currentContext: false` leaves `current-context` out (as in a pod without one). */
  kubeconfig(options?: { currentContext?: boolean }): string;
  readonly requests: string[];
  close(): Promise<void>;
}

export async function startStubApiServer(options: {
  objects: readonly KubeObject[];
  /** Resource names (`nodes`, `namespaces`) this identity may not list. */
  forbidden?: readonly string[];
  user?: string;
}): Promise<StubApiServer> {
  const requests: string[] = [];
  const user = options.user ?? 'system:serviceaccount:team-a:deployer';
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stub');
    requests.push(`${request.method} ${url.pathname}${url.search}`);
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const status = (code: number, reason: string, message: string, details: Record<string, unknown>) =>
      send(code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code });
    const path = url.pathname;
    if (path === '/version') return send(200, { major: '1', minor: '29', gitVersion: 'v1.29.4', platform: 'linux/amd64' });
    if (path === '/api') return send(200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
    if (path === '/apis')
      return send(200, {
        kind: 'APIGroupList',
        apiVersion: 'v1',
        groups: ['apps', 'batch'].map((name) => ({
          name,
          versions: [{ groupVersion: `${name}/v1`, version: 'v1' }],
          preferredVersion: { groupVersion: `${name}/v1`, version: 'v1' },
        })),
      });
    const discovery = /^\/(?:api\/v1|apis\/(apps|batch)\/v1)$/.exec(path);
    if (discovery) {
      const group = discovery[1] ?? '';
      return send(200, {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: group ? `${group}/v1` : 'v1',
        resources: Object.entries(RESOURCES)
          .filter(([, r]) => r.group === group)
          .map(([name, r]) => ({
            name,
            singularName: r.kind.toLowerCase(),
            namespaced: r.namespaced,
            kind: r.kind,
            verbs: ['get', 'list'],
          })),
      });
    }
    const match = /^\/(?:api\/v1|apis\/(?:apps|batch)\/v1)(?:\/namespaces\/([^/]+))?\/([a-z]+)(?:\/([^/]+))?$/.exec(path);
    const resource = match ? RESOURCES[match[2]!] : undefined;
    if (!match || !resource) return status(404, 'NotFound', 'the server could not find the requested resource', {});
    const [, namespace, plural, name] = match;
    const group = resource.group;
    if (options.forbidden?.includes(plural!)) {
      const verb = name ? 'get' : 'list';
      const scope = namespace ? `in the namespace "${namespace}"` : 'at the cluster scope';
      return status(
        403,
        'Forbidden',
        `${plural} is forbidden: User "${user}" cannot ${verb} resource "${plural}" in API group "${group}" ${scope}`,
        {
          kind: plural,
        },
      );
    }
    const ofKind = options.objects.filter(
      (object) => object.kind === resource.kind && (!resource.namespaced || !namespace || object.metadata.namespace === namespace),
    );
    if (name) {
      const found = ofKind.find((object) => object.metadata.name === name);
      if (!found) return status(404, 'NotFound', `${plural}${group ? `.${group}` : ''} "${name}" not found`, { name, group, kind: plural });
      return send(200, found);
    }
    const selector = url.searchParams.get('labelSelector');
    const wanted = selector ? selector.split(',').map((pair) => pair.split('=') as [string, string]) : [];
    const items = ofKind.filter((object) => wanted.every(([key, value]) => object.metadata.labels?.[key] === value));
    return send(200, {
      kind: `${resource.kind}List`,
      apiVersion: group ? `${group}/v1` : 'v1',
      metadata: { resourceVersion: '1' },
      items,
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    requests,
    kubeconfig: ({ currentContext = true } = {}) =>
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        `- name: stub\n  cluster:\n    server: ${url}`,
        'users:',
        '- name: deployer\n  user:\n    token: stub-token',
        'contexts:',
        '- name: stub\n  context:\n    cluster: stub\n    user: deployer',
        ...(currentContext ? ['current-context: stub'] : []),
        '',
      ].join('\n'),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
