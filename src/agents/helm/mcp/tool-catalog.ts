import { z } from 'zod';
import type { Mutability, Risk, Scope } from '../../../core/tools/index.ts';

/** Helm release names: DNS-1123 subdomain-style labels joined by dots, at most 53 characters (Helm's `pkg/chartutil/validate_name.go`). */
export const releaseName = z
  .string()
  .max(53)
  .regex(
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
    'a release name is lower-case letters, digits, dashes and dots',
  );
const namespaceName = z
  .string()
  .max(63)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'a namespace is lower-case letters, digits and dashes');
/** NAME or REPO/NAME (opsgate's repository or a `helm repo` one), or `oci://HOST[:PORT]/PATH/NAME` (an OCI registry, lower-case paths as OCI requires). */
export const chartReference = z
  .string()
  .max(255)
  .regex(
    /^(?:oci:\/\/[A-Za-z0-9.-]+(?::\d+)?(?:\/[a-z0-9][a-z0-9._-]*)+|[a-z0-9][a-z0-9._-]*(?:\/[a-z0-9][a-z0-9._-]*)?)$/,
    'a chart is NAME, REPO/NAME or oci://REGISTRY/PATH/NAME',
  );
const chartVersion = z.string().min(1).max(64);
const userValues = z.record(z.string(), z.unknown());
/** Values files by content (`helm -f`), in order; the approval binds their text. At most 20 of 1 MB each. */
const valuesFiles = z.array(z.object({ name: z.string().min(1).max(255), content: z.string().max(1_000_000) })).max(20);
/** `--set-file KEY=FILE` by content: the value at the dotted KEY is the text. */
const setFiles = z
  .array(z.object({ key: z.string().min(1).max(255), name: z.string().min(1).max(255), content: z.string().max(1_000_000) }))
  .max(20);
/** Helm's `--timeout` for the change; the server refuses more than its admin limit (default 1800). */
const timeoutSeconds = z
  .number()
  .int()
  .min(30)
  .max(86_400)
  .describe("Helm's --timeout for this change, in seconds; leave it out for the default from the chart's size (shown in the plan)");
/** Helm 3 `--atomic` / Helm 4 `--rollback-on-failure`: a change that fails within its timeout is undone. */
const rollbackOnFailure = z
  .boolean()
  .describe(
    'install/upgrade: if the change fails or is not ready within its timeout, Helm undoes it (uninstall / roll back); shown in the plan',
  );
const planHash = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'planHash is the planHash of helm_get_installation_plan');

const planningInput = {
  operation: z.enum(['install', 'upgrade', 'rollback', 'uninstall']),
  release: releaseName,
  namespace: namespaceName.default('default'),
  chart: chartReference.optional(),
  version: chartVersion.optional(),
  values: userValues.optional(),
  valuesFiles: valuesFiles.optional(),
  setFiles: setFiles.optional(),
  resetValues: z.boolean().optional(),
  revision: z.number().int().min(1).optional(),
  createNamespace: z.boolean().optional(),
  /** Upgrade only: take the chart from another source than the release's (refused otherwise; the plan flags it). */
  allowSourceChange: z.boolean().optional(),
  timeoutSeconds: timeoutSeconds.optional(),
  rollbackOnFailure: rollbackOnFailure.optional(),
};

export interface HelmToolSpec {
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodObject<z.ZodRawShape>;
  /** opsgate's own decision; never taken from the MCP server's annotations. */
  readonly mutability: Mutability;
  readonly risk?: Risk;
  readonly allowedPhases: Scope;
  /** Only a hint for MCP clients. */
  readonly destructive?: boolean;
}

const QUERY_AND_DISCOVERY = ['query', 'discovery', 'values_confirmation', 'planning'];

/**
 * opsgate's mapping of the Helm MCP server's tools: names, inputs, mutability and phases. The
 * agent exposes exactly these tools; the server's annotations are derived from here for other
 * clients, and ignored when opsgate reads them back.
 */
