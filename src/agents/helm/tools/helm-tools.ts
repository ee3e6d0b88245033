import { z } from 'zod';
import { OpsgateError } from '../../../core/errors/index.ts';
import {
  type AnyToolDefinition,
  type ApprovalPreview,
  defineTool,
  type ToolContext,
  type ValidatorVerdict,
} from '../../../core/tools/index.ts';
import type { HelmTargets } from '../clusters/helm-targets.ts';
import type { HelmMcpClient } from '../mcp/mcp-client.ts';
import { HELM_TOOL_CATALOG, type HelmToolSpec, MUTATING_TOOLS } from '../mcp/tool-catalog.ts';
import { type InstallationPlan, provenanceSummary } from '../service/plan.ts';

/** Which registered cluster a call acts on; opsgate routes on it and strips it before the MCP call. */
const CLUSTER_FIELD = {
  cluster: z
    .string()
    .max(63)
    .optional()
    .describe('The registered cluster to act on (see the Clusters list); omit when only one is registered or none is.'),
};

/** Fields opsgate adds to a server tool's input; they are stripped before the MCP call. */
const LOCAL_FIELDS: Readonly<Record<string, z.ZodRawShape>> = {
  helm_get_release_status: {
    intent: z
      .enum(['install', 'upgrade', 'rollback', 'uninstall'])
      .optional()
      .describe('What the workflow intends (sets scenario_type); omit on the query path.'),
  },
};

function summarise(plan: InstallationPlan): string {
  const { create, change, delete: remove } = plan.resources;
  const chart = plan.chart ? ` ${plan.chart.name}-${plan.chart.version}` : '';
  const rollback =
    plan.rollback.revision !== undefined
      ? `to undo: roll back to revision ${plan.rollback.revision}`
      : plan.rollback.steps[0]
        ? `to undo: ${plan.rollback.steps[0]}`
        : 'no undo';
  const target = plan.operation === 'rollback' && plan.targetRevision !== undefined ? ` to revision ${plan.targetRevision}` : '';
  const where = plan.cluster ? `${plan.namespace} on cluster ${plan.cluster.name} (${plan.cluster.environment})` : plan.namespace;
  const timeout = plan.timeout ? `; helm --timeout ${plan.timeout.seconds}s` : '';
  const signature = provenanceSummary(plan);
  return `${plan.operation} ${plan.release}${chart}${target} in ${where}: create ${create.length}, change ${change.length}, delete ${remove.length}; ${rollback}${timeout}${signature ? `; ${signature}` : ''}`;
}

/**
 * The plan in one line for a notification: "roll back nginx in web to revision 2",
 * "upgrade nginx in web: replicaCount 3 → 4".
 */
function planHeadline(plan: InstallationPlan): string {
  const where = `${plan.release} in ${plan.namespace}${plan.cluster ? ` (${plan.cluster.name})` : ''}`;
  if (plan.operation === 'rollback')
    return `roll back ${where}${plan.targetRevision !== undefined ? ` to revision ${plan.targetRevision}` : ''}`;
  if (plan.operation === 'uninstall') return `uninstall ${where}`;
  if (plan.operation === 'install') return `install ${plan.chart ? `${plan.chart.name} ${plan.chart.version} as ` : ''}${where}`;
  const changes = (plan.valueChanges ?? []).map((c) =>
    c.change === 'removed'
      ? `${c.path} removed`
      : `${c.path} ${c.change === 'added' ? '' : `${String(c.current)} → `}${String(c.proposed)}`,
  );
  const detail = changes.length > 3 ? `${changes.slice(0, 3).join(', ')} and ${changes.length - 3} more` : changes.join(', ');
  return `upgrade ${where}${detail ? `: ${detail}` : plan.chart ? ` to ${plan.chart.name} ${plan.chart.version}` : ''}`;
}

/** The plan of a mutable call for the approval panel; its hash joins the approval binding. */
async function planPreview(
  targets: HelmTargets,
  toolName: string,
  input: Record<string, unknown>,
  context: ToolContext,
): Promise<ApprovalPreview> {
  const { planHash: _planHash, cluster, ...request } = input;
  const { client } = await targets.resolve(cluster as string | undefined, request.namespace as string | undefined);
  const answer = await client.call('helm_get_installation_plan', { ...request, operation: MUTATING_TOOLS[toolName] }, context.signal);
  const plan = answer.plan as InstallationPlan;
  return {
    kind: 'helm-plan',
    summary: summarise(plan),
    headline: planHeadline(plan),
    details: {
      backend: answer.backend,
      ...(answer.note ? { note: answer.note } : {}),
      plan,
      approvedPlanHash: input.planHash,
      matchesArguments: plan.planHash === input.planHash,
    },
    bindingDigest: plan.planHash,
  };
}

/**
 * Answers the core's session cache may serve (cluster state never: it changes by itself). Chart
 * info and versions are cached by HelmAgentStateMiddleware instead, which also moves the workflow
 * on when it answers from its cache; a core cache hit skipped that, so a second install in a
 * session stayed in discovery and planning was refused there (issue 22, Broken 1).
 */
const CACHEABLE = new Set(['helm_search_charts']);

/**
 * The floor under gate 2: the call's planHash must be the plan the cluster would get now. A
 * modified call (new values) or a changed cluster blocks it and sends the workflow back to planning.
 */
