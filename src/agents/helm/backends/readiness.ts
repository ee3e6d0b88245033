import { parseManifest } from '../charts/render-chart.ts';
import type { PodHealth, WorkloadHealth } from './types.ts';

/** The workload kinds `helm --wait` waits for, and that Phase 5 checks. */
const WAITED_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet', 'Job'] as const;
export type WaitedKind = (typeof WAITED_KINDS)[number];

export function isWaitedKind(kind: string): kind is WaitedKind {
  return (WAITED_KINDS as readonly string[]).includes(kind);
}

type KubeObject = Record<string, unknown>;

function field(object: unknown, path: string): unknown {
  let current = object;
  for (const key of path.split('.')) {
    if (!current || typeof current !== 'object') return undefined;
    current = (current as KubeObject)[key];
  }
  return current;
}

function count(object: unknown, path: string, fallback = 0): number {
  const value = field(object, path);
  return typeof value === 'number' ? value : fallback;
}

/** `intstr`: an integer or a percentage of `total` (rounded down, as Kubernetes does for maxUnavailable). */
function scaled(value: unknown, total: number, fallback: number): number {
  if (typeof value === 'number') return value;
  const percent = typeof value === 'string' ? /^(\d+)%$/.exec(value)?.[1] : undefined;
  return percent === undefined ? fallback : Math.floor((Number(percent) * total) / 100);
}

function generationObserved(object: KubeObject): boolean {
  return count(object, 'status.observedGeneration', -1) >= count(object, 'metadata.generation', 0);
}

function conditionReason(object: KubeObject, type: string, status: string): string | undefined {
  const conditions = field(object, 'status.conditions');
  if (!Array.isArray(conditions)) return undefined;
  const found = conditions.find((condition) => field(condition, 'type') === type && field(condition, 'status') === status) as
    | KubeObject
    | undefined;
  return found ? String(found.reason ?? type) : undefined;
}

/**
 * Whether one workload is ready, by the rules of Helm's `--wait` (`pkg/kube/ready.go`) applied to
 * what `kubectl get -o json` returns: the controller has observed the latest generation, and enough
 * updated replicas are ready. A Deployment whose rollout hit its progress deadline, and a Job past
 * its backoff limit, have failed (they will not become ready by waiting).
 */
export function workloadReadiness(object: KubeObject): WorkloadHealth {
  const kind = String(object.kind ?? '');
  const name = String(field(object, 'metadata.name') ?? '');
  const verdict = (ready: boolean, reason: string, failed = false): WorkloadHealth => ({
    kind,
    name,
    ready,
    reason,
    ...(failed ? { condition: reason } : {}),
  });
  if (kind === 'Job') {
    const backoffLimit = count(object, 'spec.backoffLimit', 6);
    if (count(object, 'status.failed') > backoffLimit) return verdict(false, 'BackoffLimitExceeded', true);
    const completions = field(object, 'spec.completions');
    const succeeded = count(object, 'status.succeeded');
    if (typeof completions === 'number' && succeeded < completions)
      return verdict(false, `${succeeded} of ${completions} completions succeeded`);
    return verdict(true, 'complete');
  }
  if (!generationObserved(object)) return verdict(false, 'the controller has not observed the latest spec yet');
  const replicas = count(object, 'spec.replicas', 1);
  if (kind === 'Deployment') {
    const deadline = conditionReason(object, 'Progressing', 'False');
    if (deadline === 'ProgressDeadlineExceeded') return verdict(false, deadline, true);
    const maxUnavailable =
      field(object, 'spec.strategy.type') === 'Recreate'
        ? 0
        : scaled(field(object, 'spec.strategy.rollingUpdate.maxUnavailable'), replicas, Math.floor(replicas / 4));
    // Helm counts the ready pods of the new ReplicaSet (ready.go deploymentReady); kubectl's
    // Deployment shows updated and ready pods of all ReplicaSets together. Mid-rollout (3 new with 2
    // ready, plus 1 old ready) "ready" is 3 although the new ReplicaSet has 2: so every old pod
    // (status.replicas − updated) is taken as ready, which leaves a lower bound on the new ones —
    // never ready too early, at worst one poll late while old pods terminate.
    const updated = count(object, 'status.updatedReplicas');
    const old = Math.max(0, count(object, 'status.replicas', updated) - updated);
    const newReady = Math.max(0, Math.min(updated, count(object, 'status.readyReplicas') - old));
    if (newReady < replicas - maxUnavailable) return verdict(false, `${newReady} of ${replicas} updated replicas ready`);
    return verdict(true, `${newReady} of ${replicas} updated replicas ready`);
  }
  if (kind === 'StatefulSet') {
    if (field(object, 'spec.updateStrategy.type') === 'OnDelete') return verdict(true, 'OnDelete update strategy (not waited for)');
    const partition = count(object, 'spec.updateStrategy.rollingUpdate.partition');
    const updated = count(object, 'status.updatedReplicas');
    const ready = count(object, 'status.readyReplicas');
    if (updated < replicas - partition) return verdict(false, `${updated} of ${replicas - partition} replicas updated`);
    if (ready !== replicas) return verdict(false, `${ready} of ${replicas} replicas ready`);
    if (partition === 0 && field(object, 'status.currentRevision') !== field(object, 'status.updateRevision'))
      return verdict(false, 'the rollout to the new revision has not finished');
    return verdict(true, `${ready} of ${replicas} replicas ready`);
  }
  if (kind === 'DaemonSet') {
    if (field(object, 'spec.updateStrategy.type') === 'OnDelete') return verdict(true, 'OnDelete update strategy (not waited for)');
    const desired = count(object, 'status.desiredNumberScheduled');
    const updated = count(object, 'status.updatedNumberScheduled');
    if (updated !== desired) return verdict(false, `${updated} of ${desired} pods scheduled with the new spec`);
    const maxUnavailable = scaled(field(object, 'spec.updateStrategy.rollingUpdate.maxUnavailable'), desired, 1);
    const ready = count(object, 'status.numberReady');
    if (ready < desired - maxUnavailable) return verdict(false, `${ready} of ${desired} pods ready`);
    return verdict(true, `${ready} of ${desired} pods ready`);
  }
  return verdict(true, `${kind} is not waited for`);
}

