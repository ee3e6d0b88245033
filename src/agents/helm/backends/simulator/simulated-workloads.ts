import { createHash } from 'node:crypto';
import type { ManifestResource } from '../../charts/render-chart.ts';
import { isWaitedKind } from '../readiness.ts';

/** How far a simulated rollout got: all ready, still rolling (slow), timed out, or pods failing. */
export type RolloutOutcome = 'ready' | 'rolling' | 'timed-out' | 'crashloop' | 'image-pull';

export interface SimulatedPod {
  readonly name: string;
  readonly status: string;
  readonly ready: boolean;
  readonly restarts: number;
  readonly labels: Record<string, string>;
}

export interface SimulatedWorkload {
  readonly kind: string;
  readonly name: string;
  /** The object as `kubectl get -o json` shows it: the applied spec plus metadata.generation and status. */
  readonly object: Record<string, unknown>;
  readonly pods: readonly SimulatedPod[];
}

export const SIMULATED_NODES = [
  { name: 'sim-node-1', ready: true },
  { name: 'sim-node-2', ready: true },
];

function shortHash(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function templateLabels(object: Record<string, unknown>): Record<string, string> {
  const labels = record(record(record(record(object.spec).template).metadata).labels);
  return Object.fromEntries(Object.entries(labels).map(([key, value]) => [key, String(value)]));
}

/**
 * The workloads a manifest creates, with the status a controller would report for the outcome:
 * `generation` grows when the spec changes, `observedGeneration` lags while rolling, ready counts
 * follow the pods. Shapes are those of `kubectl get -o json`.
 */
export function simulateWorkloads(input: {
  readonly release: string;
  readonly namespace: string;
  readonly revision: number;
  readonly resources: readonly ManifestResource[];
  readonly previousGenerations: ReadonlyMap<string, { generation: number; spec: string }>;
  readonly outcome: RolloutOutcome;
}): SimulatedWorkload[] {
  const workloads: SimulatedWorkload[] = [];
  for (const resource of input.resources) {
    if (!isWaitedKind(resource.kind)) continue;
    const spec = record(resource.object.spec);
    const specText = JSON.stringify(spec);
    const previous = input.previousGenerations.get(resource.key);
    const generation = !previous ? 1 : previous.spec === specText ? previous.generation : previous.generation + 1;
    const observedGeneration = input.outcome === 'rolling' ? generation - 1 : generation;
    const replicas =
      resource.kind === 'DaemonSet'
        ? SIMULATED_NODES.length
        : resource.kind === 'Job'
          ? 1
          : typeof spec.replicas === 'number'
            ? spec.replicas
            : 1;
    const podsReady = input.outcome === 'ready';
    const readyCount = podsReady ? replicas : 0;
    const template = shortHash(`${input.release}/${input.revision}/${resource.key}`, 10);
    const pods: SimulatedPod[] = [];
    for (let index = 0; index < replicas; index++) {
      const name =
        resource.kind === 'StatefulSet'
          ? `${resource.name}-${index}`
          : resource.kind === 'Job'
            ? `${resource.name}-${shortHash(`${template}/${index}`, 5)}`
            : `${resource.name}-${template}-${shortHash(`${template}/${index}`, 5)}`;
      const status =
        input.outcome === 'crashloop'
          ? 'CrashLoopBackOff'
          : input.outcome === 'image-pull'
            ? 'ImagePullBackOff'
            : input.outcome === 'ready'
              ? resource.kind === 'Job'
                ? 'Completed'
                : 'Running'
              : 'ContainerCreating';
      pods.push({
        name,
        status,
        ready: podsReady && resource.kind !== 'Job',
        restarts: input.outcome === 'crashloop' ? 5 : 0,
        labels: templateLabels(resource.object),
      });
    }
    const metadata = { ...record(resource.object.metadata), namespace: input.namespace, generation };
    let status: Record<string, unknown>;
    if (resource.kind === 'Deployment') {
      const progressing =
        input.outcome === 'timed-out'
          ? { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }
          : { type: 'Progressing', status: 'True', reason: podsReady ? 'NewReplicaSetAvailable' : 'ReplicaSetUpdated' };
      status = {
        observedGeneration,
        replicas,
        updatedReplicas: input.outcome === 'rolling' ? 0 : replicas,
        readyReplicas: readyCount,
        availableReplicas: readyCount,
        ...(readyCount < replicas ? { unavailableReplicas: replicas - readyCount } : {}),
        conditions: [
          {
            type: 'Available',
            status: podsReady ? 'True' : 'False',
            reason: podsReady ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable',
          },
          progressing,
        ],
      };
    } else if (resource.kind === 'StatefulSet') {
      const revision = `${resource.name}-${shortHash(specText, 10)}`;
      status = {
        observedGeneration,
        replicas,
        readyReplicas: readyCount,
        currentReplicas: readyCount,
        updatedReplicas: input.outcome === 'rolling' ? 0 : replicas,
        currentRevision: podsReady ? revision : `${resource.name}-previous`,
        updateRevision: revision,
      };
    } else if (resource.kind === 'DaemonSet') {
      status = {
        observedGeneration,
        desiredNumberScheduled: replicas,
        currentNumberScheduled: replicas,
        updatedNumberScheduled: input.outcome === 'rolling' ? 0 : replicas,
        numberReady: readyCount,
        numberAvailable: readyCount,
      };
    } else {
      status = podsReady ? { succeeded: 1, ready: 0 } : input.outcome === 'crashloop' ? { failed: 7 } : { active: 1 };
    }
    workloads.push({
      kind: resource.kind,
      name: resource.name,
      object: { ...resource.object, metadata, status },
      pods,
    });
  }
  return workloads;
}

/** A pod as `kubectl get pods -o json` lists it. */
export function podObject(namespace: string, pod: SimulatedPod): Record<string, unknown> {
  const state =
    pod.status === 'Running'
      ? { running: { startedAt: '2025-01-01T10:00:00Z' } }
      : pod.status === 'Completed'
        ? { terminated: { exitCode: 0, reason: 'Completed' } }
        : { waiting: { reason: pod.status } };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: pod.name, namespace, labels: pod.labels },
    status: {
      phase: pod.status === 'Running' ? 'Running' : pod.status === 'Completed' ? 'Succeeded' : 'Pending',
      containerStatuses: [{ name: 'main', ready: pod.ready, restartCount: pod.restarts, state }],
    },
  };
}

/** Whether a pod's labels match a `kubectl -l k=v,k2=v2` selector. */
export function matchesSelector(labels: Record<string, string>, selector: string): boolean {
  return selector
    .split(',')
    .filter(Boolean)
    .every((pair) => {
      const [key = '', value = ''] = pair.split('=');
      return labels[key.trim()] === value.trim();
    });
}
