import type { ToolCallInvocation, ToolMiddleware } from '../../../core/agent/define-agent.ts';
import { OpsgateError } from '../../../core/errors/index.ts';
import { MUTATING_TOOLS } from '../mcp/tool-catalog.ts';

type ScenarioType = 'INSTALL' | 'UPGRADE' | 'ROLLBACK' | 'UNINSTALL';

/** The spec's `HelmAgentState`, kept in the session's durable agent state. */
interface HelmAgentState {
  scenario_type?: ScenarioType;
  chart_metadata?: {
    name: string;
    version: string;
    appVersion?: string;
    repository: string;
    url: string;
    digest?: string;
    kubeVersion?: string;
  };
  user_provided_values?: Record<string, unknown>;
  current_release?: {
    name: string;
    namespace: string;
    revision: number;
    status: string;
    chart: string;
    app_version: string;
    values: Record<string, unknown>;
  };
  validation_results?: Record<string, unknown>;
  execution_plan?: Record<string, unknown>;
  /** The core records phase changes too; this copy is the workflow's own trace. */
  phase_history?: string[];
  /** `COMPLETED` once verification passed, `FAILED` when it reported problems. */
  status?: 'COMPLETED' | 'FAILED';
  verification?: Record<string, unknown>;
  /** Discovery answers by call key, so a repeated discovery call is answered from here. */
  discovery_cache?: Record<string, unknown>;
}

const CACHED_DISCOVERY = new Set(['helm_get_chart_info', 'helm_list_chart_versions']);
const PLANNING_TOOLS = new Set(['helm_validate_values', 'kubernetes_check_prerequisites', 'helm_get_installation_plan']);

function cacheKey(call: ToolCallInvocation): string {
  const input = (call.input ?? {}) as Record<string, unknown>;
  return `${call.tool.name}:${String(input.chart ?? '').replace(/^.*\//, '')}@${String(input.version ?? 'latest')}`;
}

const WORKFLOW_FIELDS = [
  'scenario_type',
  'chart_metadata',
  'user_provided_values',
  'current_release',
  'validation_results',
  'execution_plan',
  'status',
  'verification',
] as const;

/**
 * Keeps `HelmAgentState` in sync with tool results, answers repeated discovery calls from the
 * cache, and moves the workflow through its phases as the steps complete:
 * discovery → values_confirmation (gate 1) → planning → approval (gate 2) → execution.
 */
export class HelmAgentStateMiddleware implements ToolMiddleware {
  readonly name = 'HelmAgentStateMiddleware';

