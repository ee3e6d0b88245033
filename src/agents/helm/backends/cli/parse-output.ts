import { parseAllDocuments } from 'yaml';
import { HelmErrors } from '../../errors.ts';
import { podHealth } from '../readiness.ts';
import type {
  HelmHistoryItem,
  HelmListItem,
  HelmReleaseStatusName,
  HelmSearchItem,
  HelmStatus,
  PodHealth,
  ReleaseHook,
  RenderedRelease,
} from '../types.ts';

/** Helm and kubectl output is untrusted text: parse it strictly and fail with the command named. */
function parseJson(command: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw HelmErrors.HELM_BAD_OUTPUT({ command, detail: `not JSON (${(error as Error).message})` });
  }
}

function record(command: string, value: unknown, what: string): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw HelmErrors.HELM_BAD_OUTPUT({ command, detail: `${what} is not an object` });
  return value as Record<string, unknown>;
}

function text(value: unknown): string {
  return value === undefined || value === null ? '' : String(value);
}

/** `helm list -o json`: an array; Helm prints `null` when there are no releases. */
export function parseHelmList(output: string): HelmListItem[] {
  const value = parseJson('list', output.trim() || '[]');
  if (value === null) return [];
  if (!Array.isArray(value)) throw HelmErrors.HELM_BAD_OUTPUT({ command: 'list', detail: 'expected an array' });
  return value.map((item) => {
    const row = record('list', item, 'a release');
    return {
      name: text(row.name),
      namespace: text(row.namespace),
      revision: text(row.revision),
      updated: text(row.updated),
      status: text(row.status) as HelmReleaseStatusName,
      chart: text(row.chart),
      app_version: text(row.app_version),
    };
  });
}

/**
 * `helm status -o json` (and `helm install|upgrade -o json`, which print the same release object).
 * Real `helm status` strips the chart: its metadata is then empty and is read with `helm get metadata`.
 */
export function parseHelmStatus(output: string, command = 'status'): HelmStatus {
  const row = record(command, parseJson(command, output), 'the release');
  const info = record(command, row.info, 'info');
  const chart = record(command, row.chart ?? {}, 'chart');
  const metadata = record(command, chart.metadata ?? {}, 'chart.metadata');
  // Helm omits a zero version (`omitempty`), as in its own goldens.
  const version = row.version === undefined ? 0 : Number(row.version);
  if (!row.name || !Number.isInteger(version)) throw HelmErrors.HELM_BAD_OUTPUT({ command, detail: 'name or version missing' });
  return {
    name: text(row.name),
    namespace: text(row.namespace),
    version,
    info: {
      first_deployed: text(info.first_deployed),
      last_deployed: text(info.last_deployed),
      deleted: text(info.deleted),
      description: text(info.description),
      status: text(info.status) as HelmReleaseStatusName,
      notes: text(info.notes),
    },
    chart: {
      metadata: {
        name: text(metadata.name),
        version: text(metadata.version),
        appVersion: text(metadata.appVersion),
        ...(metadata.kubeVersion ? { kubeVersion: text(metadata.kubeVersion) } : {}),
        ...(metadata.description ? { description: text(metadata.description) } : {}),
      },
    },
    config: row.config && typeof row.config === 'object' ? (row.config as Record<string, unknown>) : {},
    manifest: text(row.manifest),
  };
}