export const HELM_TOOL_CATALOG: readonly HelmToolSpec[] = [
  {
    name: 'helm_search_charts',
    description: 'Search the chart repository (like `helm search repo`): newest version of each matching chart.',
    input: z.object({ query: z.string().max(100).default('') }),
    mutability: 'read-only',
    allowedPhases: QUERY_AND_DISCOVERY,
  },
  {
    name: 'helm_get_chart_info',
    description: "A chart version's Chart.yaml metadata, values.yaml defaults, values.schema.json, required fields and subcharts.",
    input: z.object({ chart: chartReference, version: chartVersion.optional() }),
    mutability: 'read-only',
    allowedPhases: QUERY_AND_DISCOVERY,
  },
  {
    name: 'helm_list_chart_versions',
    description: 'Every version of a chart in the repository, newest first, with app version and kubeVersion constraint.',
    input: z.object({ chart: chartReference }),
    mutability: 'read-only',
    allowedPhases: QUERY_AND_DISCOVERY,
  },
  {
    name: 'kubernetes_get_cluster_info',
    description: 'The cluster context, Kubernetes version and node readiness.',
    input: z.object({}),
    mutability: 'read-only',
    allowedPhases: QUERY_AND_DISCOVERY,
  },
  {
    name: 'kubernetes_list_namespaces',
    description: 'The namespaces of the cluster.',
    input: z.object({}),
    mutability: 'read-only',
    allowedPhases: QUERY_AND_DISCOVERY,
  },
  {
    name: 'helm_list_releases',
    description: 'Releases (like `helm list -a -o json`; pending-* and failed releases included unless all=false).',
    input: z.object({ namespace: namespaceName.optional(), all: z.boolean().default(true) }),
    mutability: 'read-only',
    allowedPhases: ['query', 'discovery'],
  },
  {
    name: 'helm_get_release_status',
    description: 'Status, revision history and user values of a release. Answers "release: not found" when it does not exist.',
    input: z.object({ release: releaseName, namespace: namespaceName.default('default') }),
    mutability: 'read-only',
    allowedPhases: ['query', 'discovery', 'planning', 'execution'],
  },
  {
    name: 'helm_validate_values',
    description: 'Validate the merged values (chart defaults + user values, null deletes) against the chart and subchart schemas.',
    input: z.object(planningInput),
    mutability: 'read-only',
    allowedPhases: ['query', 'values_confirmation', 'planning'],
  },
  {
    name: 'kubernetes_check_prerequisites',
    description: "Check the chart's kubeVersion against the cluster, node readiness and the target namespace.",
    input: z.object({
      chart: chartReference,
      version: chartVersion.optional(),
      namespace: namespaceName.default('default'),
      createNamespace: z.boolean().optional(),
    }),
    mutability: 'read-only',
    allowedPhases: ['query', 'values_confirmation', 'planning'],
  },
  {
    name: 'helm_get_installation_plan',
    description:
      'The plan of an install/upgrade/rollback/uninstall: resources to create/change/delete, manifest diff, rollback steps, planHash.',
    input: z.object(planningInput),
    mutability: 'read-only',
    allowedPhases: ['query', 'values_confirmation', 'planning'],
  },
  {
    name: 'helm_monitor_deployment',
    description:
      'Poll release status and pod health until healthy, failing (CrashLoopBackOff, ImagePullBackOff, ProgressDeadlineExceeded) or the timeout.',
    input: z.object({
      release: releaseName,
      namespace: namespaceName.default('default'),
      timeoutSeconds: z.number().int().min(1).max(600).default(60),
    }),
    mutability: 'read-only',
    allowedPhases: ['query', 'execution'],
  },
  {
    name: 'helm_install_chart',
    description: 'Install a chart as a new release, exactly as the approved plan (planHash) says.',
    input: z.object({
      release: releaseName,
      namespace: namespaceName.default('default'),
      chart: chartReference,
      version: chartVersion.optional(),
      values: userValues.optional(),
      valuesFiles: valuesFiles.optional(),
      setFiles: setFiles.optional(),
      createNamespace: z.boolean().optional(),
      timeoutSeconds: timeoutSeconds.optional(),
      rollbackOnFailure: rollbackOnFailure.optional(),
      planHash,
    }),
    mutability: 'mutable',
    risk: 'high',
    allowedPhases: ['approval', 'execution'],
  },
  {
    name: 'helm_upgrade_release',
    description: 'Upgrade a release, exactly as the approved plan (planHash) says; current user values are reused unless resetValues.',
    input: z.object({
      release: releaseName,
      namespace: namespaceName.default('default'),
      chart: chartReference.optional(),
      version: chartVersion.optional(),
      values: userValues.optional(),
      valuesFiles: valuesFiles.optional(),
      setFiles: setFiles.optional(),
      resetValues: z.boolean().optional(),
      allowSourceChange: z.boolean().optional(),
      timeoutSeconds: timeoutSeconds.optional(),
      rollbackOnFailure: rollbackOnFailure.optional(),
      planHash,
    }),
    mutability: 'mutable',
    risk: 'high',
    allowedPhases: ['approval', 'execution'],
  },
  {
    name: 'helm_rollback_release',
    description: 'Roll a release back to a revision (default: the previous one), as the approved plan says.',
    input: z.object({
      release: releaseName,
      namespace: namespaceName.default('default'),
      revision: z.number().int().min(1).optional(),
      timeoutSeconds: timeoutSeconds.optional(),
      planHash,
    }),
    mutability: 'mutable',
    risk: 'high',
    allowedPhases: ['approval', 'execution'],
    destructive: true,
  },
  {
    name: 'helm_uninstall_release',
    description: 'Uninstall a release and delete its resources, as the approved plan says.',
    input: z.object({
      release: releaseName,
      namespace: namespaceName.default('default'),
      timeoutSeconds: timeoutSeconds.optional(),
      planHash,
    }),
    mutability: 'mutable',
    risk: 'critical',
    allowedPhases: ['approval', 'execution'],
    destructive: true,
  },
];

/** Mutable tools and the operation each performs. */
export const MUTATING_TOOLS: Readonly<Record<string, 'install' | 'upgrade' | 'rollback' | 'uninstall'>> = {
  helm_install_chart: 'install',
  helm_upgrade_release: 'upgrade',
  helm_rollback_release: 'rollback',
  helm_uninstall_release: 'uninstall',
};
