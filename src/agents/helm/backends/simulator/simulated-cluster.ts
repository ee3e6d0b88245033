import type { Kysely } from 'kysely';
import type { Clock } from '../../../../core/agent/define-agent.ts';
import type { Store } from '../../../../core/store/index.ts';
import { splitHooks } from '../../charts/hooks.ts';
import { parseManifest, renderChart } from '../../charts/render-chart.ts';
import { HelmErrors } from '../../errors.ts';
import { mergeValues } from '../../values/merge-values.ts';
import type { HelmBackend, ReleaseRequest, RenderRequest } from '../backend.ts';
import { goJsonTime, goTimeString } from '../go-time.ts';
import { releaseHealth } from '../readiness.ts';
import type {
  ClusterInfo,
  HelmHistoryItem,
  HelmListItem,
  HelmReleaseStatusName,
  HelmStatus,
  PodHealth,
  ReleaseHook,
  RenderedRelease,
  WorkloadHealth,
} from '../types.ts';
import type { SimulatorDatabase } from './migration.ts';
import { matchesSelector, podObject, type RolloutOutcome, SIMULATED_NODES, simulateWorkloads } from './simulated-workloads.ts';

/**
 * Failures the simulator can inject (tests and demos):
 * - `unreachable`: every call fails as if the API server were down;
 * - `forbidden`: reads and writes fail with an RBAC error;
 * - `crashloop` / `image-pull`: the release's pods end in CrashLoopBackOff / ImagePullBackOff;
 * - `upgrade-timeout`: the next install or upgrade times out waiting; its revision is recorded failed;
 * - `apply-error`: the next install or upgrade loses the API server while applying; its revision is recorded failed;
 * - `stuck-pending`: the next install, upgrade, rollback or uninstall is interrupted and left
 *   `pending-install`, `pending-upgrade`, `pending-rollback` or `uninstalling`;
 * - `slow-rollout`: workloads take `detail` (default 2) health polls to become ready.
 */
export type SimulatedFault =
  | 'unreachable'
  | 'forbidden'
  | 'crashloop'
  | 'image-pull'
  | 'upgrade-timeout'
  | 'apply-error'
  | 'stuck-pending'
  | 'slow-rollout';

type Row = SimulatorDatabase['helm_sim_releases'];

const KUBERNETES_VERSION = 'v1.29.4';
/** Helm's default `--history-max`: older revisions are pruned, never the last deployed one. */
const HISTORY_MAX = 10;

/**
 * A Kubernetes cluster with Helm, simulated in the opsgate store: namespaces, release revisions in
 * every state Helm records (pending-*, failed, uninstalling, uninstalled with kept history), hooks
 * kept apart from the manifest, history pruned at `--history-max`, and workloads and pods as
 * Kubernetes objects whose status follows a rollout. Every answer is labelled as a simulation by
 * the MCP server.
 */
export class SimulatedCluster implements HelmBackend {
  readonly kind = 'simulated-cluster' as const;
  readonly #db: Kysely<SimulatorDatabase>;
  readonly #clock: Clock;
  #ready: Promise<void> | undefined;

  constructor(store: Store, clock: Clock = { now: () => new Date() }) {
    this.#db = store.db as unknown as Kysely<SimulatorDatabase>;
    this.#clock = clock;
  }