async function planStillCurrent(
  targets: HelmTargets,
  toolName: string,
  input: Record<string, unknown>,
  context: ToolContext,
): Promise<ValidatorVerdict> {
  const { planHash, cluster, ...request } = input;
  let client: HelmMcpClient;
  try {
    ({ client } = await targets.resolve(cluster as string | undefined, request.namespace as string | undefined));
  } catch (error) {
    return {
      verdict: 'block',
      rule: 'helm-cluster-refused',
      reason: error instanceof Error ? error.message : String(error),
    };
  }
  let plan: InstallationPlan;
  try {
    plan = (await client.call('helm_get_installation_plan', { ...request, operation: MUTATING_TOOLS[toolName] }, context.signal))
      .plan as InstallationPlan;
  } catch (error) {
    return {
      verdict: 'block',
      rule: 'helm-plan-invalid',
      reason: `No valid plan for these arguments: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  if (plan.planHash === planHash) return { verdict: 'allow', reason: 'the arguments match the current plan' };
  if (context.phase !== 'planning' && context.phase !== 'query') {
    try {
      context.setPhase('planning', 'the arguments no longer match the plan');
    } catch {
      // A context without this workflow's phases: nothing to move.
    }
  }
  return {
    verdict: 'block',
    rule: 'helm-plan-stale',
    reason: `planHash ${String(planHash)} is not the current plan (${plan.planHash}) for these arguments: the values or the cluster changed. Plan again (helm_get_installation_plan) and propose the call with the new planHash. Arguments to plan with: ${JSON.stringify(cluster === undefined ? request : { ...request, cluster })}`,
  };
}

/**
 * A listing across namespaces shows only the cluster's allowed ones: calls naming a namespace are
 * refused outside the allow-list, so a cluster-wide listing must not show the rest either.
 */
function withinAllowList(
  toolName: string,
  answer: Record<string, unknown>,
  namespaces: readonly string[] | undefined,
): Record<string, unknown> {
  if (!namespaces || namespaces.includes('*')) return answer;
  if (toolName === 'helm_list_releases' && Array.isArray(answer.releases))
    return { ...answer, releases: answer.releases.filter((r: { namespace?: unknown }) => namespaces.includes(String(r.namespace))) };
  if (toolName === 'kubernetes_list_namespaces' && Array.isArray(answer.namespaces))
    return { ...answer, namespaces: answer.namespaces.filter((n: unknown) => namespaces.includes(String(n))) };
  return answer;
}

function toolFor(targets: HelmTargets, spec: HelmToolSpec): AnyToolDefinition {
  const local = { ...(LOCAL_FIELDS[spec.name] ?? {}), ...CLUSTER_FIELD };
  const input = spec.input.extend(local);
  const mutable = spec.mutability === 'mutable';
  return defineTool<Record<string, unknown>, Record<string, unknown>>({
    name: spec.name,
    description: spec.description,
    input: input as unknown as z.ZodType<Record<string, unknown>>,
    mutability: spec.mutability,
    ...(spec.risk ? { risk: spec.risk } : {}),
    allowedPhases: spec.allowedPhases,
    cache: CACHEABLE.has(spec.name),
    policyTarget: (args: Record<string, unknown>) => targets.policyTarget(args.cluster as string | undefined),
    ...(mutable
      ? {
          preview: (args: Record<string, unknown>, context: ToolContext) => planPreview(targets, spec.name, args, context),
          validate: (args: Record<string, unknown>, context: ToolContext) => planStillCurrent(targets, spec.name, args, context),
        }
      : {}),
    async execute(args, context) {
      const remote = Object.fromEntries(Object.entries(args).filter(([key]) => !(key in local)));
      let cluster: string | undefined;
      try {
        const target = await targets.resolve(args.cluster as string | undefined, args.namespace as string | undefined);
        cluster = target.cluster?.name;
        // On the record before helm runs: the cluster a change goes to, even when the call names none.
        if (mutable && target.cluster)
          await context.audit('helm_change_target', {
            tool: spec.name,
            cluster: target.cluster.name,
            environment: target.cluster.environment,
            namespace: args.namespace,
          });
        return withinAllowList(spec.name, await target.client.call(spec.name, remote, context.signal), target.cluster?.namespaces);
      } catch (error) {
        if (mutable && OpsgateError.isInstance(error))
          await context.audit('helm_operation_refused', { tool: spec.name, code: error.code, ...(cluster ? { cluster } : {}) });
        throw error;
      }
    },
  });
}

/** `read_mcp_resource`: reads a resource of the Helm MCP server (chart files, release manifests). */
function readResourceTool(targets: HelmTargets): AnyToolDefinition {
  return defineTool({
    name: 'read_mcp_resource',
    description:
      'Read a Helm MCP server resource: helm://charts/{chart}/{version}/{Chart.yaml|values.yaml|values.schema.json} or helm://releases/{namespace}/{release}/manifest.',
    input: z.object({
      uri: z
        .string()
        .max(300)
        .regex(/^helm:\/\/(charts|releases)\//, 'a helm:// resource URI'),
      ...CLUSTER_FIELD,
    }),
    mutability: 'read-only',
    allowedPhases: ['query', 'discovery', 'values_confirmation', 'planning'],
    cache: false,
    policyTarget: ({ cluster }) => targets.policyTarget(cluster),
    async execute({ uri, cluster }) {
      const namespace = /^helm:\/\/releases\/([^/]+)\//.exec(uri)?.[1];
      const { client } = await targets.resolve(cluster, namespace);
      return { contents: await client.readResource(uri) };
    },
  });
}

/**
 * The agent's tools: opsgate's own definitions (mutability, phases, previews) over the Helm
 * MCP server's tools, reached through `client`. The server's annotations play no part.
 */
export function createHelmTools(targets: HelmTargets): AnyToolDefinition[] {
  return [...HELM_TOOL_CATALOG.map((spec) => toolFor(targets, spec)), readResourceTool(targets)];
}