/** What `helm get metadata -o json` says of a release's chart (Helm ≥ 3.13; also Helm 4). */
export interface HelmReleaseMetadata {
  readonly name: string;
  readonly namespace: string;
  readonly revision: number;
  readonly status: string;
  /** The chart's name (Helm calls the field `chart`). */
  readonly chart: string;
  readonly version: string;
  readonly appVersion: string;
  /** The release's labels (Helm 4 prints them; Helm 3.17 does not). */
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * `helm get metadata -o json`: where a release's chart name and version are to be read, because
 * `helm status -o json` strips the chart from what it prints.
 */
export function parseHelmMetadata(output: string): HelmReleaseMetadata {
  const command = 'get metadata';
  const row = record(command, parseJson(command, output), 'the release metadata');
  if (!row.name || !row.chart) throw HelmErrors.HELM_BAD_OUTPUT({ command, detail: 'name or chart missing' });
  return {
    name: text(row.name),
    namespace: text(row.namespace),
    revision: Number(row.revision) || 0,
    status: text(row.status),
    chart: text(row.chart),
    version: text(row.version),
    appVersion: text(row.appVersion),
    ...(row.labels && typeof row.labels === 'object' && !Array.isArray(row.labels)
      ? { labels: Object.fromEntries(Object.entries(row.labels as Record<string, unknown>).map(([key, value]) => [key, text(value)])) }
      : {}),
  };
}

/** `helm history -o json`. */
export function parseHelmHistory(output: string): HelmHistoryItem[] {
  const value = parseJson('history', output);
  if (!Array.isArray(value)) throw HelmErrors.HELM_BAD_OUTPUT({ command: 'history', detail: 'expected an array' });
  return value.map((item) => {
    const row = record('history', item, 'a revision');
    return {
      revision: Number(row.revision),
      updated: text(row.updated),
      status: text(row.status) as HelmReleaseStatusName,
      chart: text(row.chart),
      app_version: text(row.app_version),
      description: text(row.description),
    };
  });
}

/** `helm search repo -o json`. */
export function parseHelmSearch(output: string): HelmSearchItem[] {
  const value = parseJson('search repo', output);
  if (!Array.isArray(value)) throw HelmErrors.HELM_BAD_OUTPUT({ command: 'search repo', detail: 'expected an array' });
  return value.map((item) => {
    const row = record('search repo', item, 'a chart');
    return { name: text(row.name), version: text(row.version), app_version: text(row.app_version), description: text(row.description) };
  });
}

/** `helm get values -o json`: the user values, `null` when there are none. */
export function parseHelmValues(output: string): Record<string, unknown> {
  const value = parseJson('get values', output);
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** `kubectl version -o json` → the server's git version (`v1.29.4`). */
export function parseKubectlVersion(output: string): string {
  const row = record('kubectl version', parseJson('kubectl version', output), 'version');
  const server = record('kubectl version', row.serverVersion, 'serverVersion');
  return text(server.gitVersion);
}

interface KubeList {
  items: Array<Record<string, unknown>>;
}

function kubeList(command: string, output: string): KubeList {
  const row = record(command, parseJson(command, output), 'the list');
  if (!Array.isArray(row.items)) throw HelmErrors.HELM_BAD_OUTPUT({ command, detail: 'items missing' });
  return row as unknown as KubeList;
}

function name(item: Record<string, unknown>): string {
  return text((item.metadata as Record<string, unknown> | undefined)?.name);
}

/** `kubectl get nodes -o json` → names and the Ready condition. */
export function parseKubectlNodes(output: string): Array<{ name: string; ready: boolean }> {
  return kubeList('kubectl get nodes', output).items.map((item) => {
    const conditions = ((item.status as Record<string, unknown> | undefined)?.conditions ?? []) as Array<Record<string, unknown>>;
    return { name: name(item), ready: conditions.some((c) => c.type === 'Ready' && c.status === 'True') };
  });
}

export function parseKubectlNamespaces(output: string): string[] {
  return kubeList('kubectl get namespaces', output).items.map(name);
}

/** `kubectl get pods -o json` → status as `kubectl get pods` shows it (a waiting or terminated reason wins over the phase). */
export function parseKubectlPods(output: string): PodHealth[] {
  return kubeList('kubectl get pods', output).items.map(podHealth);
}

/** `kubectl get kind/name … -o json`: the objects (a `List` when more than one was asked for). */
export function parseKubectlObjects(output: string): Array<Record<string, unknown>> {
  const value = record('kubectl get', parseJson('kubectl get', output), 'the answer');
  if (value.kind === 'List' || Array.isArray(value.items)) return kubeList('kubectl get', output).items;
  return [value];
}

/**
 * `helm install|upgrade --dry-run=server -o json`: the release Helm would store. Its manifest holds
 * no hooks; they come apart in `hooks` (each with its `events`).
 */
export function parseDryRunRelease(output: string, command: string): { status: HelmStatus; rendered: RenderedRelease } {
  const status = parseHelmStatus(output, command);
  const row = record(command, parseJson(command, output), 'the release');
  const hooks = Array.isArray(row.hooks) ? row.hooks : [];
  return {
    status,
    rendered: {
      manifest: status.manifest,
      hooks: hooks.map((hook) => {
        const item = record(command, hook, 'a hook');
        const manifest = text(item.manifest);
        return {
          key: `${text(item.kind)}/${text(item.name)}`,
          events: Array.isArray(item.events) ? item.events.map(text) : [],
          ...(manifest ? { manifest } : {}),
        };
      }),
    },
  };
}

const MUTATING = new Set(['install', 'upgrade', 'rollback', 'uninstall']);
const CONNECTION_LOST = /connection refused|no such host|i\/o timeout|TLS handshake timeout|dial tcp/i;
const REFUSED = /forbidden|unauthorized/i;
/** The storage driver's wrapping of a failed read of release records or a failed create of the pending one. */
const RELEASE_STORAGE = /(query: failed to query with labels|list: failed to list|get: failed to get "[^"]*"|create: failed to create): /;

/**
 * Maps helm/kubectl stderr to a typed error. "release: not found" is the only not-found. A lost
 * connection or an RBAC refusal while install/upgrade/rollback/uninstall applies objects is not
 * "nothing was changed": Helm has already recorded the revision as failed. Only Helm's own
 * "Kubernetes cluster unreachable" (raised before it touches anything) and failures of reads are.
 */
export function classifyHelmError(operation: string, stderr: string, release = '', namespace = '') {
  const message = stderr.trim().split('\n').filter(Boolean).pop() ?? 'no output';
  const detail = message.replace(/^Error: /, '');
  if (/release: not found/i.test(stderr)) return HelmErrors.HELM_RELEASE_NOT_FOUND({ release, namespace });
  if (/has no deployed releases/i.test(stderr)) return HelmErrors.HELM_NO_DEPLOYED_RELEASES({ release });
  if (/another operation \(install\/upgrade\/rollback\) is in progress/i.test(stderr))
    return HelmErrors.HELM_OPERATION_IN_PROGRESS({ release });
  const missingRevision = /release has no (\d+) version/i.exec(stderr);
  if (missingRevision) return HelmErrors.HELM_REVISION_NOT_FOUND({ release, revision: Number(missingRevision[1]) });
  if (/cannot re-?use a name that is still in use/i.test(stderr)) return HelmErrors.HELM_NAME_IN_USE({ release, namespace });
  if (/Kubernetes cluster unreachable/i.test(stderr)) return HelmErrors.HELM_CLUSTER_UNREACHABLE({ detail });
  // Helm reads the release records and writes the pending one before it applies anything (v3.21.4
  // pkg/storage/driver/secrets.go:72-168; pkg/action/install.go:404, upgrade.go:376): a refusal
  // there is not "the revision was recorded as failed". (A read's refusal stays HELM_FORBIDDEN.)
  if (MUTATING.has(operation) && REFUSED.test(stderr) && RELEASE_STORAGE.test(stderr))
    return HelmErrors.HELM_RELEASE_STORAGE_FORBIDDEN({ release, detail });
  if (MUTATING.has(operation)) {
    if (/context deadline exceeded|timed out waiting for the condition/i.test(stderr))
      return HelmErrors.HELM_TIMEOUT({ operation, release, detail });
    if (CONNECTION_LOST.test(stderr) || REFUSED.test(stderr)) return HelmErrors.HELM_APPLY_FAILED({ operation, release, detail });
  }
  if (CONNECTION_LOST.test(stderr) || /the server could not find the requested resource/i.test(stderr))
    return HelmErrors.HELM_CLUSTER_UNREACHABLE({ detail });
  if (REFUSED.test(stderr)) return HelmErrors.HELM_FORBIDDEN({ detail });
  return HelmErrors.HELM_OPERATION_FAILED({ operation, detail });
}

/**
 * `helm get hooks` (text: each hook's manifest after `---` and `# Source:`, Helm 3 and 4): the
 * hooks of one revision with their `helm.sh/hook` events. Duplicate keys are allowed, as Helm allows them.
 */
export function parseHelmHooks(output: string): ReleaseHook[] {
  const hooks: ReleaseHook[] = [];
  for (const document of parseAllDocuments(output, { uniqueKeys: false })) {
    const object = document.toJS() as {
      kind?: unknown;
      metadata?: { name?: unknown; generateName?: unknown; annotations?: Record<string, unknown> };
    } | null;
    if (!object || typeof object !== 'object') continue;
    const events = String(object.metadata?.annotations?.['helm.sh/hook'] ?? '')
      .split(',')
      .map((event) => event.trim())
      .filter(Boolean);
    const name = String(object.metadata?.name ?? object.metadata?.generateName ?? '');
    if (events.length > 0) hooks.push({ key: `${String(object.kind ?? '')}/${name}`, events, manifest: String(document).trim() });
  }
  return hooks;
}
