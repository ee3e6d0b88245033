import { Ajv, type AnySchema, type ErrorObject } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { LoadedChart } from '../charts/load-chart.ts';
import { mergeChartValues, subchartValues, type Values } from './merge-values.ts';

export interface ValuesError {
  /** JSON pointer into the merged values, prefixed with the subchart's section (`/cache/maxMemoryMb`). */
  readonly path: string;
  readonly message: string;
  /** Which chart's schema reported it (`webapp`, `shop/cache`). */
  readonly chart: string;
  readonly keyword: string;
}

export interface ValuesValidation {
  readonly valid: boolean;
  readonly errors: readonly ValuesError[];
  /** Charts whose schema was checked, with the draft each declared. */
  readonly checked: ReadonlyArray<{ readonly chart: string; readonly draft: string }>;
  /** Charts without a `values.schema.json`. */
  readonly unchecked: readonly string[];
  readonly merged: Values;
}

type SchemaDraft = 'draft-07' | '2019-09' | '2020-12';

/** The draft a schema declares by `$schema`; no `$schema` means draft-07 (what Helm assumes). */
export function schemaDraft(schema: Record<string, unknown>): SchemaDraft {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (declared.includes('2020-12')) return '2020-12';
  if (declared.includes('2019-09')) return '2019-09';
  if (!declared || declared.includes('draft-07') || declared.includes('draft-06')) return 'draft-07';
  throw new Error(`unsupported JSON Schema dialect ${declared}; use draft-07, 2019-09 or 2020-12`);
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => void;

function makeAjv(draft: SchemaDraft): Ajv {
  const options = { allErrors: true, strict: false };
  const ajv = draft === '2020-12' ? new Ajv2020(options) : draft === '2019-09' ? new Ajv2019(options) : new Ajv(options);
  addFormats(ajv as Ajv);
  return ajv as Ajv;
}

function describe(error: ErrorObject): string {
  if (error.keyword === 'required') return `missing required field "${(error.params as { missingProperty: string }).missingProperty}"`;
  if (error.keyword === 'additionalProperties')
    return `unknown field "${(error.params as { additionalProperty: string }).additionalProperty}"`;
  return error.message ?? error.keyword;
}

function check(
  chart: LoadedChart,
  values: Values,
  label: string,
  prefix: string,
  out: { errors: ValuesError[]; checked: Array<{ chart: string; draft: string }>; unchecked: string[] },
): void {
  if (chart.schema) {
    let draft: SchemaDraft;
    try {
      draft = schemaDraft(chart.schema);
    } catch (error) {
      out.errors.push({ path: prefix || '/', message: (error as Error).message, chart: label, keyword: '$schema' });
      return;
    }
    const validate = makeAjv(draft).compile(chart.schema as AnySchema);
    out.checked.push({ chart: label, draft });
    if (!validate(values)) {
      for (const error of validate.errors ?? []) {
        const missing = error.keyword === 'required' ? `/${(error.params as { missingProperty: string }).missingProperty}` : '';
        out.errors.push({
          path: `${prefix}${error.instancePath}${missing}` || '/',
          message: describe(error),
          chart: label,
          keyword: error.keyword,
        });
      }
    }
  } else {
    out.unchecked.push(label);
  }
  for (const subchart of chart.subcharts) {
    if ((values[subchart.metadata.name] as Values | undefined)?.enabled === false) continue;
    check(subchart, subchartValues(subchart, values), `${label}/${subchart.metadata.name}`, `${prefix}/${subchart.metadata.name}`, out);
  }
}

/**
 * Validates the merged values (chart defaults + user values, `null` deletes) against the chart's
 * and every enabled subchart's `values.schema.json`, each with the draft it declares.
 */
export function validateValues(chart: LoadedChart, userValues: Values): ValuesValidation {
  const merged = mergeChartValues(chart, userValues);
  const out = { errors: [] as ValuesError[], checked: [] as Array<{ chart: string; draft: string }>, unchecked: [] as string[] };
  check(chart, merged, chart.metadata.name, '', out);
  return { valid: out.errors.length === 0, errors: out.errors, checked: out.checked, unchecked: out.unchecked, merged };
}

/** Required fields of the chart's schema (top level and nested), with their defaults — for gate 1 on install. */
export function requiredFields(chart: LoadedChart): Array<{ readonly path: string; readonly default: unknown }> {
  const out: Array<{ path: string; default: unknown }> = [];
  const walk = (schema: Record<string, unknown> | undefined, defaults: unknown, prefix: string) => {
    if (!schema) return;
    const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    for (const name of (schema.required ?? []) as string[]) {
      const value = defaults && typeof defaults === 'object' ? (defaults as Values)[name] : undefined;
      const path = prefix ? `${prefix}.${name}` : name;
      const nested = properties[name];
      if (nested && nested.type === 'object' && Array.isArray(nested.required)) walk(nested, value, path);
      else out.push({ path, default: value ?? null });
    }
  };
  walk(chart.schema, chart.defaults, '');
  for (const subchart of chart.subcharts) {
    for (const field of requiredFields(subchart))
      out.push({
        path: `${subchart.metadata.name}.${field.path}`,
        default: (chart.defaults[subchart.metadata.name] as Values | undefined)?.[field.path] ?? field.default,
      });
  }
  return out;
}
