/**
 * What the API server's defaulting and the cluster's controllers would do, reduced to what Helm's
 * `--wait` (Helm 3's ready checker, Helm 4's kstatus watcher) and opsgate's readiness reads look at:
 * Deployment → ReplicaSet (owned, template + `pod-template-hash`) → ready pods; StatefulSet and
 * DaemonSet ready; Jobs complete; Services get a cluster IP; PVCs bound; CRDs established and their
 * kind served; a bare Pod that never restarts (a `helm test` hook) runs to completion, Failed when
 * its name is in `failingPods`. Workloads become ready `rolloutDelayMs` after a change (0: on the next tick).
 */
import { createHash } from 'node:crypto';
import type { KubeObject, ObjectStore } from './object-store.ts';
import type { ResourceType, ResourceTypes } from './resources.ts';

type Json = Record<string, unknown>;
const asRecord = (value: unknown): Json => (value && typeof value === 'object' ? (value as Json) : {});

/** The API server's defaults for the fields Helm's ready checks dereference. */
export function applyDefaults(object: KubeObject, clusterIps: () => string): void {
  const spec = asRecord(object.spec);
  if (object.kind === 'Deployment') {
    object.spec = spec;
    spec.replicas ??= 1;
    spec.strategy ??= { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } };
    spec.revisionHistoryLimit ??= 10;
    spec.progressDeadlineSeconds ??= 600;
  } else if (object.kind === 'StatefulSet' || object.kind === 'ReplicaSet') {
    object.spec = spec;
    spec.replicas ??= 1;
  } else if (object.kind === 'Job') {
    object.spec = spec;
    spec.completions ??= 1;
    spec.parallelism ??= 1;
    spec.backoffLimit ??= 6;
  } else if (object.kind === 'Service') {
    object.spec = spec;
    spec.type ??= 'ClusterIP';
    if (spec.type !== 'ExternalName') spec.clusterIP ??= clusterIps();
  }
}

/** How long a bare Pod runs before it completes, ms: after Helm has listed it and started watching. */
const BARE_POD_RUN_MS = 500;

const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

export class Controllers {
  readonly #store: ObjectStore;
  readonly #types: ResourceTypes;
  readonly #delayMs: number;
  readonly #failingPods: ReadonlySet<string>;
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(store: ObjectStore, types: ResourceTypes, rolloutDelayMs: number, failingPods: readonly string[] = []) {
    this.#store = store;
    this.#types = types;
    this.#delayMs = rolloutDelayMs;
    this.#failingPods = new Set(failingPods);
    store.onChange((event, type) => {
      if (event.type === 'DELETED') this.#collectGarbage(event.object);
      else this.#reconcile(type, event.object);
    });
  }

