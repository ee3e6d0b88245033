/**
 * Which subcharts take part in a release, decided the way Helm's `processDependencyEnabled`
 * (`pkg/chartutil/dependencies.go`) decides: only dependencies listed in Chart.yaml can be turned
 * off, by `tags` (from the top-level values) and then by `condition`, which wins when it resolves to
 * a boolean. A subchart's own `enabled: false` means nothing to Helm unless a condition points at it.
 */
import { mergeValues, type Values } from '../values/merge-values.ts';
import { isCompatibleRange } from './kube-version.ts';
import type { ChartDependency, ChartTextFile, LoadedChart } from './load-chart.ts';

function isMap(value: unknown): value is Values {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Helm's `Values.PathValue`: a dotted path to a value that is not itself a table. */
function pathValue(values: Values, path: string): { found: boolean; value?: unknown } {
  const keys = path.split('.');
  let table: unknown = values;
  for (const key of keys.slice(0, -1)) {
    if (!isMap(table) || !isMap(table[key])) return { found: false };
    table = table[key];
  }
  const last = keys[keys.length - 1]!;
  if (!isMap(table) || !(last in table) || isMap(table[last])) return { found: false };
  return { found: true, value: table[last] };
}

const effectiveName = (dependency: ChartDependency) => dependency.alias || dependency.name;

/**
 * The subcharts with Chart.yaml's dependencies applied (Helm's `getAliasDependency`): a listed
 * dependency picks the first bundled chart of its name whose version satisfies its range, renamed to
 * its alias; bundled charts no dependency claims stay as they are.
 */
function candidateSubcharts(chart: LoadedChart): LoadedChart[] {
  const dependencies = chart.metadata.dependencies ?? [];
  const matches = (sub: LoadedChart, dependency: ChartDependency) =>
    sub.metadata.name === dependency.name && isCompatibleRange(dependency.version ?? '', sub.metadata.version);
  const unclaimed = chart.subcharts.filter((sub) => !dependencies.some((dependency) => matches(sub, dependency)));
  const claimed: LoadedChart[] = [];
  for (const dependency of dependencies) {
    const sub = chart.subcharts.find((candidate) => matches(candidate, dependency));
    if (sub) claimed.push(dependency.alias ? { ...sub, metadata: { ...sub.metadata, name: dependency.alias } } : sub);
  }
  return [...unclaimed, ...claimed];
}

/**
 * Helm's coalescing of one chart's values with its subcharts' defaults: each subchart section
 * gets the subchart's `values.yaml` under what the parent set, recursively. Conditions are read
 * from this view, so a condition can be answered by a subchart's own default.
 */
function coalesceDependencies(chart: LoadedChart, values: Values): Values {
  const out: Values = { ...values };
  for (const sub of candidateSubcharts(chart)) {
    const section = out[sub.metadata.name];
    if (section !== undefined && section !== null && !isMap(section)) continue;
    out[sub.metadata.name] = coalesceDependencies(sub, mergeValues(sub.defaults, isMap(section) ? section : {}));
  }
  return out;
}

export interface SubchartDecision {
  /** The subchart's name in this release (its alias when it has one). */
  readonly name: string;
  readonly enabled: boolean;
  /** What decided it, for plans and logs. */
  readonly reason: string;
}

/**
 * The subcharts of `chart` that are enabled, given the values `chart` sees (`chartValues`) and the
 * `tags:` table of the top-level values; plus why each one is or is not.
 */
export function resolveSubcharts(
  chart: LoadedChart,
  chartValues: Values,
  topTags: unknown,
): { readonly enabled: readonly LoadedChart[]; readonly decisions: readonly SubchartDecision[] } {
  const candidates = candidateSubcharts(chart);
  const dependencies = chart.metadata.dependencies ?? [];
  if (dependencies.length === 0)
    return {
      enabled: candidates,
      decisions: candidates.map((sub) => ({ name: sub.metadata.name, enabled: true, reason: 'not a listed dependency' })),
    };
  const coalesced = coalesceDependencies(chart, chartValues);
  const off = new Set<string>();
  const decisions: SubchartDecision[] = [];
  for (const dependency of dependencies) {
    let enabled = true;
    let reason = 'enabled by default';
    if (isMap(topTags)) {
      let hasTrue = false;
      let hasFalse = false;
      for (const tag of dependency.tags ?? []) {
        const value = topTags[tag];
        if (value === true) hasTrue = true;
        else if (value === false) hasFalse = true;
      }
      if (!hasTrue && hasFalse) {
        enabled = false;
        reason = `tags ${(dependency.tags ?? []).join(', ')} are false`;
      } else if (hasTrue) reason = 'a tag is true';
    }
    // Helm splits on commas without trimming each path, so "a.enabled, b.enabled" never reads b.
    for (const path of (dependency.condition ?? '').trim().split(',')) {
      if (path.length === 0) continue;
      const { found, value } = pathValue(coalesced, path);
      if (found && typeof value === 'boolean') {
        enabled = value;
        reason = `condition ${path} is ${value}`;
        break;
      }
    }
    if (!enabled) off.add(effectiveName(dependency));
    decisions.push({ name: effectiveName(dependency), enabled, reason });
  }
  return { enabled: candidates.filter((sub) => !off.has(sub.metadata.name)), decisions };
}

/** The top-level `tags:` table, from the chart's coalesced values. */
function topLevelTags(values: Values): unknown {
  return values.tags;
}

/**
 * The CRDs Helm would install for these values (`Chart.CRDObjects` after the dependencies were
 * processed): this chart's `crds/`, then each enabled subchart's, paths from the top chart.
 */
export function collectCrds(
  chart: LoadedChart,
  chartValues: Values,
  topTags: unknown = topLevelTags(chartValues),
  prefix = `${chart.metadata.name}/`,
): ChartTextFile[] {
  const out: ChartTextFile[] = chart.crds.map((crd) => ({ path: `${prefix}${crd.path}`, content: crd.content }));
  const coalesced = coalesceDependencies(chart, chartValues);
  for (const sub of resolveSubcharts(chart, chartValues, topTags).enabled) {
    const section = isMap(coalesced[sub.metadata.name]) ? (coalesced[sub.metadata.name] as Values) : {};
    out.push(...collectCrds(sub, section, topTags, `${prefix}charts/${sub.metadata.name}/`));
  }
  return out;
}
