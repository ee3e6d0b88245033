import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { HelmErrors } from '../errors.ts';
import type { Values } from './merge-values.ts';

/** A values file (`helm -f NAME`) given by its content: the approval binds the text, not a path on the server. */
export interface ValuesFile {
  readonly name: string;
  readonly content: string;
}

/** `helm --set-file KEY=NAME`: the value at the dotted KEY is the file's text. */
export interface SetFile {
  readonly key: string;
  readonly name: string;
  readonly content: string;
}

/** The user's value inputs in Helm's order: values files, then inline values, then `--set-file`. */
export interface ValueInputs {
  readonly valuesFiles?: readonly ValuesFile[];
  readonly values?: Values;
  readonly setFiles?: readonly SetFile[];
}

function isMap(value: unknown): value is Values {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Helm's `mergeMaps` (pkg/cli/values/options.go): maps merge deeply, anything else replaces, and a
 * `null` stays (the chart's coalescing later deletes that key). Neither input is changed.
 */
export function mergeUserValues(base: Values, next: Values): Values {
  const out: Values = { ...base };
  for (const [key, value] of Object.entries(next)) {
    const before = out[key];
    out[key] = isMap(value) && isMap(before) ? mergeUserValues(before, value) : structuredClone(value);
  }
  return out;
}

/**
 * A values file as Helm reads it: sigs.k8s.io/yaml, i.e. go-yaml v2 (YAML 1.1: `yes`/`on` are
 * booleans, `0755` is octal, `<<` merges) converted to JSON, so timestamps stay text. An empty
 * file is no values. Duplicate keys are refused, where Helm silently keeps the last: in an approved
 * input that is an ambiguity, and YAML 1.1 makes it easy (`on:` and `y:` are both the key `true`).
 */
export function parseValuesFile(file: ValuesFile): Values {
  let parsed: unknown;
  try {
    parsed = parseYaml(file.content, {
      version: '1.1',
      merge: true,
      customTags: (tags) => tags.filter((tag) => typeof tag === 'string' || tag.tag !== 'tag:yaml.org,2002:timestamp'),
    });
  } catch (error) {
    const detail = (error as Error).message.split('\n')[0] ?? '';
    throw HelmErrors.HELM_VALUES_FILE_INVALID({
      name: file.name,
      detail: /unique/.test(detail) ? `${detail} (in YAML 1.1, as Helm reads it, on/off/yes/no/y/n are booleans)` : detail,
    });
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isMap(parsed)) throw HelmErrors.HELM_VALUES_FILE_INVALID({ name: file.name, detail: 'it is not a mapping of keys to values' });
  return JSON.parse(JSON.stringify(parsed)) as Values;
}

/**
 * A `--set-file` key split as Helm's strvals parser splits it: dots separate, a backslash escapes
 * the next character (`a\.b` is one key). List indexes and commas are not taken (use a values file).
 */
export function setFileKeyPath(key: string): string[] {
  const path: string[] = [];
  let part = '';
  for (let index = 0; index < key.length; index++) {
    const char = key[index]!;
    if (char === '\\' && index + 1 < key.length) part += key[++index];
    else if (char === '.') {
      path.push(part);
      part = '';
    } else if (char === '[' || char === ',' || char === '=')
      throw HelmErrors.HELM_VALUES_FILE_INVALID({
        name: key,
        detail: `a setFiles key is dotted map keys only ("${char}" is not taken); put lists in a values file`,
      });
    else part += char;
  }
  path.push(part);
  if (path.some((segment) => segment === ''))
    throw HelmErrors.HELM_VALUES_FILE_INVALID({ name: key, detail: 'a setFiles key has an empty segment' });
  return path;
}

function setAt(values: Values, path: readonly string[], text: string): Values {
  const [head, ...rest] = path;
  if (head === undefined) return values;
  const inner = values[head];
  return { ...values, [head]: rest.length === 0 ? text : setAt(isMap(inner) ? inner : {}, rest, text) };
}

/** The user-supplied values of the inputs, merged the way `helm install|upgrade -f … --set-file …` merges them. */
export function userValuesOf(inputs: ValueInputs): Values {
  let values: Values = {};
  for (const file of inputs.valuesFiles ?? []) values = mergeUserValues(values, parseValuesFile(file));
  values = mergeUserValues(values, inputs.values ?? {});
  for (const file of inputs.setFiles ?? []) values = setAt(values, setFileKeyPath(file.key), file.content);
  return values;
}

/** What the plan shows of the value inputs: each file's name and sha256 (its content is in the approved arguments). */
export function valueInputDigests(inputs: ValueInputs): {
  valuesFiles?: Array<{ name: string; digest: string }>;
  setFiles?: Array<{ key: string; name: string; digest: string }>;
} {
  const digest = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
  return {
    ...(inputs.valuesFiles?.length
      ? { valuesFiles: inputs.valuesFiles.map((file) => ({ name: file.name, digest: digest(file.content) })) }
      : {}),
    ...(inputs.setFiles?.length
      ? { setFiles: inputs.setFiles.map((file) => ({ key: file.key, name: file.name, digest: digest(file.content) })) }
      : {}),
  };
}