  #now(): string {
    return this.#clock.now().toISOString();
  }

  async #init(): Promise<void> {
    this.#ready ??= (async () => {
      for (const name of ['default', 'kube-system', 'kube-public']) {
        await this.#db
          .insertInto('helm_sim_namespaces')
          .values({ name, created_at: this.#now() })
          .onConflict((oc) => oc.column('name').doNothing())
          .execute();
      }
    })();
    await this.#ready;
  }

  /** Injects a fault for one release (or `*` for all). */
  async injectFault(kind: SimulatedFault, release = '*', detail = ''): Promise<void> {
    await this.#db
      .insertInto('helm_sim_faults')
      .values({ kind, release, detail, created_at: this.#now() })
      .onConflict((oc) => oc.columns(['kind', 'release']).doUpdateSet({ detail }))
      .execute();
  }

  async clearFaults(kind?: SimulatedFault): Promise<void> {
    let query = this.#db.deleteFrom('helm_sim_faults');
    if (kind) query = query.where('kind', '=', kind);
    await query.execute();
  }

  async #fault(kind: SimulatedFault, release: string): Promise<{ detail: string } | undefined> {
    return this.#db
      .selectFrom('helm_sim_faults')
      .select('detail')
      .where('kind', '=', kind)
      .where('release', 'in', [release, '*'])
      .executeTakeFirst();
  }

  /** Takes a one-shot fault: it applies to the next operation only. */
  async #takeFault(kind: SimulatedFault, release: string): Promise<boolean> {
    if (!(await this.#fault(kind, release))) return false;
    await this.#db.deleteFrom('helm_sim_faults').where('kind', '=', kind).where('release', 'in', [release, '*']).execute();
    return true;
  }

  async #guard(release = '*'): Promise<void> {
    await this.#init();
    const down = await this.#fault('unreachable', release);
    if (down) {
      throw HelmErrors.HELM_CLUSTER_UNREACHABLE({
        detail:
          down.detail ||
          'Kubernetes cluster unreachable: Get "https://sim-cluster.local:6443/version": dial tcp 10.96.0.1:6443: connect: connection refused',
      });
    }
    const forbidden = await this.#fault('forbidden', release);
    if (forbidden) {
      throw HelmErrors.HELM_FORBIDDEN({
        detail:
          forbidden.detail ||
          'secrets is forbidden: User "system:serviceaccount:opsgate:agent" cannot list resource "secrets" in API group ""',
      });
    }
  }

  async clusterInfo(): Promise<ClusterInfo> {
    await this.#guard();
    return { context: 'opsgate-simulated-cluster', kubernetesVersion: KUBERNETES_VERSION, nodes: SIMULATED_NODES };
  }

  async listNamespaces(): Promise<string[]> {
    await this.#guard();
    const rows = await this.#db.selectFrom('helm_sim_namespaces').select('name').orderBy('name').execute();
    return rows.map((row) => row.name);
  }

  async #revisions(release: string, namespace: string): Promise<Row[]> {
    return this.#db
      .selectFrom('helm_sim_releases')
      .selectAll()
      .where('namespace', '=', namespace)
      .where('name', '=', release)
      .orderBy('revision')
      .execute();
  }

  async #latest(release: string, namespace: string): Promise<Row | undefined> {
    return (await this.#revisions(release, namespace)).at(-1);
  }

  /** Like `helm list`: the latest revision of each release, sorted by name; `all` adds every state but deployed and failed. */
  async listReleases(query: { namespace?: string; all: boolean }): Promise<HelmListItem[]> {
    await this.#guard();
    let select = this.#db.selectFrom('helm_sim_releases').selectAll();
    if (query.namespace) select = select.where('namespace', '=', query.namespace);
    const rows = await select.orderBy('revision', 'desc').execute();
    const latest = new Map<string, Row>();
    for (const row of rows) if (!latest.has(`${row.namespace}/${row.name}`)) latest.set(`${row.namespace}/${row.name}`, row);
    return [...latest.values()]
      .filter((row) => query.all || row.status === 'deployed' || row.status === 'failed')
      .sort((a, b) => (a.name === b.name ? a.namespace.localeCompare(b.namespace) : a.name < b.name ? -1 : 1))
      .map((row) => ({
        name: row.name,
        namespace: row.namespace,
        revision: String(row.revision),
        updated: goTimeString(row.updated),
        status: row.status as HelmReleaseStatusName,
        chart: `${row.chart_name}-${row.chart_version}`,
        app_version: row.app_version,
      }));
  }

  #toStatus(row: Row): HelmStatus {
    return {
      name: row.name,
      namespace: row.namespace,
      version: row.revision,
      info: {
        first_deployed: goJsonTime(row.first_deployed),
        last_deployed: goJsonTime(row.updated),
        deleted: row.status === 'uninstalled' ? goJsonTime(row.updated) : '',
        description: row.description,
        status: row.status as HelmReleaseStatusName,
        notes: '',
      },
      chart: { metadata: JSON.parse(row.chart_metadata) },
      config: JSON.parse(row.config),
      manifest: row.manifest,
    };
  }

  async status(release: string, namespace: string): Promise<HelmStatus> {
    await this.#guard(release);
    const row = await this.#latest(release, namespace);
    if (!row) throw HelmErrors.HELM_RELEASE_NOT_FOUND({ release, namespace });
    return this.#toStatus(row);
  }

  /** One stored revision as `helm status --revision N` would show it. */
  async revisionStatus(release: string, namespace: string, revision: number): Promise<HelmStatus> {
    await this.#guard(release);
    const row = (await this.#revisions(release, namespace)).find((candidate) => candidate.revision === revision);
    if (!row) throw HelmErrors.HELM_REVISION_NOT_FOUND({ release, revision });
    return this.#toStatus(row);
  }

  /** The stored hooks of the latest revision (with their manifests). */
  async releaseHooks(release: string, namespace: string): Promise<Array<{ key: string; events: string[]; manifest: string }>> {
    const row = await this.#latest(release, namespace);
    return row ? JSON.parse(row.hooks) : [];
  }

  /** The hooks of one stored revision, with their manifests. */
  async revisionHooks(release: string, namespace: string, revision: number): Promise<Array<ReleaseHook & { manifest: string }>> {
    await this.#guard(release);
    const row = (await this.#revisions(release, namespace)).find((candidate) => candidate.revision === revision);
    if (!row) throw HelmErrors.HELM_REVISION_NOT_FOUND({ release, revision });
    return JSON.parse(row.hooks);
  }

  async history(release: string, namespace: string): Promise<HelmHistoryItem[]> {
    await this.#guard(release);
    const rows = await this.#revisions(release, namespace);
    if (rows.length === 0) throw HelmErrors.HELM_RELEASE_NOT_FOUND({ release, namespace });
    return rows.map((row) => ({
      revision: row.revision,
      updated: goJsonTime(row.updated),
      status: row.status as HelmReleaseStatusName,
      chart: `${row.chart_name}-${row.chart_version}`,
      app_version: row.app_version,
      description: row.description,
    }));
  }

  async revisionManifest(release: string, namespace: string, revision: number): Promise<string> {
    return (await this.revisionStatus(release, namespace, revision)).manifest;
  }

  async revisionValues(release: string, namespace: string, revision: number): Promise<Record<string, unknown>> {
    return (await this.revisionStatus(release, namespace, revision)).config;
  }

  async render(request: RenderRequest): Promise<RenderedRelease> {
    const { manifest, hooks } = this.#renderSplit(request);
    return { manifest, hooks };
  }

  #renderSplit(request: RenderRequest) {
    return splitHooks(
      renderChart(request.chart, mergeValues(request.chart.defaults, request.values), {
        releaseName: request.release,
        namespace: request.namespace,
        revision: request.revision,
      }),
    );
  }

  async #ensureNamespace(namespace: string, create: boolean): Promise<void> {
    const exists = await this.#db.selectFrom('helm_sim_namespaces').select('name').where('name', '=', namespace).executeTakeFirst();
    if (exists) return;
    if (!create)
      throw HelmErrors.HELM_OPERATION_FAILED({
        operation: 'install',
        detail: `create: failed to create: namespaces "${namespace}" not found (pass createNamespace)`,
      });
    await this.#db.insertInto('helm_sim_namespaces').values({ name: namespace, created_at: this.#now() }).execute();
  }

  #row(request: ReleaseRequest, revision: number, firstDeployed: string, status: HelmReleaseStatusName, description: string): Row {
    const rendered = this.#renderSplit({ ...request, revision, isUpgrade: revision > 1 });
    return {
      namespace: request.namespace,
      name: request.release,
      revision,
      status,
      chart_name: request.chart.metadata.name,
      chart_version: request.chart.metadata.version,
      app_version: request.chart.metadata.appVersion ?? '',
      chart_metadata: JSON.stringify({
        name: request.chart.metadata.name,
        version: request.chart.metadata.version,
        appVersion: request.chart.metadata.appVersion ?? '',
        description: request.chart.metadata.description ?? '',
        ...(request.chart.metadata.kubeVersion ? { kubeVersion: request.chart.metadata.kubeVersion } : {}),
        apiVersion: request.chart.metadata.apiVersion ?? 'v2',
      }),
      description,
      config: JSON.stringify(request.values),
      manifest: rendered.manifest,
      first_deployed: firstDeployed,
      updated: this.#now(),
      hooks: JSON.stringify(rendered.hooks),
    };
  }

  async #setStatus(release: string, namespace: string, revision: number, status: HelmReleaseStatusName): Promise<void> {
    await this.#db
      .updateTable('helm_sim_releases')
      .set({ status })
      .where('namespace', '=', namespace)
      .where('name', '=', release)
      .where('revision', '=', revision)
      .execute();
  }

  /** Helm's `removeLeastRecent`: keeps `HISTORY_MAX` revisions, the last deployed one always among them. */
  async #pruneHistory(release: string, namespace: string): Promise<void> {
    const rows = await this.#revisions(release, namespace);
    const lastDeployed = [...rows].reverse().find((row) => row.status === 'deployed')?.revision;
    const removable = rows.filter((row) => row.revision !== lastDeployed);
    const excess = rows.length - HISTORY_MAX;
    for (const row of removable.slice(0, Math.max(0, excess))) {
      await this.#db
        .deleteFrom('helm_sim_releases')
        .where('namespace', '=', namespace)
        .where('name', '=', release)
        .where('revision', '=', row.revision)
        .execute();
    }
  }

  async #rollout(release: string, namespace: string, manifest: string, revision: number, timedOut: boolean): Promise<void> {
    const previous = await this.#db
      .selectFrom('helm_sim_workloads')
      .select(['kind', 'name', 'object'])
      .where('namespace', '=', namespace)
      .where('release', '=', release)
      .execute();
    const previousGenerations = new Map(
      previous.map((row) => {
        const object = JSON.parse(row.object) as { metadata?: { generation?: number }; spec?: unknown };
        return [`${row.kind}/${row.name}`, { generation: object.metadata?.generation ?? 1, spec: JSON.stringify(object.spec ?? {}) }];
      }),
    );
    const outcome: RolloutOutcome = (await this.#fault('crashloop', release))
      ? 'crashloop'
      : (await this.#fault('image-pull', release))
        ? 'image-pull'
        : timedOut
          ? 'timed-out'
          : (await this.#fault('slow-rollout', release))
            ? 'rolling'
            : 'ready';
    const workloads = simulateWorkloads({ release, namespace, revision, resources: parseManifest(manifest), previousGenerations, outcome });
    await this.#db.deleteFrom('helm_sim_pods').where('namespace', '=', namespace).where('release', '=', release).execute();
    await this.#db.deleteFrom('helm_sim_workloads').where('namespace', '=', namespace).where('release', '=', release).execute();
    for (const workload of workloads) {
      const object = workload.object;
      await this.#db
        .insertInto('helm_sim_workloads')
        .values({ namespace, release, kind: workload.kind, name: workload.name, condition: null, object: JSON.stringify(object) })
        .execute();
      for (const pod of workload.pods) {
        await this.#db
          .insertInto('helm_sim_pods')
          .values({
            namespace,
            release,
            name: pod.name,
            status: pod.status,
            ready: pod.ready ? 1 : 0,
            restarts: pod.restarts,
            labels: JSON.stringify(pod.labels),
          })
          .execute();
      }
    }
  }

  /** Helm's check before an install: the name is free, or its last revision is uninstalled/failed and `replace` is set. */
  async #checkNameFree(request: ReleaseRequest & { readonly replace?: boolean }): Promise<Row | undefined> {
    const latest = await this.#latest(request.release, request.namespace);
    if (!latest) return undefined;
    if (request.replace && (latest.status === 'uninstalled' || latest.status === 'failed')) return latest;
    throw HelmErrors.HELM_NAME_IN_USE({ release: request.release, namespace: request.namespace });
  }

  /** What an install or upgrade would store, without storing it (`--dry-run=server`): the release and its hooks. */
  async dryRun(
    request: ReleaseRequest & { readonly upgrade: boolean },
  ): Promise<{ status: HelmStatus; hooks: Array<{ key: string; events: string[]; manifest: string }> }> {
    await this.#guard(request.release);
    const latest = request.upgrade ? await this.#upgradeBase(request) : await this.#checkNameFree(request);
    const revision = latest ? latest.revision + 1 : 1;
    const row = this.#row(
      request,
      revision,
      latest?.first_deployed ?? this.#now(),
      request.upgrade ? 'pending-upgrade' : 'pending-install',
      'Dry run complete',
    );
    return { status: this.#toStatus(row), hooks: JSON.parse(row.hooks) };
  }

  async install(request: ReleaseRequest & { readonly replace?: boolean }): Promise<HelmStatus> {
    await this.#guard(request.release);
    const replaced = await this.#checkNameFree(request);
    await this.#ensureNamespace(request.namespace, request.createNamespace);
    const revision = replaced ? replaced.revision + 1 : 1;
    if (await this.#takeFault('stuck-pending', request.release)) {
      await this.#db
        .insertInto('helm_sim_releases')
        .values(this.#row(request, revision, this.#now(), 'pending-install', 'Initial install underway'))
        .execute();
      throw HelmErrors.HELM_OPERATION_FAILED({
        operation: 'install',
        detail: `the install was interrupted; revision ${revision} is left in pending-install`,
      });
    }
    return this.#apply(request, revision, this.#now(), 'install', replaced);
  }

  /** Helm's upgrade base: the last revision must not be pending; a release with nothing deployed (only uninstalled) cannot be upgraded. */
  async #upgradeBase(request: ReleaseRequest): Promise<Row> {
    const rows = await this.#revisions(request.release, request.namespace);
    const last = rows.at(-1);
    if (!last || last.status === 'uninstalled') throw HelmErrors.HELM_NO_DEPLOYED_RELEASES({ release: request.release });
    if (last.status.startsWith('pending-') || last.status === 'uninstalling')
      throw HelmErrors.HELM_OPERATION_IN_PROGRESS({ release: request.release });
    return last;
  }

  async upgrade(request: ReleaseRequest): Promise<HelmStatus> {
    await this.#guard(request.release);
    const last = await this.#upgradeBase(request);
    const revision = last.revision + 1;
    if (await this.#takeFault('stuck-pending', request.release)) {
      await this.#db
        .insertInto('helm_sim_releases')
        .values(this.#row(request, revision, last.first_deployed, 'pending-upgrade', 'Preparing upgrade'))
        .execute();
      throw HelmErrors.HELM_OPERATION_FAILED({
        operation: 'upgrade',
        detail: `the upgrade was interrupted; revision ${revision} is left in pending-upgrade`,
      });
    }
    return this.#apply(request, revision, last.first_deployed, 'upgrade', last);
  }

  /**
   * Applies a new revision. As in Helm, a failure while applying or waiting records the new revision
   * `failed` and leaves the previous one `deployed`; only success supersedes it.
   */
  async #apply(
    request: ReleaseRequest,
    revision: number,
    firstDeployed: string,
    operation: 'install' | 'upgrade',
    previous: Row | undefined,
  ): Promise<HelmStatus> {
    const verb = operation === 'install' ? 'Release' : 'Upgrade';
    if (await this.#takeFault('apply-error', request.release)) {
      const detail = `failed to create resource: Post "https://sim-cluster.local:6443/apis/apps/v1/namespaces/${request.namespace}/deployments": dial tcp 10.96.0.1:6443: connect: connection refused`;
      await this.#db
        .insertInto('helm_sim_releases')
        .values(this.#row(request, revision, firstDeployed, 'failed', `${verb} "${request.release}" failed: ${detail}`))
        .execute();
      await this.#pruneHistory(request.release, request.namespace);
      throw HelmErrors.HELM_APPLY_FAILED({ operation, release: request.release, detail });
    }
    const timedOut = await this.#takeFault('upgrade-timeout', request.release);
    const row = this.#row(
      request,
      revision,
      firstDeployed,
      timedOut ? 'failed' : 'deployed',
      timedOut
        ? `${verb} "${request.release}" failed: context deadline exceeded`
        : operation === 'install'
          ? 'Install complete'
          : 'Upgrade complete',
    );
    if (!timedOut) {
      // Success supersedes what ran before: the deployed revision, or the failed/uninstalled one this replaces.
      for (const old of await this.#revisions(request.release, request.namespace))
        if (old.status === 'deployed' || old.revision === previous?.revision)
          await this.#setStatus(request.release, request.namespace, old.revision, 'superseded');
    }
    await this.#db.insertInto('helm_sim_releases').values(row).execute();
    await this.#pruneHistory(request.release, request.namespace);
    await this.#rollout(request.release, request.namespace, row.manifest, revision, timedOut);
    if (timedOut)
      throw HelmErrors.HELM_TIMEOUT({
        operation,
        release: request.release,
        detail: `${operation === 'install' ? 'INSTALLATION' : 'UPGRADE'} FAILED: context deadline exceeded`,
      });
    return this.#toStatus(row);
  }

  async rollback(release: string, namespace: string, revision: number): Promise<void> {
    await this.#guard(release);
    const rows = await this.#revisions(release, namespace);
    const current = rows.at(-1);
    if (!current) throw HelmErrors.HELM_RELEASE_NOT_FOUND({ release, namespace });
    const target = rows.find((row) => row.revision === revision);
    if (!target) throw HelmErrors.HELM_REVISION_NOT_FOUND({ release, revision });
    const next = current.revision + 1;
    if (await this.#takeFault('stuck-pending', release)) {
      await this.#db
        .insertInto('helm_sim_releases')
        .values({ ...target, revision: next, status: 'pending-rollback', description: `Rollback to ${revision}`, updated: this.#now() })
        .execute();
      throw HelmErrors.HELM_OPERATION_FAILED({
        operation: 'rollback',
        detail: `the rollback was interrupted; revision ${next} is left in pending-rollback`,
      });
    }
    for (const row of rows)
      if (row.status === 'deployed' || row.status.startsWith('pending-'))
        await this.#setStatus(release, namespace, row.revision, 'superseded');
    await this.#db
      .insertInto('helm_sim_releases')
      .values({ ...target, revision: next, status: 'deployed', description: `Rollback to ${revision}`, updated: this.#now() })
      .execute();
    await this.#pruneHistory(release, namespace);
    await this.#rollout(release, namespace, target.manifest, next, false);
  }

  /** `helm uninstall`; with `keepHistory` the revisions stay, the last one `uninstalled`. */
  async uninstall(
    release: string,
    namespace: string,
    options: { readonly keepHistory?: boolean; readonly hooks?: number } = {},
  ): Promise<void> {
    await this.#guard(release);
    const latest = await this.#latest(release, namespace);
    if (!latest || latest.status === 'uninstalled') throw HelmErrors.HELM_RELEASE_NOT_FOUND({ release, namespace });
    if (await this.#takeFault('stuck-pending', release)) {
      await this.#setStatus(release, namespace, latest.revision, 'uninstalling');
      throw HelmErrors.HELM_OPERATION_FAILED({
        operation: 'uninstall',
        detail: `the uninstall was interrupted; revision ${latest.revision} is left uninstalling`,
      });
    }
    if (options.keepHistory) {
      await this.#db
        .updateTable('helm_sim_releases')
        .set({ status: 'uninstalled', description: 'Uninstallation complete', updated: this.#now() })
        .where('namespace', '=', namespace)
        .where('name', '=', release)
        .where('revision', '=', latest.revision)
        .execute();
    } else {
      await this.#db.deleteFrom('helm_sim_releases').where('namespace', '=', namespace).where('name', '=', release).execute();
    }
    await this.#db.deleteFrom('helm_sim_pods').where('namespace', '=', namespace).where('release', '=', release).execute();
    await this.#db.deleteFrom('helm_sim_workloads').where('namespace', '=', namespace).where('release', '=', release).execute();
  }

  /** `kubectl get <kind>/<name> … -o json` for the release's workloads; a slow rollout advances one step per read. */
  async workloadObjects(namespace: string, refs: ReadonlyArray<{ kind: string; name: string }>): Promise<Array<Record<string, unknown>>> {
    await this.#guard();
    const rows = await this.#db.selectFrom('helm_sim_workloads').selectAll().where('namespace', '=', namespace).execute();
    const wanted = new Set(refs.map((ref) => `${ref.kind}/${ref.name}`));
    const found = rows.filter((row) => wanted.has(`${row.kind}/${row.name}`));
    let advanced = false;
    for (const release of new Set(found.map((row) => row.release)))
      advanced = (await this.#advanceSlowRollout(release, namespace)) || advanced;
    const current = advanced
      ? (await this.#db.selectFrom('helm_sim_workloads').selectAll().where('namespace', '=', namespace).execute()).filter((row) =>
          wanted.has(`${row.kind}/${row.name}`),
        )
      : found;
    return current.map((row) => JSON.parse(row.object) as Record<string, unknown>);
  }

  /** `kubectl get pods -l <selector> -o json`. */
  async podObjects(namespace: string, selector: string): Promise<Array<Record<string, unknown>>> {
    await this.#guard();
    const rows = await this.#db.selectFrom('helm_sim_pods').selectAll().where('namespace', '=', namespace).orderBy('name').execute();
    return rows
      .map((row) => ({
        name: row.name,
        status: row.status,
        ready: row.ready === 1,
        restarts: row.restarts,
        labels: JSON.parse(row.labels) as Record<string, string>,
      }))
      .filter((pod) => matchesSelector(pod.labels, selector))
      .map((pod) => podObject(namespace, pod));
  }

  /** One step of a slow rollout; true when it finished and the workloads were rewritten. */
  async #advanceSlowRollout(release: string, namespace: string): Promise<boolean> {
    const slow = await this.#fault('slow-rollout', release);
    if (!slow) return false;
    const left = Number(slow.detail || '2') - 1;
    if (left > 0) {
      await this.injectFault('slow-rollout', release, String(left));
      return false;
    }
    await this.clearFaults('slow-rollout');
    const latest = await this.#latest(release, namespace);
    if (!latest) return false;
    await this.#rollout(release, namespace, latest.manifest, latest.revision, false);
    return true;
  }

  /** Readiness of the release's workloads (from its manifest) by the rules of `helm --wait`, and their pods. */
  async health(release: string, namespace: string, manifest: string): Promise<{ pods: PodHealth[]; workloads: WorkloadHealth[] }> {
    await this.#guard(release);
    return releaseHealth(manifest, {
      workloads: (refs) => this.workloadObjects(namespace, refs),
      pods: (selector) => this.podObjects(namespace, selector),
    });
  }
}
