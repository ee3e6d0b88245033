import type { LoadedChart } from '../charts/load-chart.ts';

export type Values = Record<string, unknown>;

function isMap(value: unknown): value is Values {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Helm's coalescing: user values override chart defaults, maps merge deeply, and a `null`
 * user value deletes the key (and its default). Neither input is changed.
 */
export function mergeValues(defaults: Values, overrides: Values): Values {
  const result: Values = structuredClone(defaults);
  for (const [key, value] of Object.entries(overrides)) {
    if (value === null) {
      delete result[key];
    } else if (isMap(value) && isMap(result[key])) {
      result[key] = mergeValues(result[key] as Values, value);
    } else {
      result[key] = structuredClone(value);
    }
  }
  return result;
}

/** The values one chart sees: its defaults under the parent's `<name>:` section and `global`. */
export function subchartValues(subchart: LoadedChart, parentMerged: Values): Values {
  const section = isMap(parentMerged[subchart.metadata.name]) ? (parentMerged[subchart.metadata.name] as Values) : {};
  const merged = mergeValues(subchart.defaults, section);
  if (isMap(parentMerged.global)) merged.global = mergeValues(isMap(merged.global) ? merged.global : {}, parentMerged.global);
  return merged;
}

/** Chart defaults + user values, as the templates and the schema see them. */
export function mergeChartValues(chart: LoadedChart, userValues: Values): Values {
  return mergeValues(chart.defaults, userValues);
}

/** Parses `a.b.c=value` (Helm's `--set`): numbers, booleans and `null` are typed, the rest is text. */
export function parseSetAssignments(assignments: readonly string[]): Values {
  const result: Values = {};
  for (const assignment of assignments) {
    const eq = assignment.indexOf('=');
    if (eq <= 0) throw new Error(`"${assignment}" is not key=value`);
    const path = assignment.slice(0, eq).split('.');
    const raw = assignment.slice(eq + 1);
    let value: unknown = raw;
    if (raw === 'null') value = null;
    else if (raw === 'true' || raw === 'false') value = raw === 'true';
    else if (/^-?\d+(\.\d+)?$/.test(raw)) value = Number(raw);
    let target = result;
    for (const [index, key] of path.entries()) {
      if (!key) throw new Error(`"${assignment}" has an empty key`);
      if (index === path.length - 1) target[key] = value;
      else {
        if (!isMap(target[key])) target[key] = {};
        target = target[key] as Values;
      }
    }
  }
  return result;
}
