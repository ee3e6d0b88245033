import type { InterpreterAction, InterpreterRules, InterpreterTurn } from '../../core/model/interpreter-rules.ts';
import { MUTATING_TOOLS } from './mcp/tool-catalog.ts';
import { type InstallationPlan, provenanceSummary } from './service/plan.ts';
import { mergeValues, parseSetAssignments, type Values } from './values/merge-values.ts';
import { diffValues } from './values/values-diff.ts';
import { HELM_GRAMMAR, type HelmCommand, parseHelmCommand } from './workflow/parse-command.ts';

type Step = InterpreterTurn['steps'][number];
type Call = { toolName: string; input: Record<string, unknown> };

const call = (toolName: string, input: Record<string, unknown>, text?: string): InterpreterAction => ({
  toolCalls: [{ toolName, input }],
  ...(text ? { text } : {}),
});
const say = (text: string): InterpreterAction => ({ text });

function errorText(step: Step): string {
  const out = step.output as Record<string, unknown> | string | null;
  if (typeof out === 'string') return out;
  if (out && typeof out === 'object') return String(out.error ?? out.reason ?? JSON.stringify(out));
  return 'unknown error';
}

function isNotFound(step: Step): boolean {
  const out = step.output as Record<string, unknown> | null;
  return step.isError && (out?.code === 'HELM_RELEASE_NOT_FOUND' || /release: not found/.test(errorText(step)));
}

function lastIndex(steps: readonly Step[], name: string, from = 0): number {
  for (let i = steps.length - 1; i >= from; i--) if (steps[i]!.toolName === name) return i;
  return -1;
}

function formatValue(value: unknown): string {
  return value === undefined ? '(unset)' : JSON.stringify(value);
}

/** The person's answer at gate 1: go on, stop, or go on with changed values (`set k=v …`). */
function readAnswer(step: Step): { proceed: boolean; skipped?: boolean; values: Values } {
  const out = (step.output ?? {}) as { answer?: string; text?: string };
  if (out.answer === 'no') return { proceed: false, values: {} };
  if (out.answer === 'skip') return { proceed: false, skipped: true, values: {} };
  if (out.answer === 'custom') {
    const text = (out.text ?? '').trim();
    if (/^(no|stop|cancel|abort)\b/i.test(text)) return { proceed: false, values: {} };
    const assignments = text
      .replace(/^(yes[, ]*)?(set\s+)?/i, '')
      .split(/\s+/)
      .filter((token) => token.includes('='));
    try {
      return { proceed: true, values: parseSetAssignments(assignments) };
    } catch {
      return { proceed: true, values: {} };
    }
  }
  return { proceed: true, values: {} };
}

function statusText(step: Step): string {
  if (step.isError) return `Could not read the release: ${errorText(step)}`;
  const out = step.output as {
    status: {
      name: string;
      namespace: string;
      version: number;
      info: { status: string; description: string };
      chart: { metadata: { name: string; version: string; appVersion?: string } };
    };
    history: Array<{ revision: number; status: string; chart: string; description: string }>;
    note?: string;
  };
  const s = out.status;
  const lines = [
    `${s.name} (namespace ${s.namespace}): ${s.info.status}, revision ${s.version}, chart ${s.chart.metadata.name}-${s.chart.metadata.version} (app ${s.chart.metadata.appVersion ?? '?'}) — ${s.info.description}`,
    'History:',
    ...out.history.map((h) => `  ${h.revision}  ${h.status.padEnd(16)} ${h.chart.padEnd(20)} ${h.description}`),
  ];
  if (s.info.status.startsWith('pending-')) lines.push(`The release is stuck in ${s.info.status}; roll it back with "rollback ${s.name}".`);
  if (out.note) lines.push(out.note);
  return lines.join('\n');
}

