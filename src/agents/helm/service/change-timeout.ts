import type { ReleaseHook } from '../backends/types.ts';
import { parseManifest } from '../charts/render-chart.ts';
import { HelmErrors } from '../errors.ts';

/** Helm's own `--timeout` default, enough for a chart of a few workloads. */
const HELM_DEFAULT_TIMEOUT_SECONDS = 300;
/** The admin limit when none is configured (`agentOptions.helm.maxTimeoutSeconds`, `OPSGATE_HELM_MAX_TIMEOUT_SECONDS`). */
export const DEFAULT_MAX_TIMEOUT_SECONDS = 1800;
/** Below this Helm cannot even finish a small rollout against a real cluster. */
const MIN_TIMEOUT_SECONDS = 30;

const WORKLOADS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'ReplicaSet']);

/** Helm's `--timeout` for one change, as the plan states it and the approval binds it. */
export interface ChangeTimeout {
  readonly seconds: number;
  readonly source: 'requested' | 'chart-size';
  /** Why this many seconds, in words for the approver. */
  readonly reason: string;
}

/**
 * The default from what Helm will wait for. `--wait` watches every workload at once, so time grows
 * slowly with their number (30 s each beyond 4); a StatefulSet starts its pods one after another
 * (60 s more each); a hook Job (a migration) runs under the same `--timeout` as the rollout, so a
 * chart with one gets at least 10 minutes. Rounded up to whole minutes, at most the admin limit.
 */
export function chartSizeTimeout(manifest: string, hooks: readonly ReleaseHook[], namespace: string, maxSeconds: number): ChangeTimeout {
  const kinds = parseManifest(manifest, namespace).map((resource) => resource.kind);
  const workloads = kinds.filter((kind) => WORKLOADS.has(kind)).length;
  const statefulSets = kinds.filter((kind) => kind === 'StatefulSet').length;
  const hookJobs = hooks.filter((hook) => hook.key.startsWith('Job/')).length;
  const sized = HELM_DEFAULT_TIMEOUT_SECONDS + 30 * Math.max(0, workloads - 4) + 60 * statefulSets;
  const wanted = Math.ceil(Math.max(sized, hookJobs > 0 ? 600 : 0) / 60) * 60;
  const seconds = Math.min(wanted, maxSeconds);
  const parts = [
    `${workloads} workload${workloads === 1 ? '' : 's'}`,
    ...(statefulSets ? [`${statefulSets} StatefulSet${statefulSets === 1 ? '' : 's'}`] : []),
    ...(hookJobs ? [`${hookJobs} hook Job${hookJobs === 1 ? '' : 's'}`] : []),
  ];
  return {
    seconds,
    source: 'chart-size',
    reason: `default from the chart's size (${parts.join(', ')})${seconds < wanted ? `, cut to the admin limit of ${maxSeconds}s` : ''}; the requester may set timeoutSeconds up to ${maxSeconds}`,
  };
}

/** The requester's `--timeout`, refused (HELM_TIMEOUT_OVER_LIMIT) outside 30 s … the admin limit. */
export function requestedTimeout(requested: number, maxSeconds: number): ChangeTimeout {
  if (!Number.isInteger(requested) || requested < MIN_TIMEOUT_SECONDS || requested > maxSeconds)
    throw HelmErrors.HELM_TIMEOUT_OVER_LIMIT({ requested, min: MIN_TIMEOUT_SECONDS, max: maxSeconds });
  return { seconds: requested, source: 'requested', reason: `requested (the admin limit is ${maxSeconds}s)` };
}

/** The admin limit from configuration: a whole number of seconds, at least the minimum. */
export function maxTimeoutFrom(configured: string | undefined): number {
  if (configured === undefined || configured === '') return DEFAULT_MAX_TIMEOUT_SECONDS;
  const seconds = Number(configured);
  if (!Number.isInteger(seconds) || seconds < MIN_TIMEOUT_SECONDS)
    throw new Error(`helm maxTimeoutSeconds must be a whole number of seconds, at least ${MIN_TIMEOUT_SECONDS}; got "${configured}"`);
  return seconds;
}
