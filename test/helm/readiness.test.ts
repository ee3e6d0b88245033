import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { healthProblems, podHealth, workloadReadiness } from '../../src/agents/helm/backends/readiness.ts';

/** Helm's own readiness table (pkg/kube/ready_test.go), as kubectl shows those objects in JSON. */
const cases = JSON.parse(readFileSync(new URL('./fixtures/helm-testdata/ready-cases.json', import.meta.url), 'utf8')) as {
  deployment: Array<{ name: string; rs: [number, number, boolean]; dep: [number, number, number, boolean]; want: boolean }>;
  daemonset: Array<{ name: string; ds: [number, number, number, number, boolean]; want: boolean }>;
  statefulset: Array<{ name: string; sts: [number, number, number, number, boolean]; updateRevision?: string; want: boolean }>;
  job: Array<{ name: string; job: [number, number | null, number, number]; want: boolean; failed?: boolean }>;
};

const selector = { matchLabels: { name: 'foo' } };
const metadata = (inSync: boolean) => ({ name: 'foo', namespace: 'default', generation: inSync ? 1 : 2 });

describe('workload readiness follows helm --wait (Helm ready_test.go cases, on kubectl JSON shapes)', () => {
  it.each(cases.deployment)('$name', ({ rs: [rsReplicas, rsReady], dep: [replicas, maxSurge, maxUnavailable, inSync], want }) => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: metadata(inSync),
      spec: { replicas, selector, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable } } },
      // kubectl shows the Deployment, not its ReplicaSet: the new ReplicaSet's pods are the updated ones.
      status: { observedGeneration: 1, replicas: rsReplicas, updatedReplicas: rsReplicas, readyReplicas: rsReady },
    };
    expect(workloadReadiness(deployment).ready).toBe(want);
  });

  it.each(cases.daemonset)('$name', ({ ds: [maxUnavailable, numberReady, desired, updated, inSync], want }) => {
    const daemonSet = {
      kind: 'DaemonSet',
      metadata: metadata(inSync),
      spec: { selector, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable } } },
      status: { desiredNumberScheduled: desired, numberReady, updatedNumberScheduled: updated, observedGeneration: 1 },
    };
    expect(workloadReadiness(daemonSet).ready).toBe(want);
  });

  it.each(cases.statefulset)('$name', ({ sts: [replicas, partition, readyReplicas, updatedReplicas, inSync], updateRevision, want }) => {
    const statefulSet = {
      kind: 'StatefulSet',
      metadata: metadata(inSync),
      spec: { replicas, selector, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition } } },
      status: { updatedReplicas, readyReplicas, observedGeneration: 1, ...(updateRevision ? { updateRevision } : {}) },
    };
    expect(workloadReadiness(statefulSet).ready).toBe(want);
  });

  it.each(cases.job)('$name', ({ job: [backoffLimit, completions, succeeded, failed], want, failed: hasFailed }) => {
    const job = {
      kind: 'Job',
      metadata: { name: 'foo', namespace: 'default' },
      spec: { backoffLimit, ...(completions === null ? {} : { completions }) },
      status: { succeeded, failed },
    };
    const readiness = workloadReadiness(job);
    expect(readiness.ready).toBe(want);
    // Helm returns an error (not just "not ready") past the backoff limit: waiting longer cannot help.
    expect(readiness.condition).toBe(hasFailed ? 'BackoffLimitExceeded' : undefined);
  });

  it('a Deployment whose rollout hit its progress deadline has failed, and one whose controller lags is not ready', () => {
    const stalled = {
      kind: 'Deployment',
      metadata: { name: 'web', generation: 3 },
      spec: { replicas: 2 },
      status: {
        observedGeneration: 3,
        updatedReplicas: 1,
        readyReplicas: 1,
        conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }],
      },
    };
    expect(workloadReadiness(stalled)).toMatchObject({ ready: false, condition: 'ProgressDeadlineExceeded' });
    const lagging = {
      kind: 'Deployment',
      metadata: { name: 'web', generation: 4 },
      spec: { replicas: 1 },
      status: { observedGeneration: 3, updatedReplicas: 1, readyReplicas: 1 },
    };
    expect(workloadReadiness(lagging)).toMatchObject({ ready: false, reason: 'the controller has not observed the latest spec yet' });
  });
});

// Issue 20 M5 (review 2026-11-24-helm §2 M5): the approximations that said "ready" too early or
// "failed" for a healthy release. Objects in the shapes `kubectl get -o json` returns (apps/v1
// DeploymentStatus, v1 Pod with ownerReferences and containerStatuses).
describe('readiness approximations (M5)', () => {
  const rollingDeployment = (status: Record<string, number>) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', generation: 2 },
    spec: { replicas: 3, selector, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } },
    status: { observedGeneration: 2, ...status },
  });

  it('3 new pods with 2 ready plus 1 old pod ready is not ready (Helm counts the new ReplicaSet: 2 < 3)', () => {
    const midRollout = rollingDeployment({ replicas: 4, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
    expect(workloadReadiness(midRollout)).toMatchObject({ ready: false, reason: '2 of 3 updated replicas ready' });
    const done = rollingDeployment({ replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
    expect(workloadReadiness(done)).toMatchObject({ ready: true });
  });

  it("a Job's pod that ended in Error and was retried into success is not a failure; a failed Job is", () => {
    const jobPod = (name: string, terminated: string, phase: string) =>
      podHealth({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'web-migrate', controller: true }] },
        status: {
          phase,
          containerStatuses: [{ name: 'migrate', ready: false, restartCount: 0, state: { terminated: { reason: terminated } } }],
        },
      });
    const pods = [jobPod('web-migrate-a1', 'Error', 'Failed'), jobPod('web-migrate-b2', 'Completed', 'Succeeded')];
    expect(pods[0]).toMatchObject({ status: 'Error', job: 'web-migrate' });
    const succeeded = workloadReadiness({
      kind: 'Job',
      metadata: { name: 'web-migrate' },
      spec: { backoffLimit: 6 },
      status: { succeeded: 1, failed: 1 },
    });
    expect(healthProblems(pods, [succeeded])).toEqual([]);
    const failed = workloadReadiness({ kind: 'Job', metadata: { name: 'web-migrate' }, spec: { backoffLimit: 0 }, status: { failed: 1 } });
    expect(healthProblems(pods, [failed])).toEqual([{ object: 'job/web-migrate', reason: 'BackoffLimitExceeded' }]);
    // A Deployment's crashing pod still is a problem.
    const crashing = podHealth({
      metadata: { name: 'web-1', ownerReferences: [{ kind: 'ReplicaSet', name: 'web-6d4' }] },
      status: {
        phase: 'Running',
        containerStatuses: [{ ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } }],
      },
    });
    expect(healthProblems([crashing], [])).toEqual([{ object: 'pod/web-1', reason: 'CrashLoopBackOff' }]);
  });
});
