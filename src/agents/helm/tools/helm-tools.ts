import { z } from 'zod';
import { OpsgateError } from '../../../core/errors/index.ts';
import {
  type AnyToolDefinition,
  type ApprovalPreview,
  defineTool,
  type ToolContext,
  type ValidatorVerdict,
} from '../../../core/tools/index.ts';
import type { HelmMcpClient } from '../mcp/mcp-client.ts';
import { HELM_TOOL_CATALOG, type HelmToolSpec, MUTATING_TOOLS } from '../mcp/tool-catalog.ts';
import type { InstallationPlan } from '../service/plan.ts';

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
      ? `rollback returns to revision ${plan.rollback.revision}`
      : (plan.rollback.steps[0] ?? 'no rollback');
  return `${plan.operation} ${plan.release}${chart} in ${plan.namespace}: create ${create.length}, change ${change.length}, delete ${remove.length}; ${rollback}`;
}

/** The plan of a mutable call for the approval panel; its hash joins the approval binding. */
async function planPreview(
  client: HelmMcpClient,
  toolName: string,
  input: Record<string, unknown>,
  context: ToolContext,
): Promise<ApprovalPreview> {
  const { planHash: _planHash, ...request } = input;
  const answer = await client.call('helm_get_installation_plan', { ...request, operation: MUTATING_TOOLS[toolName] }, context.signal);
  const plan = answer.plan as InstallationPlan;
  return {
    kind: 'helm-plan',
    summary: summarise(plan),
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
  client: HelmMcpClient,
  toolName: string,
  input: Record<string, unknown>,
  context: ToolContext,
): Promise<ValidatorVerdict> {
  const { planHash, ...request } = input;
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
    reason: `planHash ${String(planHash)} is not the current plan (${plan.planHash}) for these arguments: the values or the cluster changed. Plan again (helm_get_installation_plan) and propose the call with the new planHash. Arguments to plan with: ${JSON.stringify(request)}`,
  };
}

function toolFor(client: HelmMcpClient, spec: HelmToolSpec): AnyToolDefinition {
  const local = LOCAL_FIELDS[spec.name] ?? {};
  const input = Object.keys(local).length > 0 ? spec.input.extend(local) : spec.input;
  const mutable = spec.mutability === 'mutable';
  return defineTool<Record<string, unknown>, Record<string, unknown>>({
    name: spec.name,
    description: spec.description,
    input: input as unknown as z.ZodType<Record<string, unknown>>,
    mutability: spec.mutability,
    ...(spec.risk ? { risk: spec.risk } : {}),
    allowedPhases: spec.allowedPhases,
    cache: CACHEABLE.has(spec.name),
    ...(mutable
      ? {
          preview: (args: Record<string, unknown>, context: ToolContext) => planPreview(client, spec.name, args, context),
          validate: (args: Record<string, unknown>, context: ToolContext) => planStillCurrent(client, spec.name, args, context),
        }
      : {}),
    async execute(args, context) {
      const remote = Object.fromEntries(Object.entries(args).filter(([key]) => !(key in local)));
      try {
        return await client.call(spec.name, remote, context.signal);
      } catch (error) {
        if (mutable && OpsgateError.isInstance(error)) await context.audit('helm_operation_refused', { tool: spec.name, code: error.code });
        throw error;
      }
    },
  });
}

/** `read_mcp_resource`: reads a resource of the Helm MCP server (chart files, release manifests). */
function readResourceTool(client: HelmMcpClient): AnyToolDefinition {
  return defineTool({
    name: 'read_mcp_resource',
    description:
      'Read a Helm MCP server resource: helm://charts/{chart}/{version}/{Chart.yaml|values.yaml|values.schema.json} or helm://releases/{namespace}/{release}/manifest.',
    input: z.object({
      uri: z
        .string()
        .max(300)
        .regex(/^helm:\/\/(charts|releases)\//, 'a helm:// resource URI'),
    }),
    mutability: 'read-only',
    allowedPhases: ['query', 'discovery', 'values_confirmation', 'planning'],
    cache: false,
    async execute({ uri }) {
      return { contents: await client.readResource(uri) };
    },
  });
}

/**
 * The agent's tools: opsgate's own definitions (mutability, phases, previews) over the Helm
 * MCP server's tools, reached through `client`. The server's annotations play no part.
 */
export function createHelmTools(client: HelmMcpClient): AnyToolDefinition[] {
  return [...HELM_TOOL_CATALOG.map((spec) => toolFor(client, spec)), readResourceTool(client)];
}
