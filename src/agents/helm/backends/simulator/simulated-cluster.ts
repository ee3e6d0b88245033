import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../../../core/agent/define-agent.ts';
import type { Store } from '../../../../core/store/index.ts';
import { parseManifest, renderChart } from '../../charts/render-chart.ts';
import { HelmErrors } from '../../errors.ts';
import type {
  ClusterInfo,
  HelmHistoryItem,
  HelmListItem,
  HelmReleaseStatusName,
  HelmStatus,
  PodHealth,
  WorkloadHealth,
} from '../../types.ts';
import { mergeValues } from '../../values/merge-values.ts';
import type { HelmBackend, ReleaseRequest, RenderRequest } from '../backend.ts';
import type { SimulatorDatabase } from './migration.ts';

/**
 * Failures the simulator can inject (tests and demos):
 * - `unreachable`: every call fails as if the API server were down;
 * - `forbidden`: reads and writes fail with an RBAC error;
 * - `crashloop` / `image-pull`: the release's pods end in CrashLoopBackOff / ImagePullBackOff;
 * - `upgrade-timeout`: the next upgrade fails after its timeout, its Deployment ProgressDeadlineExceeded;
 * - `stuck-pending`: the next upgrade is left in `pending-upgrade`.
 */
export type SimulatedFault = 'unreachable' | 'forbidden' | 'crashloop' | 'image-pull' | 'upgrade-timeout' | 'stuck-pending';

type Row = SimulatorDatabase['helm_sim_releases'];

const KUBERNETES_VERSION = 'v1.29.4';
const NODES = [
  { name: 'sim-node-1', ready: true },
  { name: 'sim-node-2', ready: true },
];

/** `2025-01-01 10:00:00.000000000 +0000 UTC`, the way `helm list` prints times. */
function helmListTime(iso: string): string {
  const [date, time = ''] = iso.replace('Z', '').split('T');
  const [clock = '00:00:00', fraction = '0'] = time.split('.');
  return `${date} ${clock}.${fraction.padEnd(9, '0')} +0000 UTC`;
}

