import { createHash } from 'node:crypto';
import { createTwoFilesPatch } from 'diff';
import type { ReleaseHook } from '../backends/types.ts';
import { parseManifest } from '../charts/render-chart.ts';
import { planRisks } from '../risk.ts';
import type { Values } from '../values/merge-values.ts';
import type { ValueChange } from '../values/values-diff.ts';
import type { valueInputDigests } from '../values/values-inputs.ts';
import type { LiveDrift } from './live-drift.ts';

type ValueInputDigests = ReturnType<typeof valueInputDigests>;

import type { ChangeTimeout } from './change-timeout.ts';

export type HelmOperation = 'install' | 'upgrade' | 'rollback' | 'uninstall';

interface PlanChart {
  readonly name: string;
  readonly version: string;
  readonly appVersion: string;
  /**
   * Where the chart comes from: `REPO/NAME` of a `helm repo` repository, `oci://…`, or the url of
   * opsgate's repository folder and the chart's name. Every install and upgrade plan names it.
   */
  readonly source?: string;
  /** That chart archive's sha256: the approval binds the exact chart, not only its name and version. */
  readonly digest?: string;
  /** With an admin-configured keyring: who signed the archive's `.prov` (`helm verify`), bound like the rest. */
  readonly provenance?: { readonly signedBy: string; readonly fingerprint: string };
}

/** The registered cluster a plan targets (absent when none is registered: the agent's default backend). */
export interface PlanCluster {
  readonly name: string;
  readonly environment: string;
  /** Digest of the registration behind the name (context, kubeconfig): re-pointing the name voids the plan. */
  readonly registration?: string;
}

/** What an operation would do, shown at gate 2; its hash binds the approval. */
export interface InstallationPlan {
  readonly format: 'opsgate-helm-plan-v1';
  readonly operation: HelmOperation;
  readonly release: string;
  readonly namespace: string;
  readonly cluster?: PlanCluster;
  readonly chart?: PlanChart;
  /** The revision running now (absent on install). */
  readonly currentRevision?: number;
  /** Rollback only: the revision whose manifest and values come back. */
  readonly targetRevision?: number;
  /** The revision the operation creates (absent on uninstall). */
  readonly nextRevision?: number;
  /** The user-supplied values the release will have (exactly what is applied). */
  readonly values?: Values;
  readonly valueChanges?: readonly ValueChange[];
  /** The values files and `--set-file` inputs by name and sha256 (their text is in the approved arguments). */
  readonly valueInputs?: ValueInputDigests;
  readonly resources: {
    readonly create: readonly string[];
    readonly change: readonly string[];
    readonly delete: readonly string[];
    readonly unchanged: readonly string[];
  };
  /** Unified diff of the current manifest against the proposed one. */
  readonly manifestDiff: string;
  /** Hooks the operation runs (kept apart from the manifest by Helm, so never "create"). */
  readonly hooks?: readonly ReleaseHook[];
  /**
   * Objects whose content differs between two renders of the same inputs (a chart using `rand*`,
   * `uuidv4`, `now`, …). The approval binds their presence, not their content.
   */
  readonly volatile?: readonly string[];
  /** Install only: the name belongs to an uninstalled or failed release that this install replaces. */
  readonly replace?: boolean;
  readonly rollback: { readonly revision?: number; readonly steps: readonly string[] };
  readonly risks: readonly string[];
  readonly createNamespace: boolean;
  /** Helm's `--timeout` for this change (issue 30 N8): the approval binds it like everything else. */
  readonly timeout?: ChangeTimeout;
  /**
   * Install/upgrade only: Helm undoes a change that fails within its `--timeout` (Helm 3 `--atomic`,
   * Helm 4 `--rollback-on-failure`): an install is uninstalled, an upgrade rolled back. Bound by the hash.
   */
  readonly rollbackOnFailure?: boolean;
  readonly planHash: string;
  /**
   * Upgrade, on a real cluster: the running release's objects against their live state. Shown to
   * the approver, not bound by `planHash` (added after hashing; see service/live-drift.ts).
   */
  readonly liveDrift?: LiveDrift;
}

/** JSON with sorted keys, so equal plans hash equally. */
/**
 * What the approver reads about the chart's signature: verified and by which key, or not verified.
 * Undefined for plans that install no chart (rollback, uninstall).
 */
