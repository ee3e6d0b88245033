/**
 * An in-memory Kubernetes API server good enough for the real `helm` (3 and 4) and `kubectl`:
 * discovery and `/version`, an OpenAPI v3 tree advertising `fieldValidation`, GET/LIST with label
 * selectors, POST/PUT/PATCH (merge, strategic merge approximated, JSON patch, server-side apply),
 * DELETE with the garbage collector's cascade, watch (replay from a resourceVersion, initial events
 * and their end bookmark), protobuf-encoded Secrets (Helm's release storage), fake controllers
 * (controllers.ts), `dryRun=All`, and per-resource and per-verb 403s for a namespace-scoped identity.
 *
 * What it does NOT emulate (so passing against it is not working on a cluster): authentication
 * beyond one bearer token (`bearerToken`: every other request is 401; without it, anyone is the
 * configured user), RBAC beyond the `forbid` list, admission (no webhooks, no
 * quota, no immutable-field checks), schema validation (unknown fields are stored as sent, unless a
 * `strictFields` check is given: then `fieldValidation=Strict` refuses them with the apiserver's
 * "strict decoding error", and nothing else is validated), field ownership and apply conflicts,
 * optimistic concurrency (resourceVersion preconditions are ignored), aggregated discovery, OpenAPI
 * v2 (served empty: kubectl then skips its client-side check of kinds it cannot find there), protobuf
 * for anything but Secret request bodies (responses are always JSON), pod logs, exec, events, and
 * finalizers. Deleting a namespace does not delete what is in it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { parse as parseYaml } from 'yaml';
import { applyDefaults, Controllers } from './controllers.ts';
import { type KubeObject, matchesLabelSelector, ObjectStore } from './object-store.ts';
import { jsonPatch, mergePatch } from './patch.ts';
import { type ResourceType, ResourceTypes } from './resources.ts';
import { decodeSecretProtobuf } from './secret-protobuf.ts';

type KubeVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';

export interface KubeApiStubOptions {
  /** Objects present at start (namespaces `default` and `kube-system` and one ready node always are). */
  readonly objects?: readonly KubeObject[];
  /** Extra namespaces present at start. */
  readonly namespaces?: readonly string[];
  /**
   * What this identity may not do: a resource (`nodes`, every verb) or `resource:verb`
   * (`secrets:create`). `['nodes', 'namespaces']` is a namespace-scoped ServiceAccount.
   */
  readonly forbid?: readonly string[];
  /** The user named in 403 messages. Default `system:serviceaccount:team-a:deployer`. */
  readonly user?: string;
  /** How long a changed workload takes to become ready, in ms. Default 0 (next tick). */
  readonly rolloutDelayMs?: number;
  /** Bare Pods (`restartPolicy: Never`) by name that fail instead of completing: a failing `helm test`. */
  readonly failingPods?: readonly string[];
  /** `/version`'s gitVersion. Default `v1.32.3`. */
  readonly kubernetesVersion?: string;
  /**
   * The unknown fields of an object (`spec.replicaz`), for `fieldValidation=Strict` on create,
   * update and patch (a test passes a check built from a real API server's schema). Default: none.
   */
  readonly strictFields?: (object: KubeObject) => readonly string[];
  /**
   * Serve HTTPS with this certificate and key (PEM). kubectl and Helm send a bearer token only over
   * TLS (client-go reads a user's credentials only for a TLS transport). Default: plain HTTP.
   */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** Answer 401 to every request without `Authorization: Bearer <this>`. Default: no authentication. */
  readonly bearerToken?: string;
}

export interface KubeApiStub {
  readonly url: string;
  /** `METHOD path?query` of every request, in order. */
  readonly requests: string[];
  /** The `User-Agent` of every request refused for a missing or wrong bearer token, in order. */
  readonly unauthorized: string[];
  readonly store: ObjectStore;
  readonly types: ResourceTypes;
  /** A kubeconfig (context `stub`); `currentContext: false` leaves `current-context` out, as in a pod. */
  kubeconfig(options?: { currentContext?: boolean }): string;
  /** Replaces the `forbid` list (see the option), e.g. to turn the identity namespace-scoped mid-test. */
  forbid(rules: readonly string[]): void;
  /** The stored object of an apiVersion/kind, or undefined. */
  object(apiVersion: string, kind: string, namespace: string | undefined, name: string): KubeObject | undefined;
  close(): Promise<void>;
}

interface Target {
  readonly type: ResourceType;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
}

