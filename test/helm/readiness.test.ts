import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { workloadReadiness } from '../../src/agents/helm/backends/readiness.ts';

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