function shortHash(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/**
 * A Kubernetes cluster with Helm, simulated in the opsgate store: namespaces, release revisions
 * (same JSON shapes as Helm 3), pods and workload conditions. Every answer is labelled as a
 * simulation by the MCP server.
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

  async #guard(release = '*'): Promise<void> {
    await this.#init();
    const down = await this.#fault('unreachable', release);
    if (down) {
      throw HelmErrors.HELM_CLUSTER_UNREACHABLE({
        detail: down.detail || 'Get "https://sim-cluster.local:6443/version": dial tcp 10.96.0.1:6443: connect: connection refused',
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
    return { context: 'opsgate-simulated-cluster', kubernetesVersion: KUBERNETES_VERSION, nodes: NODES };
  }

  async listNamespaces(): Promise<string[]> {
    await this.#guard();
    const rows = await this.#db.selectFrom('helm_sim_namespaces').select('name').orderBy('name').execute();
    return rows.map((row) => row.name);
  }

  async #latest(release: string, namespace: string): Promise<Row | undefined> {
    return this.#db
      .selectFrom('helm_sim_releases')
      .selectAll()
      .where('namespace', '=', namespace)
      .where('name', '=', release)
      .orderBy('revision', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  async listReleases(query: { namespace?: string; all: boolean }): Promise<HelmListItem[]> {
    await this.#guard();
    let select = this.#db.selectFrom('helm_sim_releases').selectAll();
    if (query.namespace) select = select.where('namespace', '=', query.namespace);
    const rows = await select.orderBy('namespace').orderBy('name').orderBy('revision', 'desc').execute();
    const latest = new Map<string, Row>();
    for (const row of rows) if (!latest.has(`${row.namespace}/${row.name}`)) latest.set(`${row.namespace}/${row.name}`, row);
    return [...latest.values()]
      .filter((row) => query.all || row.status === 'deployed' || row.status === 'failed')
      .map((row) => ({
        name: row.name,
        namespace: row.namespace,
        revision: String(row.revision),
        updated: helmListTime(row.updated),
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
        first_deployed: row.first_deployed,
        last_deployed: row.updated,
        deleted: '',
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

  async history(release: string, namespace: string): Promise<HelmHistoryItem[]> {
    await this.#guard(release);
    const rows = await this.#db
      .selectFrom('helm_sim_releases')
      .selectAll()
      .where('namespace', '=', namespace)
      .where('name', '=', release)
      .orderBy('revision')
      .execute();
    if (rows.length === 0) throw HelmErrors.HELM_RELEASE_NOT_FOUND({ release, namespace });
    return rows.map((row) => ({
      revision: row.revision,
      updated: row.updated,
      status: row.status as HelmReleaseStatusName,
      chart: `${row.chart_name}-${row.chart_version}`,
      app_version: row.app_version,
      description: row.description,
    }));
  }

  async revisionManifest(release: string, namespace: string, revision: number): Promise<string> {
    await this.#guard(release);
    const row = await this.#db
      .selectFrom('helm_sim_releases')
      .select('manifest')
      .where('namespace', '=', namespace)
      .where('name', '=', release)
      .where('revision', '=', revision)
      .executeTakeFirst();
    if (!row) throw HelmErrors.HELM_REVISION_NOT_FOUND({ release, revision });
    return row.manifest;
  }

  async render(request: RenderRequest): Promise<string> {
    return renderChart(request.chart, mergeValues(request.chart.defaults, request.values), {
      releaseName: request.release,
      namespace: request.namespace,
      revision: request.revision,
    });
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

  async #write(
    request: ReleaseRequest,
    revision: number,
    firstDeployed: string,
    status: HelmReleaseStatusName,
    description: string,
  ): Promise<Row> {
    const manifest = await this.render({ ...request, revision, isUpgrade: revision > 1 });
    const now = this.#now();
    const row: Row = {
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
      manifest,
      first_deployed: firstDeployed,
      updated: now,
    };
    await this.#db.insertInto('helm_sim_releases').values(row).execute();
    return row;
  }

  async #supersede(release: string, namespace: string): Promise<void> {
    await this.#db
      .updateTable('helm_sim_releases')
      .set({ status: 'superseded' })
      .where('namespace', '=', namespace)
      .where('name', '=', release)
      .where('status', 'in', ['deployed', 'failed'])
      .execute();
  }

  async #schedulePods(release: string, namespace: string, manifest: string, revision: number, timedOut: boolean): Promise<void> {
    await this.#db.deleteFrom('helm_sim_pods').where('namespace', '=', namespace).where('release', '=', release).execute();
    await this.#db.deleteFrom('helm_sim_workloads').where('namespace', '=', namespace).where('release', '=', release).execute();
    const crash = await this.#fault('crashloop', release);
    const pull = await this.#fault('image-pull', release);
    for (const resource of parseManifest(manifest)) {
      const kind = resource.kind;
      if (!['Deployment', 'StatefulSet', 'DaemonSet'].includes(kind)) continue;
      const spec = (resource.object.spec ?? {}) as Record<string, unknown>;
      const replicas = kind === 'DaemonSet' ? NODES.length : typeof spec.replicas === 'number' ? spec.replicas : 1;
      const condition = timedOut && kind === 'Deployment' ? 'ProgressDeadlineExceeded' : null;
      await this.#db.insertInto('helm_sim_workloads').values({ namespace, release, kind, name: resource.name, condition }).execute();
      const template = shortHash(`${release}/${revision}/${resource.key}`, 10);
      for (let index = 0; index < replicas; index++) {
        const name =
          kind === 'StatefulSet' ? `${resource.name}-${index}` : `${resource.name}-${template}-${shortHash(`${template}/${index}`, 5)}`;
        const status = crash ? 'CrashLoopBackOff' : pull ? 'ImagePullBackOff' : timedOut ? 'ContainerCreating' : 'Running';
        await this.#db
          .insertInto('helm_sim_pods')
          .values({ namespace, release, name, status, ready: status === 'Running' ? 1 : 0, restarts: crash ? 5 : 0 })
          .execute();
      }
    }
  }

  async install(request: ReleaseRequest): Promise<HelmStatus> {
    await this.#guard(request.release);
    if (await this.#latest(request.release, request.namespace))
      throw HelmErrors.HELM_NAME_IN_USE({ release: request.release, namespace: request.namespace });
    await this.#ensureNamespace(request.namespace, request.createNamespace);
    const row = await this.#write(request, 1, this.#now(), 'deployed', 'Install complete');
    await this.#schedulePods(request.release, request.namespace, row.manifest, 1, false);
    return this.#toStatus(row);
  }

  async upgrade(request: ReleaseRequest): Promise<HelmStatus> {
    await this.#guard(request.release);
    const current = await this.#latest(request.release, request.namespace);
    if (!current) throw HelmErrors.HELM_RELEASE_NOT_FOUND({ release: request.release, namespace: request.namespace });
    if (current.status.startsWith('pending-')) {
      throw HelmErrors.HELM_OPERATION_FAILED({
        operation: 'upgrade',
        detail: 'another operation (install/upgrade/rollback) is in progress',
      });
    }
    const revision = current.revision + 1;
    const timeout = await this.#fault('upgrade-timeout', request.release);
    const stuck = await this.#fault('stuck-pending', request.release);
    await this.#supersede(request.release, request.namespace);
    const row = await this.#write(
      request,
      revision,
      current.first_deployed,
      stuck ? 'pending-upgrade' : timeout ? 'failed' : 'deployed',
      stuck
        ? 'Preparing upgrade'
        : timeout
          ? `Upgrade "${request.release}" failed: timed out waiting for the condition`
          : 'Upgrade complete',
    );
    if (timeout) await this.clearFaults('upgrade-timeout');
    await this.#schedulePods(request.release, request.namespace, row.manifest, revision, Boolean(timeout));
    if (stuck) {
      await this.clearFaults('stuck-pending');
      throw HelmErrors.HELM_OPERATION_FAILED({
        operation: 'upgrade',
        detail: `the upgrade was interrupted; revision ${revision} is left in pending-upgrade`,
      });
    }
    if (timeout)
      throw HelmErrors.HELM_OPERATION_FAILED({
        operation: 'upgrade',
        detail: `UPGRADE FAILED: timed out waiting for the condition (revision ${revision} is failed)`,
      });
    return this.#toStatus(row);
  }

  async rollback(release: string, namespace: string, revision: number): Promise<void> {
    await this.#guard(release);
    const current = await this.#latest(release, namespace);
    if (!current) throw HelmErrors.HELM_RELEASE_NOT_FOUND({ release, namespace });
    const target = await this.#db
      .selectFrom('helm_sim_releases')
      .selectAll()
      .where('namespace', '=', namespace)
      .where('name', '=', release)
      .where('revision', '=', revision)
      .executeTakeFirst();
    if (!target) throw HelmErrors.HELM_REVISION_NOT_FOUND({ release, revision });
    await this.#db
      .updateTable('helm_sim_releases')
      .set({ status: 'superseded' })
      .where('namespace', '=', namespace)
      .where('name', '=', release)
      .where('status', '!=', 'superseded')
      .execute();
    const next = current.revision + 1;
    await this.#db
      .insertInto('helm_sim_releases')
      .values({ ...target, revision: next, status: 'deployed', description: `Rollback to ${revision}`, updated: this.#now() })
      .execute();
    await this.#schedulePods(release, namespace, target.manifest, next, false);
  }

  async uninstall(release: string, namespace: string): Promise<void> {
    await this.#guard(release);
    if (!(await this.#latest(release, namespace))) throw HelmErrors.HELM_RELEASE_NOT_FOUND({ release, namespace });
    await this.#db.deleteFrom('helm_sim_releases').where('namespace', '=', namespace).where('name', '=', release).execute();
    await this.#db.deleteFrom('helm_sim_pods').where('namespace', '=', namespace).where('release', '=', release).execute();
    await this.#db.deleteFrom('helm_sim_workloads').where('namespace', '=', namespace).where('release', '=', release).execute();
  }

  async health(release: string, namespace: string): Promise<{ pods: PodHealth[]; workloads: WorkloadHealth[] }> {
    await this.#guard(release);
    const pods = await this.#db
      .selectFrom('helm_sim_pods')
      .selectAll()
      .where('namespace', '=', namespace)
      .where('release', '=', release)
      .orderBy('name')
      .execute();
    const workloads = await this.#db
      .selectFrom('helm_sim_workloads')
      .selectAll()
      .where('namespace', '=', namespace)
      .where('release', '=', release)
      .orderBy('name')
      .execute();
    return {
      pods: pods.map((pod) => ({ name: pod.name, status: pod.status, ready: pod.ready === 1, restarts: pod.restarts })),
      workloads: workloads.map((w) =>
        w.condition ? { kind: w.kind, name: w.name, condition: w.condition } : { kind: w.kind, name: w.name },
      ),
    };
  }
}
