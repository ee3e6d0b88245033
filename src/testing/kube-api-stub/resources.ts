/**
 * The resource types the stub API server serves, its discovery documents (legacy `/api`, `/apis`,
 * `APIResourceList`s; clients fall back to these when aggregated discovery is not offered) and an
 * OpenAPI v3 tree whose PATCH operations advertise `fieldValidation`, as API servers >= 1.27 do.
 * That advertisement is what makes kubectl and Helm skip client-side schema validation (cli-runtime's
 * `queryParamVerifierV3`), so the documents carry no schemas. Shapes from the Kubernetes API reference.
 */
export interface ResourceType {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

const BUILT_IN: readonly ResourceType[] = [
  { group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false },
  { group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false },
  { group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true },
  { group: '', version: 'v1', kind: 'Service', plural: 'services', namespaced: true },
  { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
  { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true },
  { group: '', version: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', namespaced: true },
  { group: '', version: 'v1', kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims', namespaced: true },
  { group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true },
  { group: 'apps', version: 'v1', kind: 'ReplicaSet', plural: 'replicasets', namespaced: true },
  { group: 'apps', version: 'v1', kind: 'StatefulSet', plural: 'statefulsets', namespaced: true },
  { group: 'apps', version: 'v1', kind: 'DaemonSet', plural: 'daemonsets', namespaced: true },
  { group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs', namespaced: true },
  { group: 'batch', version: 'v1', kind: 'CronJob', plural: 'cronjobs', namespaced: true },
  { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress', plural: 'ingresses', namespaced: true },
  { group: 'networking.k8s.io', version: 'v1', kind: 'NetworkPolicy', plural: 'networkpolicies', namespaced: true },
  { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets', namespaced: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role', plural: 'roles', namespaced: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding', plural: 'rolebindings', namespaced: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', plural: 'clusterroles', namespaced: false },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
  },
];

const VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

const groupVersion = (type: Pick<ResourceType, 'group' | 'version'>): string =>
  type.group ? `${type.group}/${type.version}` : type.version;

/** The types served: the built-in ones and those the CustomResourceDefinitions created so far add. */
export class ResourceTypes {
  readonly #types: ResourceType[] = [...BUILT_IN];

  add(type: ResourceType): void {
    if (!this.byPlural(type.group, type.version, type.plural)) this.#types.push(type);
  }

  byPlural(group: string, version: string, plural: string): ResourceType | undefined {
    return this.#types.find((t) => t.group === group && t.version === version && t.plural === plural);
  }

  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    return this.#types.find((t) => groupVersion(t) === apiVersion && t.kind === kind);
  }

  apiVersions() {
    return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] };
  }

  apiGroupList() {
    const groups = [...new Set(this.#types.filter((t) => t.group).map((t) => t.group))];
    return {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: groups.map((name) => {
        const versions = [...new Set(this.#types.filter((t) => t.group === name).map((t) => t.version))].map((version) => ({
          groupVersion: `${name}/${version}`,
          version,
        }));
        return { name, versions, preferredVersion: versions[0] };
      }),
    };
  }

  /** The `APIResourceList` of one group version, or undefined when nothing is served there. */
  resourceList(group: string, version: string) {
    const types = this.#types.filter((t) => t.group === group && t.version === version);
    if (types.length === 0) return undefined;
    return {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: groupVersion({ group, version }),
      resources: types.flatMap((t) => [
        { name: t.plural, singularName: t.kind.toLowerCase(), namespaced: t.namespaced, kind: t.kind, verbs: VERBS },
        ...(['Deployment', 'StatefulSet', 'Job', 'DaemonSet', 'ReplicaSet'].includes(t.kind)
          ? [{ name: `${t.plural}/status`, singularName: '', namespaced: t.namespaced, kind: t.kind, verbs: ['get', 'patch', 'update'] }]
          : []),
      ]),
    };
  }

  openApiRoot() {
    const versions = [...new Set(this.#types.map((t) => groupVersion(t)))];
    return {
      paths: Object.fromEntries(
        versions.map((gv) => {
          const path = gv.includes('/') ? `apis/${gv}` : `api/${gv}`;
          return [path, { serverRelativeURL: `/openapi/v3/${path}?hash=${gv.length}` }];
        }),
      ),
    };
  }

  /** One group version's OpenAPI v3 document: a PATCH operation per kind that accepts `fieldValidation`. */
  openApiDocument(group: string, version: string) {
    const types = this.#types.filter((t) => t.group === group && t.version === version);
    if (types.length === 0) return undefined;
    const prefix = group ? `/apis/${group}/${version}` : `/api/${version}`;
    return {
      openapi: '3.0.0',
      info: { title: 'Kubernetes', version: 'v1.32.0' },
      paths: Object.fromEntries(
        types.map((t) => [
          `${prefix}${t.namespaced ? '/namespaces/{namespace}' : ''}/${t.plural}/{name}`,
          {
            patch: {
              operationId: `patch${t.kind}`,
              'x-kubernetes-action': 'patch',
              'x-kubernetes-group-version-kind': { group: t.group, version: t.version, kind: t.kind },
              parameters: ['dryRun', 'fieldManager', 'fieldValidation', 'force'].map((name) => ({
                name,
                in: 'query',
                schema: { type: name === 'force' ? 'boolean' : 'string', uniqueItems: true },
              })),
              responses: {},
            },
          },
        ]),
      ),
      components: { schemas: {} },
    };
  }
}
