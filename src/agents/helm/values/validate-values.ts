import { createRequire } from 'node:module';
import { Ajv, type AnySchema, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import Ajv04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import { resolveSubcharts } from '../charts/dependencies.ts';
import type { LoadedChart } from '../charts/load-chart.ts';
import { mergeChartValues, subchartValues, type Values } from './merge-values.ts';

interface ValuesError {
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
  /**
   * Schema documents the charts' schemas refer to by URL (`$ref` to http, https or file), which
   * opsgate never fetches: values are checked against the rest of each schema, and these parts
   * are left to Helm, which fetches them itself when it validates (also in the plan's server dry run).
   */
  readonly unresolvedRefs: ReadonlyArray<{ readonly chart: string; readonly ref: string }>;
  readonly merged: Values;
}

export type SchemaDraft = 'draft-04' | 'draft-06' | 'draft-07' | '2019-09' | '2020-12';

/**
 * The dialects Helm's validator (santhosh-tekuri/jsonschema v6, `draftFromURL`) recognises by
 * `$schema`, with or without `https`, and with an empty fragment (`…/schema#`).
 */
const DIALECTS: Readonly<Record<string, SchemaDraft>> = {
  'json-schema.org/schema': '2020-12',
  'json-schema.org/draft/2020-12/schema': '2020-12',
  'json-schema.org/draft/2019-09/schema': '2019-09',
  'json-schema.org/draft-07/schema': 'draft-07',
  'json-schema.org/draft-06/schema': 'draft-06',
  'json-schema.org/draft-04/schema': 'draft-04',
};

/**
 * The draft a schema declares by `$schema`. Without one (or a non-string one) Helm ≥ 3.18.5 uses
 * its validator's default, the latest draft: 2020-12 — not draft-07.
 */
export function schemaDraft(schema: unknown): SchemaDraft {
  const declared = schema && typeof schema === 'object' && !Array.isArray(schema) ? (schema as Record<string, unknown>).$schema : undefined;
  if (typeof declared !== 'string') return '2020-12';
  const [url = '', fragment = ''] = declared.split('#', 2);
  const dialect = fragment === '' ? DIALECTS[url.replace(/^https?:\/\//, '')] : undefined;
  if (!dialect)
    throw new Error(
      `unsupported JSON Schema dialect ${declared}; declare draft-04, draft-06, draft-07, 2019-09 or 2020-12 (or no $schema, which is 2020-12)`,
    );
  return dialect;
}

/**
 * Which validator the Helm in use has: `jsonschema-v6` (santhosh-tekuri/jsonschema, Helm ≥ 3.18.5
 * and Helm 4) or `gojsonschema` (xeipuuv/gojsonschema, Helm 3.13.0–3.18.4; v3.18.4
 * `pkg/chartutil/jsonschema.go` imports it, v3.18.5 does not).
 */
export type SchemaValidator = 'jsonschema-v6' | 'gojsonschema';

/**
 * The draft gojsonschema applies: the one `$schema` names if it is draft-04, -06 or -07, else its
 * "hybrid" mode (no `$schema`, 2019-09, 2020-12 or any other URL: gojsonschema draft.go
 * `GetDraftVersion` returns nil and the loader keeps `Hybrid`), which reads draft-07's keywords
 * and ignores newer ones (`prefixItems`, `unevaluatedProperties`, …).
 */
function gojsonschemaDraft(schema: unknown): { draft: SchemaDraft; label: string; hybrid: boolean } {
  try {
    const declared = schemaDraft(schema);
    if (declared === 'draft-04' || declared === 'draft-06' || declared === 'draft-07')
      return { draft: declared, label: declared, hybrid: false };
  } catch {
    // An unknown $schema is hybrid too.
  }
  return { draft: 'draft-07', label: 'hybrid (gojsonschema)', hybrid: true };
}

/**
 * The schema without its top-level `$schema`: in hybrid mode gojsonschema never loads the declared
 * metaschema, while a draft-07 ajv would look the 2019-09/2020-12 URL up and refuse the schema
 * (issue 30 N3: Helm 3.17.2 installs the demo chart `shop`, whose schema declares 2019-09).
 */
function withoutDialect(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  return rest;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => void;
// A CommonJS module whose `module.exports` is the class: under nodenext the default import is that object.
const Ajv04 = Ajv04Module as unknown as new (options: Record<string, unknown>) => Ajv;
const draft06MetaSchema = createRequire(import.meta.url)('ajv/dist/refs/json-schema-draft-06.json') as Record<string, unknown>;

/**
 * One validator per draft, configured like Helm's: `format` is asserted only for drafts before
 * 2019-09 (jsonschema v6 `objCompiler.assertFormat`: `draftVersion < 2019`; later drafts treat it
 * as an annotation, and Helm never calls `AssertFormat()`), unknown keywords and formats are ignored.
 */
function makeAjv(draft: SchemaDraft, validator: SchemaValidator): Ajv {
  // gojsonschema checks every format it knows whatever the draft (format_checkers.go).
  const assertFormats = validator === 'gojsonschema' || draft === 'draft-04' || draft === 'draft-06' || draft === 'draft-07';
  const options = { allErrors: true, strict: false, validateFormats: assertFormats, logger: false as const };
  let ajv: Ajv;
  if (draft === '2020-12') ajv = new Ajv2020(options) as unknown as Ajv;
  else if (draft === '2019-09') ajv = new Ajv2019(options) as unknown as Ajv;
  else if (draft === 'draft-04') ajv = new Ajv04(options);
  else {
    ajv = new Ajv(options);
    if (draft === 'draft-06') ajv.addMetaSchema(draft06MetaSchema);
  }
  if (assertFormats) addFormats(ajv);
  return ajv;
}

function describe(error: ErrorObject): string {
  if (error.keyword === 'required') return `missing required field "${(error.params as { missingProperty: string }).missingProperty}"`;
  if (error.keyword === 'additionalProperties')
    return `unknown field "${(error.params as { additionalProperty: string }).additionalProperty}"`;
  return error.message ?? error.keyword;
}

interface Collected {
  validator: SchemaValidator;
  errors: ValuesError[];
  checked: Array<{ chart: string; draft: string }>;
  unchecked: string[];
  unresolvedRefs: Array<{ chart: string; ref: string }>;
}

/** How many distinct documents one schema may refer to before opsgate stops standing them in. */
const MAX_EXTERNAL_DOCUMENTS = 64;

/**
 * Compiles a schema without ever fetching: each document it refers to by URL (Helm ≥ 3.18.5 loads
 * `http`, `https` and `file` references, v3.21.4 `pkg/chartutil/jsonschema.go:127-133`) is stood in
 * by the empty schema, which accepts anything. Reason: a chart is third-party content, and
 * following its URLs from the opsgate server would let a chart make the server read its own
 * files or reach internal addresses; Helm validates those parts itself when it installs.
 */
function compileOffline(ajv: Ajv, schema: AnySchema, unresolved: (ref: string) => void): ValidateFunction {
  const standIns = new Map<string, Record<string, unknown>>();
  for (let stood = 0; ; stood++) {
    try {
      return ajv.compile(schema);
    } catch (error) {
      const { missingSchema, missingRef } = error as { missingSchema?: unknown; missingRef?: unknown };
      if (typeof missingSchema !== 'string' || !missingSchema || stood >= MAX_EXTERNAL_DOCUMENTS) throw error;
      let standIn = standIns.get(missingSchema);
      if (!standIn) {
        standIn = {};
        standIns.set(missingSchema, standIn);
        unresolved(missingSchema);
      } else ajv.removeSchema(missingSchema);
      // A reference into the document (`…/_definitions.json#/definitions/X`) needs that path to exist.
      const pointer = typeof missingRef === 'string' ? missingRef.split('#', 2)[1] : undefined;
      if (pointer?.startsWith('/')) {
        let node = standIn;
        for (const token of pointer.slice(1).split('/')) {
          const key = decodeURIComponent(token).replaceAll('~1', '/').replaceAll('~0', '~');
          node[key] ??= {};
          node = node[key] as Record<string, unknown>;
        }
      } else if (pointer) throw error;
      ajv.addSchema(standIn, missingSchema);
    }
  }
}

function check(chart: LoadedChart, values: Values, label: string, prefix: string, out: Collected, tags: unknown = values.tags): void {
  if (chart.schema !== undefined) {
    let draft: SchemaDraft;
    let dialect: string;
    let hybrid: boolean;
    try {
      ({
        draft,
        label: dialect,
        hybrid,
      } = out.validator === 'gojsonschema'
        ? gojsonschemaDraft(chart.schema)
        : { draft: schemaDraft(chart.schema), label: '', hybrid: false });
      dialect ||= draft;
    } catch (error) {
      out.errors.push({ path: prefix || '/', message: (error as Error).message, chart: label, keyword: '$schema' });
      return;
    }
    let validate: ValidateFunction;
    try {
      validate = compileOffline(makeAjv(draft, out.validator), (hybrid ? withoutDialect(chart.schema) : chart.schema) as AnySchema, (ref) =>
        out.unresolvedRefs.push({ chart: label, ref }),
      );
    } catch (error) {
      // Helm compiles the schema against its metaschema first and fails the install when it is not one.
      out.errors.push({
        path: prefix || '/',
        message: `values.schema.json is not a valid ${draft} schema: ${(error as Error).message}`,
        chart: label,
        keyword: '$schema',
      });
      return;
    }
    out.checked.push({ chart: label, draft: dialect });
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
  for (const subchart of resolveSubcharts(chart, values, tags).enabled) {
    const section = values[subchart.metadata.name];
    if (section !== undefined && section !== null && (typeof section !== 'object' || Array.isArray(section))) {
      // Helm's ValidateAgainstSchema reports this instead of validating the subchart.
      out.errors.push({
        path: `${prefix}/${subchart.metadata.name}`,
        message: `invalid type for values: expected object (map), got ${Array.isArray(section) ? 'array' : typeof section}`,
        chart: `${label}/${subchart.metadata.name}`,
        keyword: 'type',
      });
      continue;
    }
    check(
      subchart,
      subchartValues(subchart, values),
      `${label}/${subchart.metadata.name}`,
      `${prefix}/${subchart.metadata.name}`,
      out,
      tags,
    );
  }
}

/**
 * Validates the merged values (chart defaults + user values, `null` deletes) against the chart's
 * and every subchart's `values.schema.json` that Helm keeps (conditions and tags applied), each with the draft it declares,
 * by the rules of the validator the Helm in use has.
 */
export function validateValues(chart: LoadedChart, userValues: Values, validator: SchemaValidator = 'jsonschema-v6'): ValuesValidation {
  const merged = mergeChartValues(chart, userValues);
  const out: Collected = { validator, errors: [], checked: [], unchecked: [], unresolvedRefs: [] };
  check(chart, merged, chart.metadata.name, '', out);
  return {
    valid: out.errors.length === 0,
    errors: out.errors,
    checked: out.checked,
    unchecked: out.unchecked,
    unresolvedRefs: out.unresolvedRefs,
    merged,
  };
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
  const schema = chart.schema;
  walk(
    schema && typeof schema === 'object' && !Array.isArray(schema) ? (schema as Record<string, unknown>) : undefined,
    chart.defaults,
    '',
  );
  for (const subchart of chart.subcharts) {
    for (const field of requiredFields(subchart))
      out.push({
        path: `${subchart.metadata.name}.${field.path}`,
        default: (chart.defaults[subchart.metadata.name] as Values | undefined)?.[field.path] ?? field.default,
      });
  }
  return out;
}