  /**
   * A Pod of a controller runs; a bare Pod with `restartPolicy: Never` (a test or a one-off task) is
   * Pending, then completes: Helm waits on a watch for the change (a Pod finished before its list
   * was never seen to finish by Helm's hook wait here).
   */
  #podStatus(object: KubeObject): Json {
    const metadata = asRecord(object.metadata);
    const bare = !Array.isArray(metadata.ownerReferences) || metadata.ownerReferences.length === 0;
    return bare && asRecord(object.spec).restartPolicy === 'Never' ? { phase: 'Pending' } : runningPod();
  }

  #finishedPod(object: KubeObject): Json {
    const metadata = asRecord(object.metadata);
    const failed = this.#failingPods.has(String(metadata.name ?? ''));
    const finished = now();
    return {
      phase: failed ? 'Failed' : 'Succeeded',
      startTime: finished,
      containerStatuses: [
        {
          name: 'main',
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode: failed ? 1 : 0, reason: failed ? 'Error' : 'Completed', finishedAt: finished } },
        },
      ],
    };
  }

  stop(): void {
    for (const timer of this.#timers) clearTimeout(timer);
  }

  #type(kind: string, apiVersion: string): ResourceType {
    const type = this.#types.byKind(apiVersion, kind);
    if (!type) throw new Error(`stub has no type ${apiVersion} ${kind}`);
    return type;
  }

  #later(run: () => void, delayMs: number): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      run();
    }, delayMs);
    this.#timers.add(timer);
  }

  #setStatus(type: ResourceType, object: KubeObject, status: Json): void {
    const current = this.#store.get(type, object.metadata.namespace, object.metadata.name);
    if (!current || current.metadata.uid !== object.metadata.uid) return;
    this.#store.put(type, { ...structuredClone(current), status });
  }

  #reconcile(type: ResourceType, object: KubeObject): void {
    const status = asRecord(object.status);
    const generation = Number(object.metadata.generation ?? 1);
    const pending = status.observedGeneration !== generation;
    switch (object.kind) {
      case 'Deployment':
        if (pending) queueMicrotask(() => this.#rollOut(type, object, generation));
        return;
      case 'StatefulSet':
      case 'DaemonSet':
        if (pending) this.#later(() => this.#readyWorkload(type, object, generation), this.#delayMs);
        return;
      case 'Job':
        if (pending) this.#later(() => this.#completeJob(type, object, generation), this.#delayMs);
        return;
      case 'PersistentVolumeClaim':
        if (status.phase !== 'Bound') queueMicrotask(() => this.#setStatus(type, object, { phase: 'Bound' }));
        return;
      case 'Namespace':
        if (status.phase !== 'Active') queueMicrotask(() => this.#setStatus(type, object, { phase: 'Active' }));
        return;
      case 'Pod':
        if (!status.phase) queueMicrotask(() => this.#setStatus(type, object, this.#podStatus(object)));
        else if (status.phase === 'Pending') this.#later(() => this.#setStatus(type, object, this.#finishedPod(object)), BARE_POD_RUN_MS);
        return;
      case 'CustomResourceDefinition':
        if (!status.conditions) queueMicrotask(() => this.#establish(type, object));
        return;
    }
  }

  #rollOut(type: ResourceType, deployment: KubeObject, generation: number): void {
    const spec = asRecord(deployment.spec);
    const replicas = Number(spec.replicas ?? 1);
    const template = asRecord(spec.template);
    const hash = createHash('sha256').update(JSON.stringify(template)).digest('hex').slice(0, 10);
    const namespace = deployment.metadata.namespace;
    const replicaSets = this.#type('ReplicaSet', 'apps/v1');
    const owned = this.#store.list(replicaSets, namespace).filter((rs) => ownedBy(rs, deployment));
    const name = `${deployment.metadata.name}-${hash}`;
    const templateMeta = asRecord(template.metadata);
    const labels = { ...asRecord(templateMeta.labels), 'pod-template-hash': hash } as Record<string, string>;
    const revision = String(
      Math.max(0, ...owned.map((rs) => Number(asRecord(rs.metadata.annotations)['deployment.kubernetes.io/revision'] ?? 0))) + 1,
    );
    const reused = this.#store.get(replicaSets, namespace, name);
    // Back to an earlier template (a rollback): its ReplicaSet is scaled up again and becomes the newest revision.
    const current = reused
      ? this.#store.put(replicaSets, {
          ...structuredClone(reused),
          metadata: {
            ...structuredClone(reused.metadata),
            annotations: { ...asRecord(reused.metadata.annotations), 'deployment.kubernetes.io/revision': revision },
          },
          spec: { ...asRecord(reused.spec), replicas },
        })
      : this.#store.put(replicaSets, {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: {
            name,
            ...(namespace ? { namespace } : {}),
            labels,
            annotations: { 'deployment.kubernetes.io/revision': revision },
            ownerReferences: [controllerReference(deployment)],
          },
          spec: {
            replicas,
            selector: { matchLabels: { ...asRecord(asRecord(spec.selector).matchLabels), 'pod-template-hash': hash } },
            template: { ...template, metadata: { ...templateMeta, labels } },
          },
          status: { replicas: 0, observedGeneration: 1 },
        });
    for (const old of owned.filter((rs) => rs.metadata.name !== name)) {
      this.#deletePodsOf(old);
      this.#store.put(replicaSets, {
        ...structuredClone(old),
        spec: { ...asRecord(old.spec), replicas: 0 },
        status: { replicas: 0, observedGeneration: 1 },
      });
    }
    this.#setStatus(type, deployment, {
      observedGeneration: generation,
      replicas,
      updatedReplicas: 0,
      readyReplicas: 0,
      availableReplicas: 0,
      unavailableReplicas: replicas,
      conditions: [condition('Progressing', 'True', 'ReplicaSetUpdated'), condition('Available', 'False', 'MinimumReplicasUnavailable')],
    });
    this.#later(() => {
      const live = this.#store.get(type, namespace, deployment.metadata.name);
      if (!live || Number(live.metadata.generation) !== generation) return;
      const pods = this.#type('Pod', 'v1');
      for (let index = 0; index < replicas; index++) {
        const podName = `${name}-${index}`;
        if (!this.#store.get(pods, namespace, podName))
          this.#store.put(pods, {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: podName, ...(namespace ? { namespace } : {}), labels, ownerReferences: [controllerReference(current)] },
            spec: asRecord(template.spec),
            status: runningPod(),
          });
      }
      const ready = {
        replicas,
        readyReplicas: replicas,
        availableReplicas: replicas,
        fullyLabeledReplicas: replicas,
        // Helm 3's ready check wants the ReplicaSet's generation observed (a reused one has moved on).
        observedGeneration: Number(this.#store.get(replicaSets, namespace, name)?.metadata.generation ?? 1),
      };
      this.#setStatus(replicaSets, current, ready);
      this.#setStatus(type, live, {
        observedGeneration: generation,
        replicas,
        updatedReplicas: replicas,
        readyReplicas: replicas,
        availableReplicas: replicas,
        conditions: [
          condition('Available', 'True', 'MinimumReplicasAvailable'),
          condition('Progressing', 'True', 'NewReplicaSetAvailable'),
        ],
      });
    }, this.#delayMs);
  }

  #readyWorkload(type: ResourceType, object: KubeObject, generation: number): void {
    const replicas = Number(asRecord(object.spec).replicas ?? 1);
    this.#setStatus(
      type,
      object,
      object.kind === 'DaemonSet'
        ? {
            observedGeneration: generation,
            desiredNumberScheduled: 1,
            currentNumberScheduled: 1,
            numberReady: 1,
            updatedNumberScheduled: 1,
            numberAvailable: 1,
          }
        : {
            observedGeneration: generation,
            replicas,
            readyReplicas: replicas,
            currentReplicas: replicas,
            updatedReplicas: replicas,
            availableReplicas: replicas,
          },
    );
  }

  #completeJob(type: ResourceType, job: KubeObject, generation: number): void {
    this.#setStatus(type, job, {
      observedGeneration: generation,
      startTime: now(),
      completionTime: now(),
      succeeded: Number(asRecord(job.spec).completions ?? 1),
      conditions: [condition('SuccessCriteriaMet', 'True', 'CompletionsReached'), condition('Complete', 'True', 'CompletionsReached')],
    });
  }

  #establish(type: ResourceType, crd: KubeObject): void {
    const spec = asRecord(crd.spec);
    const names = asRecord(spec.names);
    const versions = Array.isArray(spec.versions) ? (spec.versions as Json[]) : [];
    for (const version of versions.filter((v) => v.served !== false))
      this.#types.add({
        group: String(spec.group),
        version: String(version.name),
        kind: String(names.kind),
        plural: String(names.plural),
        namespaced: spec.scope !== 'Cluster',
      });
    this.#setStatus(type, crd, {
      acceptedNames: names,
      storedVersions: versions.filter((v) => v.storage).map((v) => v.name),
      conditions: [condition('NamesAccepted', 'True', 'NoConflicts'), condition('Established', 'True', 'InitialNamesAccepted')],
    });
  }

  #deletePodsOf(owner: KubeObject): void {
    const pods = this.#type('Pod', 'v1');
    for (const pod of this.#store.list(pods, owner.metadata.namespace).filter((p) => ownedBy(p, owner)))
      this.#store.delete(pods, pod.metadata.namespace, pod.metadata.name);
  }

  /** The garbage collector's cascade: what a deleted object controlled goes too. */
  #collectGarbage(owner: KubeObject): void {
    if (owner.kind !== 'Deployment' && owner.kind !== 'ReplicaSet' && owner.kind !== 'Job') return;
    queueMicrotask(() => {
      for (const [kind, apiVersion] of [
        ['ReplicaSet', 'apps/v1'],
        ['Pod', 'v1'],
      ] as const) {
        const type = this.#type(kind, apiVersion);
        for (const child of this.#store.list(type, owner.metadata.namespace).filter((c) => ownedBy(c, owner)))
          this.#store.delete(type, child.metadata.namespace, child.metadata.name);
      }
    });
  }
}

function ownedBy(object: KubeObject, owner: KubeObject): boolean {
  const references = Array.isArray(object.metadata.ownerReferences) ? (object.metadata.ownerReferences as Json[]) : [];
  return references.some((reference) => reference.uid === owner.metadata.uid);
}

function controllerReference(owner: KubeObject) {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

function condition(type: string, status: 'True' | 'False', reason: string) {
  return { type, status, reason, message: reason, lastUpdateTime: now(), lastTransitionTime: now() };
}

function runningPod(): Json {
  return {
    phase: 'Running',
    conditions: [condition('Ready', 'True', 'PodReady'), condition('ContainersReady', 'True', 'PodReady')],
    containerStatuses: [{ name: 'main', ready: true, started: true, restartCount: 0, state: { running: { startedAt: now() } } }],
  };
}