function queryAnswer(command: HelmCommand, steps: readonly Step[]): InterpreterAction {
  const last = steps.at(-1);
  switch (command.kind) {
    case 'list': {
      if (!last) return call('helm_list_releases', command.namespace ? { namespace: command.namespace } : {});
      if (last.isError) return say(`Could not list releases: ${errorText(last)}`);
      const out = last.output as {
        releases: Array<{ name: string; namespace: string; revision: string; status: string; chart: string; app_version: string }>;
        note?: string;
      };
      if (out.releases.length === 0)
        return say(`No releases${command.namespace ? ` in ${command.namespace}` : ''}.${out.note ? `\n${out.note}` : ''}`);
      return say(
        [
          'NAME  NAMESPACE  REVISION  STATUS  CHART  APP VERSION',
          ...out.releases.map((r) => `${r.name}  ${r.namespace}  ${r.revision}  ${r.status}  ${r.chart}  ${r.app_version}`),
          ...(out.note ? [out.note] : []),
        ].join('\n'),
      );
    }
    case 'status':
      return last ? say(statusText(last)) : call('helm_get_release_status', { release: command.release, namespace: command.namespace });
    case 'search': {
      if (!last) return call('helm_search_charts', { query: command.query });
      if (last.isError) return say(`Search failed: ${errorText(last)}`);
      const out = last.output as { charts: Array<{ name: string; version: string; app_version: string; description: string }> };
      return say(
        out.charts.length
          ? out.charts.map((c) => `${c.name} ${c.version} (app ${c.app_version}) — ${c.description}`).join('\n')
          : `No chart matches "${command.query}".`,
      );
    }
    default:
      return say('That changes the cluster; start a new request so it goes through the workflow.');
  }
}

type WorkflowCommand = Extract<HelmCommand, { kind: 'install' | 'upgrade' | 'rollback' | 'uninstall' }>;