/** The label selector of a workload's pods (`spec.selector.matchLabels`), as `kubectl -l` takes it. */
function podSelector(object: KubeObject): string | undefined {
  const labels = field(object, 'spec.selector.matchLabels');
  if (!labels || typeof labels !== 'object') return undefined;
  const pairs = Object.entries(labels as Record<string, unknown>).map(([key, value]) => `${key}=${String(value)}`);
  return pairs.length > 0 ? pairs.sort().join(',') : undefined;
}

/** A pod as `kubectl get pods` shows it: a waiting or terminated container reason wins over the phase. */
export function podHealth(pod: KubeObject): PodHealth {
  const containers = (field(pod, 'status.containerStatuses') ?? []) as KubeObject[];
  const stateReason = (state: 'waiting' | 'terminated') =>
    containers.map((container) => field(container, `state.${state}.reason`)).find((reason) => typeof reason === 'string');
  const reason = stateReason('waiting') ?? stateReason('terminated');
  const owners = field(pod, 'metadata.ownerReferences');
  const job = Array.isArray(owners) ? (owners.find((owner) => field(owner, 'kind') === 'Job') as KubeObject | undefined) : undefined;
  return {
    name: String(field(pod, 'metadata.name') ?? ''),
    ...(job ? { job: String(job.name ?? '') } : {}),
    status: typeof reason === 'string' ? reason : String(field(pod, 'status.phase') ?? ''),
    ready: containers.length > 0 && containers.every((container) => container.ready === true),
    restarts: containers.reduce((sum, container) => sum + Number(container.restartCount ?? 0), 0),
  };
}

/** Pod states that will not heal by waiting. */
const FAILING_POD_STATES = new Set(['CrashLoopBackOff', 'ImagePullBackOff', 'ErrImagePull', 'CreateContainerConfigError', 'Error']);

/**
 * What is failing: pods in a state that does not heal, and workloads with a failed condition. A
 * Job's pods are left to the Job: a pod that ended in `Error` and was retried into success is
 * history, not a failure (`helm --wait-for-jobs` reads only the Job's status), and a Job that
 * really failed says so itself (BackoffLimitExceeded).
 */
export function healthProblems(
  pods: readonly PodHealth[],
  workloads: readonly WorkloadHealth[],
): Array<{ readonly object: string; readonly reason: string }> {
  return [
    ...pods
      .filter((pod) => !pod.job && FAILING_POD_STATES.has(pod.status))
      .map((pod) => ({ object: `pod/${pod.name}`, reason: pod.status })),
    ...workloads
      .filter((w) => w.condition !== undefined)
      .map((w) => ({ object: `${w.kind.toLowerCase()}/${w.name}`, reason: w.condition ?? w.reason })),
  ];
}

/** How a backend reads workloads by `kind/name` and pods by label selector (kubectl, or the simulator). */
export interface WorkloadReader {
  /** `namespace`: the object's own `metadata.namespace` when the manifest sets one (else the release's). */
  workloads(refs: ReadonlyArray<{ readonly kind: string; readonly name: string; readonly namespace?: string }>): Promise<KubeObject[]>;
  pods(selector: string, namespace?: string): Promise<KubeObject[]>;
}

/**
 * Phase 5's view of a release: the workloads its manifest names (not a label selector: charts
 * label pods as they like), judged by the rules of `helm --wait`, and their pods by each
 * workload's own selector.
 */
export async function releaseHealth(manifest: string, reader: WorkloadReader): Promise<{ pods: PodHealth[]; workloads: WorkloadHealth[] }> {
  const refs = parseManifest(manifest)
    .filter((resource) => isWaitedKind(resource.kind))
    .map((resource) => {
      const namespace = (resource.object.metadata as { namespace?: unknown } | undefined)?.namespace;
      return { kind: resource.kind, name: resource.name, ...(typeof namespace === 'string' && namespace ? { namespace } : {}) };
    });
  if (refs.length === 0) return { pods: [], workloads: [] };
  const objects = await reader.workloads(refs);
  const pods: PodHealth[] = [];
  const selectors = new Map<string, { selector: string; namespace?: string }>();
  for (const object of objects) {
    const selector = podSelector(object);
    const namespace = field(object, 'metadata.namespace');
    if (selector !== undefined)
      selectors.set(`${String(namespace)}/${selector}`, { selector, ...(typeof namespace === 'string' ? { namespace } : {}) });
  }
  for (const { selector, namespace } of selectors.values()) pods.push(...(await reader.pods(selector, namespace)).map(podHealth));
  return { pods, workloads: objects.map(workloadReadiness) };
}