export async function startKubeApiStub(options: KubeApiStubOptions = {}): Promise<KubeApiStub> {
  const types = new ResourceTypes();
  const store = new ObjectStore();
  const controllers = new Controllers(store, types, options.rolloutDelayMs ?? 0, options.failingPods);
  const requests: string[] = [];
  const unauthorized: string[] = [];
  const user = options.user ?? 'system:serviceaccount:team-a:deployer';
  const version = options.kubernetesVersion ?? 'v1.32.3';
  let nextIp = 10;
  const clusterIps = () => `10.96.0.${nextIp++}`;
  const namespaceType = types.byKind('v1', 'Namespace')!;
  for (const name of ['default', 'kube-system', ...(options.namespaces ?? [])])
    store.put(namespaceType, { apiVersion: 'v1', kind: 'Namespace', metadata: { name }, status: { phase: 'Active' } });
  // One ready node, as a kind cluster has: opsgate's prerequisites count ready nodes.
  store.put(types.byKind('v1', 'Node')!, {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'stub-node', labels: { 'kubernetes.io/hostname': 'stub-node' } },
    status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }], nodeInfo: { kubeletVersion: version } },
  });
  for (const object of options.objects ?? []) {
    const type = types.byKind(object.apiVersion, object.kind);
    if (!type) throw new Error(`the stub serves no ${object.apiVersion} ${object.kind}`);
    store.put(type, structuredClone(object));
  }
  const watches = new Set<ServerResponse>();
  let forbidden = [...(options.forbid ?? [])];

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://stub');
    requests.push(`${request.method} ${url.pathname}${url.search}`);
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const failure = (code: number, reason: string, message: string, details: Record<string, unknown> = {}) =>
      send(code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code });
    if (options.bearerToken !== undefined && request.headers.authorization !== `Bearer ${options.bearerToken}`) {
      unauthorized.push(String(request.headers['user-agent'] ?? ''));
      return failure(401, 'Unauthorized', 'Unauthorized');
    }
    const path = url.pathname.replace(/\/$/, '');
    if (path === '/version')
      return send(200, { major: '1', minor: version.split('.')[1], gitVersion: version, platform: 'linux/amd64', goVersion: 'go1.23' });
    if (path === '/healthz' || path === '/livez' || path === '/readyz') return send(200, 'ok');
    if (path === '/api') return send(200, types.apiVersions());
    if (path === '/apis') return send(200, types.apiGroupList());
    if (path === '/openapi/v3') return send(200, types.openApiRoot());
    if (path === '/openapi/v2') {
      // An empty document: zero bytes is an empty openapi_v2.Document in protobuf, as kubectl asks for it.
      const protobuf = String(request.headers.accept ?? '').includes('protobuf');
      response.writeHead(200, {
        'content-type': protobuf ? 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf' : 'application/json',
      });
      return response.end(
        protobuf ? '' : JSON.stringify({ swagger: '2.0', info: { title: 'Kubernetes', version: version }, paths: {}, definitions: {} }),
      );
    }
    const openApi = /^\/openapi\/v3\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(path);
    if (openApi) {
      const document = openApi[1] ? types.openApiDocument('', 'v1') : types.openApiDocument(openApi[2]!, openApi[3]!);
      return document ? send(200, document) : failure(404, 'NotFound', 'the server could not find the requested resource');
    }
    const prefix = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))(\/.*)?$/.exec(path);
    if (!prefix) return failure(404, 'NotFound', 'the server could not find the requested resource');
    const group = prefix[1] ? '' : prefix[2]!;
    const groupVersion = prefix[1] ?? prefix[3]!;
    const segments = (prefix[4] ?? '').split('/').filter(Boolean);
    if (segments.length === 0) {
      const list = types.resourceList(group, groupVersion);
      return list ? send(200, list) : failure(404, 'NotFound', 'the server could not find the requested resource');
    }
    const target = resolveTarget(types, group, groupVersion, segments);
    if (!target) return failure(404, 'NotFound', 'the server could not find the requested resource');
    const { type, namespace, name } = target;
    const verb = verbOf(request.method ?? 'GET', name, url);
    const resourceName = type.plural;
    if (forbidden.some((rule) => rule === resourceName || rule === `${resourceName}:${verb}`)) {
      const scope = namespace ? `in the namespace "${namespace}"` : 'at the cluster scope';
      return failure(
        403,
        'Forbidden',
        `${resourceName} is forbidden: User "${user}" cannot ${verb} resource "${resourceName}" in API group "${type.group}" ${scope}`,
        { kind: resourceName },
      );
    }
    const qualified = `${resourceName}${type.group ? `.${type.group}` : ''}`;
    const notFound = (missing: string) =>
      failure(404, 'NotFound', `${qualified} "${missing}" not found`, { name: missing, group: type.group, kind: resourceName });
    const dryRun = url.searchParams.has('dryRun');
    if (namespace && type.namespaced && (verb === 'create' || verb === 'patch') && !store.get(namespaceType, undefined, namespace))
      return failure(404, 'NotFound', `namespaces "${namespace}" not found`, { name: namespace, kind: 'namespaces' });

    if (verb === 'get') {
      const found = store.get(type, namespace, name!);
      return found ? send(200, found) : notFound(name!);
    }
    if (verb === 'list') {
      const items = filterByFields(
        store.list(type, namespace, url.searchParams.get('labelSelector')),
        url.searchParams.get('fieldSelector'),
      );
      return send(200, {
        kind: `${type.kind}List`,
        apiVersion: type.group ? `${type.group}/${type.version}` : type.version,
        metadata: { resourceVersion: String(store.resourceVersion) },
        items,
      });
    }
    if (verb === 'watch') return watch(type, namespace, url, response);
    if (verb === 'delete') {
      const found = store.get(type, namespace, name!);
      if (!found) return notFound(name!);
      if (!dryRun) store.delete(type, namespace, name!);
      return send(200, found);
    }
    const body = await readBody(request);
    const contentType = request.headers['content-type'] ?? 'application/json';
    let incoming: KubeObject;
    try {
      incoming = decodeBody(body, contentType, verb === 'patch' ? store.get(type, namespace, name!) : undefined);
    } catch (error) {
      return failure(400, 'BadRequest', `the stub could not read the ${contentType} body: ${(error as Error).message}`);
    }
    if (verb === 'patch' && !store.get(type, namespace, name!) && !contentType.startsWith('application/apply-patch'))
      return notFound(name!);
    if (verb === 'update' && !store.get(type, namespace, name!)) return notFound(name!);
    incoming.apiVersion ??= type.group ? `${type.group}/${type.version}` : type.version;
    incoming.kind ??= type.kind;
    incoming.metadata = { ...(incoming.metadata ?? {}), name: incoming.metadata?.name ?? name ?? '' };
    if (type.namespaced) incoming.metadata.namespace = namespace ?? incoming.metadata.namespace ?? 'default';
    const existing = store.get(type, incoming.metadata.namespace, incoming.metadata.name);
    if (verb === 'create' && existing)
      return failure(409, 'AlreadyExists', `${qualified} "${incoming.metadata.name}" already exists`, {
        name: incoming.metadata.name,
        kind: resourceName,
      });
    if (existing && target.subresource !== 'status' && verb !== 'patch') incoming.status = existing.status;
    if (existing && target.subresource === 'status') incoming.spec = existing.spec;
    delete incoming.metadata.managedFields;
    const unknownFields = url.searchParams.get('fieldValidation') === 'Strict' ? (options.strictFields?.(incoming) ?? []) : [];
    if (unknownFields.length > 0)
      return failure(
        400,
        'BadRequest',
        `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: strict decoding error: ${unknownFields.map((field) => `unknown field "${field}"`).join(', ')}`,
      );
    applyDefaults(incoming, clusterIps);
    if (dryRun) return send(existing ? 200 : 201, incoming);
    const stored = store.put(type, incoming);
    return send(existing ? 200 : 201, stored);
  };

  const watch = (type: ResourceType, namespace: string | undefined, url: URL, response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    watches.add(response);
    const labelSelector = url.searchParams.get('labelSelector');
    const fieldSelector = url.searchParams.get('fieldSelector');
    const wanted = (object: KubeObject) =>
      (!namespace || !type.namespaced || object.metadata.namespace === namespace) &&
      matchesLabelSelector(object.metadata.labels, labelSelector) &&
      filterByFields([object], fieldSelector).length > 0;
    const write = (eventType: string, object: unknown) => response.write(`${JSON.stringify({ type: eventType, object })}\n`);
    const since = Number(url.searchParams.get('resourceVersion') ?? '0');
    if (url.searchParams.get('sendInitialEvents') === 'true' || since === 0) {
      for (const object of store.list(type, namespace, labelSelector)) if (wanted(object)) write('ADDED', object);
      if (url.searchParams.get('sendInitialEvents') === 'true')
        write('BOOKMARK', {
          kind: type.kind,
          apiVersion: type.group ? `${type.group}/${type.version}` : type.version,
          metadata: { resourceVersion: String(store.resourceVersion), annotations: { 'k8s.io/initial-events-end': 'true' } },
        });
    }
    const stop = store.watch(type, since === 0 ? store.resourceVersion : since, (event) => {
      if (wanted(event.object)) write(event.type, event.object);
    });
    const timeout = Number(url.searchParams.get('timeoutSeconds') ?? '0');
    const end = () => {
      stop();
      watches.delete(response);
      response.end();
    };
    if (timeout > 0) setTimeout(end, timeout * 1000).unref();
    response.on('close', () => {
      stop();
      watches.delete(response);
    });
  };

  const listener = (request: IncomingMessage, response: ServerResponse) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500, message: String(error) }));
    });
  };
  const server: Server = options.tls ? createTlsServer(options.tls, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const certificateAuthority = options.tls ? `\n    certificate-authority-data: ${Buffer.from(options.tls.cert).toString('base64')}` : '';
  return {
    url,
    requests,
    unauthorized,
    store,
    types,
    kubeconfig: ({ currentContext = true } = {}) =>
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        `- name: stub\n  cluster:\n    server: ${url}${certificateAuthority}`,
        'users:',
        `- name: deployer\n  user:\n    token: ${options.bearerToken ?? 'stub-token'}`,
        'contexts:',
        '- name: stub\n  context:\n    cluster: stub\n    user: deployer\n    namespace: default',
        ...(currentContext ? ['current-context: stub'] : []),
        '',
      ].join('\n'),
    forbid: (rules) => {
      forbidden = [...rules];
    },
    object: (apiVersion, kind, namespace, name) => {
      const type = types.byKind(apiVersion, kind);
      return type ? store.get(type, namespace, name) : undefined;
    },
    close: async () => {
      controllers.stop();
      for (const response of watches) response.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function resolveTarget(types: ResourceTypes, group: string, version: string, segments: string[]): Target | undefined {
  const namespaceType = types.byPlural('', 'v1', 'namespaces');
  if (segments[0] === 'namespaces' && segments.length <= 2 && group === '' && namespaceType)
    return { type: namespaceType, namespace: undefined, name: segments[1], subresource: undefined };
  if (segments[0] === 'namespaces' && segments.length >= 3) {
    const type = types.byPlural(group, version, segments[2]!);
    if (!type?.namespaced) return undefined;
    return { type, namespace: segments[1], name: segments[3], subresource: segments[4] };
  }
  const type = types.byPlural(group, version, segments[0]!);
  return type ? { type, namespace: undefined, name: segments[1], subresource: segments[2] } : undefined;
}

function verbOf(method: string, name: string | undefined, url: URL): KubeVerb {
  if (method === 'GET') {
    const watching = url.searchParams.get('watch');
    if (watching === 'true' || watching === '1') return 'watch';
    return name ? 'get' : 'list';
  }
  if (method === 'POST') return 'create';
  if (method === 'PUT') return 'update';
  if (method === 'PATCH') return 'patch';
  return 'delete';
}

function filterByFields(objects: KubeObject[], selector: string | null): KubeObject[] {
  if (!selector) return objects;
  const terms = selector.split(',').map((term) => term.split('=') as [string, string]);
  return objects.filter((object) =>
    terms.every(([field, value]) => {
      if (field === 'metadata.name') return object.metadata.name === value;
      if (field === 'metadata.namespace') return object.metadata.namespace === value;
      return true;
    }),
  );
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function decodeBody(body: Buffer, contentType: string, existing: KubeObject | undefined): KubeObject {
  if (contentType.startsWith('application/vnd.kubernetes.protobuf')) return decodeSecretProtobuf(body) as KubeObject;
  const text = body.toString('utf8');
  if (contentType.startsWith('application/apply-patch')) return mergePatch(structuredClone(existing ?? {}), parseYaml(text)) as KubeObject;
  const parsed = JSON.parse(text) as unknown;
  if (contentType.startsWith('application/merge-patch+json')) return mergePatch(structuredClone(existing), parsed) as KubeObject;
  if (contentType.startsWith('application/strategic-merge-patch+json'))
    return mergePatch(structuredClone(existing), parsed, true) as KubeObject;
  if (contentType.startsWith('application/json-patch+json'))
    return jsonPatch(existing, parsed as Array<{ op: string; path: string; value?: unknown }>) as KubeObject;
  return parsed as KubeObject;
}