export function provenanceSummary(plan: InstallationPlan): string | undefined {
  if (!plan.chart || (plan.operation !== 'install' && plan.operation !== 'upgrade')) return undefined;
  const provenance = plan.chart.provenance;
  return provenance
    ? `signature verified: signed by ${provenance.signedBy}, key ${provenance.fingerprint}`
    : 'signature not verified (no keyring configured)';
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The plan's hash. When some objects are volatile (they render differently every time), the diff
 * text cannot be bound; the hash then covers the content of every other object instead, so a
 * re-render at execution time matches while any real change still does not.
 */
function hashPlan(plan: Omit<InstallationPlan, 'planHash'>, proposedManifest?: string): string {
  const volatile = new Set(plan.volatile ?? []);
  if (volatile.size === 0 || proposedManifest === undefined) return `sha256:${sha256(canonicalJson({ ...plan, planHash: undefined }))}`;
  const stable = parseManifest(proposedManifest, plan.namespace)
    .filter((resource) => !volatile.has(resource.key))
    .map((resource) => [resource.key, resource.object]);
  return `sha256:${sha256(canonicalJson({ ...plan, manifestDiff: sha256(canonicalJson(stable)), planHash: undefined }))}`;
}

export interface PlanInput {
  readonly operation: HelmOperation;
  readonly release: string;
  readonly namespace: string;
  readonly cluster?: PlanCluster;
  readonly chart?: PlanChart;
  readonly currentRevision?: number;
  readonly nextRevision?: number;
  readonly currentManifest: string;
  readonly proposedManifest: string;
  readonly values?: Values;
  readonly valueChanges?: readonly ValueChange[];
  readonly valueInputs?: ValueInputDigests;
  readonly rollbackRevision?: number;
  readonly createNamespace?: boolean;
  readonly risks?: readonly string[];
  readonly hooks?: readonly ReleaseHook[];
  readonly volatile?: readonly string[];
  readonly replace?: boolean;
  readonly timeout?: ChangeTimeout;
  readonly rollbackOnFailure?: boolean;
}

/** Compares the current and proposed manifests and writes the plan with its rollback steps. */
export function buildPlan(input: PlanInput): InstallationPlan {
  const current = new Map(parseManifest(input.currentManifest, input.namespace).map((r) => [r.key, r]));
  const proposed = new Map(parseManifest(input.proposedManifest, input.namespace).map((r) => [r.key, r]));
  const create: string[] = [];
  const change: string[] = [];
  const unchanged: string[] = [];
  for (const [key, resource] of proposed) {
    const before = current.get(key);
    if (!before) create.push(key);
    else if (canonicalJson(before.object) !== canonicalJson(resource.object)) change.push(key);
    else unchanged.push(key);
  }
  const remove = [...current.keys()].filter((key) => !proposed.has(key));
  const manifestDiff = createTwoFilesPatch(
    `${input.release} (current)`,
    `${input.release} (proposed)`,
    input.currentManifest,
    input.proposedManifest,
    '',
    '',
    { context: 3 },
  );
  const steps = rollbackSteps(input);
  const risks = planRisks(input, remove);
  const plan: Omit<InstallationPlan, 'planHash'> = {
    format: 'opsgate-helm-plan-v1',
    operation: input.operation,
    release: input.release,
    namespace: input.namespace,
    ...(input.cluster
      ? {
          cluster: {
            name: input.cluster.name,
            environment: input.cluster.environment,
            ...(input.cluster.registration ? { registration: input.cluster.registration } : {}),
          },
        }
      : {}),
    ...(input.chart ? { chart: input.chart } : {}),
    ...(input.currentRevision !== undefined ? { currentRevision: input.currentRevision } : {}),
    ...(input.rollbackRevision !== undefined ? { targetRevision: input.rollbackRevision } : {}),
    ...(input.nextRevision !== undefined ? { nextRevision: input.nextRevision } : {}),
    ...(input.values ? { values: input.values } : {}),
    ...(input.valueChanges ? { valueChanges: input.valueChanges } : {}),
    ...(input.valueInputs && Object.keys(input.valueInputs).length > 0 ? { valueInputs: input.valueInputs } : {}),
    resources: { create: create.sort(), change: change.sort(), delete: remove.sort(), unchanged: unchanged.sort() },
    manifestDiff,
    ...(input.hooks && input.hooks.length > 0 ? { hooks: input.hooks } : {}),
    ...(input.volatile && input.volatile.length > 0 ? { volatile: [...input.volatile].sort() } : {}),
    ...(input.replace ? { replace: true } : {}),
    rollback: { ...(steps.revision !== undefined ? { revision: steps.revision } : {}), steps: steps.steps },
    risks,
    createNamespace: input.createNamespace ?? false,
    ...(input.timeout ? { timeout: input.timeout } : {}),
    ...(input.rollbackOnFailure ? { rollbackOnFailure: true } : {}),
  };
  return { ...plan, planHash: hashPlan(plan, input.proposedManifest) };
}

function rollbackSteps(input: PlanInput): { revision?: number; steps: string[] } {
  const ns = `-n ${input.namespace}`;
  switch (input.operation) {
    case 'install':
      return { steps: [`helm uninstall ${input.release} ${ns}  (there is no earlier revision to return to)`] };
    case 'upgrade':
    case 'rollback':
      return input.currentRevision === undefined
        ? { steps: [] }
        : {
            revision: input.currentRevision,
            steps: [
              `helm rollback ${input.release} ${input.currentRevision} ${ns}  (returns to revision ${input.currentRevision}, the one running now)`,
            ],
          };
    case 'uninstall':
      return {
        steps: [
          input.chart
            ? `helm install ${input.release} ${input.chart.name} --version ${input.chart.version} ${ns} -f <values saved in this plan>  (a fresh revision 1; history is gone)`
            : 'reinstall the chart with the values saved in this plan',
        ],
      };
  }
}