  async wrap(call: ToolCallInvocation, next: () => Promise<unknown>): Promise<unknown> {
    const state = call.context.state as HelmAgentState;
    const input = (call.input ?? {}) as Record<string, unknown>;
    const workflow = call.context.phase !== 'query';
    let current = call.context.phase;
    const move = (_call: ToolCallInvocation, _state: HelmAgentState, phase: string, reason: string) => {
      if (current === phase || !workflow) return;
      call.context.setPhase(phase, reason);
      current = phase;
      state.phase_history ??= [];
      state.phase_history.push(phase);
    };
    // A new workflow in the same session starts from a clean state.
    if (workflow && call.context.phase === 'discovery' && call.tool.name === 'helm_get_release_status') {
      for (const field of WORKFLOW_FIELDS) delete state[field];
      state.phase_history = ['discovery'];
    }
    if (workflow && !state.phase_history) state.phase_history = [call.context.phase];

    // A repeated discovery call is answered from the cache, but still moves the workflow on: the
    // second install in a session (after a declined one) otherwise stayed in discovery and every
    // planning tool was refused there (issue 22, Broken 1).
    const cached = CACHED_DISCOVERY.has(call.tool.name) ? state.discovery_cache?.[cacheKey(call)] : undefined;
    // Anti-loop: once the person answered gate 1, the first planning step moves to planning.
    if (workflow && PLANNING_TOOLS.has(call.tool.name) && current === 'values_confirmation')
      move(call, state, 'planning', 'values confirmed');
    if (workflow && call.tool.name in MUTATING_TOOLS) move(call, state, 'execution', 'plan approved');

    let output: unknown;
    try {
      output = cached !== undefined ? { ...(cached as Record<string, unknown>), cached: true } : await next();
    } catch (error) {
      if (OpsgateError.isInstance(error)) {
        if (error.code === 'HELM_RELEASE_NOT_FOUND' && call.tool.name === 'helm_get_release_status' && workflow && !state.scenario_type) {
          const intent = input.intent;
          if (intent === undefined || intent === 'install') state.scenario_type = 'INSTALL';
        }
        if (error.code === 'HELM_PLAN_STALE' && workflow) move(call, state, 'planning', 'the approved call was modified; plan again');
      }
      throw error;
    }
    const body = (output ?? {}) as Record<string, unknown>;
    switch (call.tool.name) {
      case 'helm_get_release_status': {
        const status = body.status as
          | {
              name: string;
              namespace: string;
              version: number;
              info: { status: string };
              chart: { metadata: { name: string; version: string; appVersion?: string } };
              config: Record<string, unknown>;
            }
          | undefined;
        if (status && (call.context.phase === 'discovery' || !state.current_release)) {
          state.current_release = {
            name: status.name,
            namespace: status.namespace,
            revision: status.version,
            status: status.info.status,
            chart: `${status.chart.metadata.name}-${status.chart.metadata.version}`,
            app_version: status.chart.metadata.appVersion ?? '',
            values: status.config ?? {},
          };
        }
        if (workflow && call.context.phase === 'discovery') {
          state.scenario_type = input.intent === 'rollback' ? 'ROLLBACK' : input.intent === 'uninstall' ? 'UNINSTALL' : 'UPGRADE';
          if (state.scenario_type === 'ROLLBACK' || state.scenario_type === 'UNINSTALL')
            move(call, state, 'values_confirmation', 'release found');
        }
        break;
      }
      case 'helm_get_chart_info': {
        const chart = body.chart as
          | { name: string; version: string; appVersion?: string; url?: string; digest?: string; kubeVersion?: string }
          | undefined;
        if (chart) {
          state.chart_metadata = {
            name: chart.name,
            version: chart.version,
            ...(chart.appVersion ? { appVersion: chart.appVersion } : {}),
            repository: String(body.repository ?? ''),
            url: chart.url ?? '',
            ...(chart.digest ? { digest: chart.digest } : {}),
            ...(chart.kubeVersion ? { kubeVersion: chart.kubeVersion } : {}),
          };
        }
        state.discovery_cache ??= {};
        if (cached === undefined) state.discovery_cache[cacheKey(call)] = body;
        if (workflow && current === 'discovery' && state.scenario_type) move(call, state, 'values_confirmation', 'chart and release known');
        break;
      }
      case 'helm_list_chart_versions':
        state.discovery_cache ??= {};
        state.discovery_cache[cacheKey(call)] = body;
        break;
      case 'helm_validate_values':
        state.validation_results = { valid: body.valid, errors: body.errors, checked: body.checked, unchecked: body.unchecked };
        if (input.values && typeof input.values === 'object') state.user_provided_values = input.values as Record<string, unknown>;
        break;
      case 'helm_get_installation_plan':
        state.execution_plan = body.plan as Record<string, unknown>;
        if (workflow) move(call, state, 'approval', 'plan ready');
        break;
      case 'helm_monitor_deployment':
        state.verification = body;
        if (workflow) state.status = body.healthy === true ? 'COMPLETED' : 'FAILED';
        break;
      default:
        if (
          workflow &&
          call.tool.name in MUTATING_TOOLS &&
          (MUTATING_TOOLS[call.tool.name] === 'uninstall' || MUTATING_TOOLS[call.tool.name] === 'rollback')
        ) {
          state.status = 'COMPLETED';
        }
    }
    return output;
  }
}