/** Decides the next workflow step from the steps so far (the interpreter keeps no memory of its own). */
function workflowStep(command: WorkflowCommand, steps: readonly Step[]): InterpreterAction {
  const base = { release: command.release, namespace: command.namespace };
  // Phase 1: discovery — install or upgrade? Anything but "release: not found" aborts.
  const statusAt = steps.findIndex((s) => s.toolName === 'helm_get_release_status');
  if (statusAt < 0)
    return call('helm_get_release_status', { ...base, intent: command.kind }, `Discovery: checking release ${command.release}.`);
  const status = steps[statusAt]!;
  let current:
    | { version: number; info: { status: string }; chart: { metadata: { name: string; version: string } }; config: Values }
    | undefined;
  if (status.isError) {
    if (!(isNotFound(status) && command.kind === 'install')) return say(`Stopped: ${errorText(status)} Nothing was changed.`);
  } else {
    const out = status.output as { status: NonNullable<typeof current>; history: Array<{ revision: number; status: string }> };
    current = out.status;
    if (current.info.status.startsWith('pending-') && command.kind !== 'rollback') {
      const stable = [...out.history]
        .reverse()
        .find((h) => h.revision < current!.version && (h.status === 'deployed' || h.status === 'superseded'));
      return say(
        `Stopped: ${command.release} is stuck in ${current.info.status} (revision ${current.version}). Nothing was changed. Roll it back first: "rollback ${command.release}${stable ? ` to ${stable.revision}` : ''}".`,
      );
    }
  }
  const operation = command.kind === 'install' && current ? 'upgrade' : command.kind;
  const chart = command.kind === 'install' ? command.chart.replace(/^.*\//, '') : current?.chart.metadata.name;
  const version =
    'version' in command && command.version
      ? command.version
      : operation === 'upgrade' && command.kind === 'upgrade'
        ? current?.chart.metadata.version
        : undefined;
  const values = 'values' in command ? command.values : {};
  const usesValues = operation === 'install' || operation === 'upgrade';

  let chartInfo: Record<string, unknown> | undefined;
  if (usesValues) {
    const infoAt = lastIndex(steps, 'helm_get_chart_info');
    if (infoAt < 0) return call('helm_get_chart_info', { chart, ...(version ? { version } : {}) });
    if (steps[infoAt]!.isError) return say(`Stopped: ${errorText(steps[infoAt]!)}`);
    chartInfo = steps[infoAt]!.output as Record<string, unknown>;
  }
  const chartVersion = version ?? String((chartInfo?.chart as { version?: string } | undefined)?.version ?? '');

  // Phase 2: values confirmation (gate 1).
  const questionAt = lastIndex(steps, 'request_human_input');
  if (questionAt < 0) return call('request_human_input', gateOne(command, operation, current, chartInfo, chart, chartVersion, values));
  const answer = readAnswer(steps[questionAt]!);
  if (answer.skipped) return say('Skipped: the operation was not planned and nothing was changed.');
  if (!answer.proceed) return say('Stopped at values confirmation. Nothing was changed.');
  let planValues = mergeValues(values, answer.values);

  // A modified or stale gate-2 call sends the workflow back to planning with the new arguments.
  let from = questionAt + 1;
  let planArgs: Record<string, unknown> | undefined;
  for (let i = from; i < steps.length; i++) {
    const step = steps[i]!;
    if (
      step.toolName in MUTATING_TOOLS &&
      step.isError &&
      /helm-plan-stale|HELM_PLAN_STALE|is not the current plan/.test(JSON.stringify(step.output))
    ) {
      from = i + 1;
      const match = errorText(step).match(/Arguments to plan with: (\{.*\})\s*$/s);
      if (match) {
        planArgs = JSON.parse(match[1]!) as Record<string, unknown>;
        if (planArgs.values && typeof planArgs.values === 'object') planValues = planArgs.values as Values;
      }
    }
  }
  // An approver who edited the cluster at gate 2 moves the rest of the workflow there.
  const target = typeof planArgs?.cluster === 'string' ? { cluster: planArgs.cluster } : {};
  const request: Record<string, unknown> = {
    operation,
    ...base,
    ...target,
    ...(chart && usesValues ? { chart } : {}),
    ...(chartVersion && usesValues ? { version: planArgs?.version ?? chartVersion } : {}),
    ...(usesValues ? { values: planValues } : {}),
    ...(operation === 'install' ? { createNamespace: true } : {}),
    ...(command.kind === 'rollback' && command.revision !== undefined ? { revision: command.revision } : {}),
    ...(command.timeoutSeconds !== undefined ? { timeoutSeconds: command.timeoutSeconds } : {}),
  };

  // Phase 3: planning & validation.
  if (usesValues) {
    const validateAt = lastIndex(steps, 'helm_validate_values', from);
    if (validateAt < 0) return call('helm_validate_values', request, 'Planning: validating the merged values against the chart schemas.');
    const validation = steps[validateAt]!;
    if (validation.isError) return say(`Stopped in planning: ${errorText(validation)}`);
    const result = validation.output as { valid: boolean; errors: Array<{ path: string; message: string; chart: string }> };
    if (!result.valid) {
      return say(
        [
          `Stopped in planning: the values do not match the chart schema (${result.errors.length} errors). Nothing was changed.`,
          ...result.errors.map((e) => `  ${e.path}: ${e.message} (${e.chart})`),
        ].join('\n'),
      );
    }
    const prereqAt = lastIndex(steps, 'kubernetes_check_prerequisites', from);
    if (prereqAt < 0)
      return call('kubernetes_check_prerequisites', {
        chart,
        version: request.version,
        namespace: command.namespace,
        createNamespace: operation === 'install',
        ...target,
      });
    const prereq = steps[prereqAt]!;
    if (prereq.isError) return say(`Stopped in planning: ${errorText(prereq)}`);
    const checks = prereq.output as { ok: boolean; checks: Array<{ name: string; ok: boolean; detail: string }> };
    if (!checks.ok)
      return say(
        [
          'Stopped in planning: prerequisites not met. Nothing was changed.',
          ...checks.checks.filter((c) => !c.ok).map((c) => `  ${c.name}: ${c.detail}`),
        ].join('\n'),
      );
  }
  const planAt = lastIndex(steps, 'helm_get_installation_plan', from);
  if (planAt < 0) return call('helm_get_installation_plan', request);
  if (steps[planAt]!.isError) return say(`Stopped in planning: ${errorText(steps[planAt]!)}`);
  const plan = (steps[planAt]!.output as { plan: InstallationPlan }).plan;

  // Phase 4: approval (gate 2) — the mutable call itself waits for the person, with the plan as preview.
  const tool = Object.entries(MUTATING_TOOLS).find(([, op]) => op === operation)![0];
  const executeAt = lastIndex(steps, tool, planAt + 1);
  if (executeAt < 0) {
    const { operation: _op, ...args } = request;
    const callArgs: Record<string, unknown> = { ...args, planHash: plan.planHash };
    if (operation !== 'install') delete callArgs.createNamespace;
    if (operation === 'rollback' || operation === 'uninstall') {
      delete callArgs.values;
      delete callArgs.chart;
      delete callArgs.version;
    }
    return call(tool, callArgs, planSummary(plan));
  }
  const executed = steps[executeAt]!;
  if (executed.isError) {
    const out = executed.output as { denied?: boolean; reason?: string } | null;
    if (out?.denied) return say(`Rejected at plan approval${rejectionWords(out.reason)} The workflow is aborted; nothing was changed.`);
    return say(`${operation} failed: ${errorText(executed)}`);
  }

  // Phase 5: execution & verification.
  const confirmed = String(
    ((executed.output as Record<string, unknown>)?.result as Record<string, unknown> | undefined)?.confirmed ??
      (executed.output as Record<string, unknown>)?.confirmed ??
      '',
  );
  if (operation === 'uninstall') return say(`Done: ${confirmed}`);
  const verifyAt = lastIndex(steps, 'helm_get_release_status', executeAt + 1);
  if (verifyAt < 0) return call('helm_get_release_status', { ...base, ...target }, 'Verifying: reading the release status.');
  const monitorAt = lastIndex(steps, 'helm_monitor_deployment', executeAt + 1);
  if (monitorAt < 0) return call('helm_monitor_deployment', { ...base, ...target, timeoutSeconds: 60 });
  const monitor = steps[monitorAt]!;
  if (monitor.isError) return say(`${confirmed}\nVerification failed: ${errorText(monitor)}`);
  const report = monitor.output as {
    healthy: boolean;
    releaseStatus: string;
    revision: number;
    pods: Array<{ name: string; status: string }>;
    problems: Array<{ object: string; reason: string }>;
    timedOut: boolean;
  };
  if (report.healthy) return say(`Done: ${confirmed}. Verified: release ${report.releaseStatus}, ${report.pods.length} pod(s) ready.`);
  return say(
    [
      `${confirmed}. Verification found problems (release ${report.releaseStatus}, revision ${report.revision}${report.timedOut ? ', timed out' : ''}):`,
      ...report.problems.map((p) => `  ${p.object}: ${p.reason}`),
      plan.rollback.steps[0] ? `To undo: ${plan.rollback.steps[0]}` : '',
    ]
      .filter(Boolean)
      .join('\n'),
  );
}

/** " by alice: not during the sale." from the runtime's "alice rejected this call. Reason: not during the sale". */
function rejectionWords(reason: string | undefined): string {
  const parsed = /^(\S+) rejected this call\. Reason: (.*)$/s.exec(reason ?? '');
  const text = (parsed ? `by ${parsed[1]}: ${parsed[2]}` : `: ${reason ?? 'no reason given'}`).trim();
  return `${text.startsWith(':') ? '' : ' '}${/[.!?]$/.test(text) ? text : `${text}.`}`;
}

function planSummary(plan: InstallationPlan): string {
  const r = plan.resources;
  return [
    `Plan for ${plan.operation} of ${plan.release} in ${plan.namespace}${plan.cluster ? ` on cluster ${plan.cluster.name} (${plan.cluster.environment})` : ''}${plan.chart ? ` (chart ${plan.chart.name}-${plan.chart.version})` : ''}:`,
    `  create: ${r.create.join(', ') || '-'}`,
    `  change: ${r.change.join(', ') || '-'}`,
    `  delete: ${r.delete.join(', ') || '-'}`,
    `  to undo: ${plan.rollback.steps.join('; ') || '-'}`,
    ...(plan.timeout ? [`  helm --timeout: ${plan.timeout.seconds}s (${plan.timeout.reason})`] : []),
    ...(provenanceSummary(plan) ? [`  chart ${provenanceSummary(plan)}`] : []),
    ...(plan.risks.length ? [`  risks: ${plan.risks.join('; ')}`] : []),
    // The plan's hash binds the approval; people check the plan above, so it stays in the details.
    'Approve to run it, reject to abort, or modify the values to plan again.',
  ].join('\n');
}

function gateOne(
  command: WorkflowCommand,
  operation: string,
  current: { version: number; chart: { metadata: { name: string; version: string } }; config: Values } | undefined,
  chartInfo: Record<string, unknown> | undefined,
  chart: string | undefined,
  version: string,
  values: Values,
): Record<string, unknown> {
  const answerHint = 'Answer yes to go on, no to stop, or "set key=value …" to change values.';
  if (operation === 'install') {
    const required = (chartInfo?.requiredFields ?? []) as Array<{ path: string; default: unknown }>;
    return {
      question: [
        `Install ${chart} ${version} as ${command.release} in ${command.namespace}.`,
        'Required fields (from the schema) and their defaults:',
        ...required.map((f) => `  ${f.path} = ${formatValue(f.default)}`),
        `Your values: ${
          Object.keys(values).length
            ? Object.entries(values)
                .map(([key, value]) => `${key}=${formatValue(value)}`)
                .join(', ')
            : '(none; chart defaults)'
        }`,
        answerHint,
      ].join('\n'),
      context: { scenario: 'INSTALL', requiredFields: required, defaults: chartInfo?.defaults ?? {}, userValues: values },
    };
  }
  if (operation === 'upgrade' && current) {
    const proposed = mergeValues(current.config, values);
    const changes = diffValues(current.config, proposed);
    return {
      question: [
        `Upgrade ${command.release} (revision ${current.version}, chart ${current.chart.metadata.name}-${current.chart.metadata.version} → ${chart}-${version}).`,
        'Current values vs proposed changes:',
        ...(changes.length
          ? changes.map((c) => `  ${c.path}: ${formatValue(c.current)} → ${formatValue(c.proposed)}`)
          : ['  (no value changes)']),
        answerHint,
      ].join('\n'),
      context: { scenario: 'UPGRADE', currentValues: current.config, proposedValues: proposed, changes },
    };
  }
  if (operation === 'rollback' && current) {
    const target = command.kind === 'rollback' && command.revision !== undefined ? command.revision : current.version - 1;
    return {
      question: `Roll back ${command.release} from revision ${current.version} to revision ${target}? ${answerHint}`,
      context: { scenario: 'ROLLBACK', currentRevision: current.version, targetRevision: target },
    };
  }
  return {
    question: `Uninstall ${command.release} from ${command.namespace} (revision ${current?.version}, chart ${current?.chart.metadata.name}-${current?.chart.metadata.version})? All its resources will be deleted. ${answerHint}`,
    context: { scenario: 'UNINSTALL', currentValues: current?.config ?? {} },
  };
}

/** The helm agent's rules for the offline interpreter: the grammar drives the whole workflow. */
export const helmInterpreterRules: InterpreterRules = {
  help: HELM_GRAMMAR,
  next(turn) {
    const command = parseHelmCommand(turn.userText);
    if (!command) return undefined;
    if (command.kind === 'list' || command.kind === 'status' || command.kind === 'search')
      return onCluster(queryAnswer(command, turn.steps), command.cluster);
    const offered = new Set(turn.tools.map((t) => t.name));
    if (!offered.has('helm_get_release_status') && turn.steps.length === 0) {
      return say('This session is on the read-only query path; start a new session for changes so they go through the workflow.');
    }
    return onCluster(workflowStep(command, turn.steps), command.cluster);
  },
};

/**
 * Every call of a command that names a cluster (`on CLUSTER`) goes to that cluster, unless the call
 * names its own (the cluster an approver chose when modifying the gate-2 call).
 */
function onCluster(action: InterpreterAction, cluster: string | undefined): InterpreterAction {
  if (cluster === undefined || !('toolCalls' in action)) return action;
  return { ...action, toolCalls: action.toolCalls.map((c: Call) => ({ ...c, input: { cluster, ...c.input } })) };
}
