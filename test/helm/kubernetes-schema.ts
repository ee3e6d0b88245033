/**
 * Validates Kubernetes objects the way an API server of a pinned version would accept them at
 * `helm install`. Helm builds objects with validation in Strict mode (v3.21.4 pkg/kube/client.go
 * `Build`), but on servers that advertise `fieldValidation` (>= 1.27) cli-runtime leaves it to the
 * server, so a dry run validates nothing (measured with real Helm 3.17/4.1, issue 30 N6); this
 * check stands in for the server's own validation. The schema is the `/openapi/v2`
 * document a real kube-apiserver v1.28.0 served (origin and checksum in fixtures/SOURCES.md).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

export const PINNED_KUBERNETES_VERSION = '1.28.0';
// ajv-formats is CommonJS with a default export that TypeScript's NodeNext view does not see as callable.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => void;
const SPEC_FILE = new URL('./fixtures/kubernetes/openapi-v1.28.0.json.gz', import.meta.url);
/** sha256 of the uncompressed upstream file, so a swapped fixture cannot pass silently. */
export const SPEC_SHA256 = '33a10c72f6c0adfb5b45996b391be784c02fba7720a177c9a6de6fb3142249b8';

/**
 * The simulator reports v1.29.4. v1.29 served everything v1.28 did except these (Kubernetes
 * deprecation guide, "v1.29"), so they are refused here too; GA APIs only gain fields.
 */
const REMOVED_IN_1_29 = new Set(['flowcontrol.apiserver.k8s.io/v1beta2']);

/** Quantity's syntax (k8s.io/apimachinery resource.Quantity); the server also takes a JSON number. */
const QUANTITY = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';

type Schema = Record<string, unknown>;

interface OpenApiDocument {
  readonly info: { readonly version: string };
  readonly definitions: Record<string, Schema>;
}

export interface ObjectProblem {
  readonly path: string;
  readonly message: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Makes one OpenAPI v2 schema node strict the way the server's Strict field validation is: an
 * object with declared properties refuses others (unless it preserves unknown fields), int-or-string
 * takes both, list-map keys must be unique. Vendor extensions are read, then dropped for ajv.
 */
function strictSchema(node: Schema): Schema {
  if (node.format === 'int-or-string' || node['x-kubernetes-int-or-string'] === true) {
    return { anyOf: [{ type: 'string' }, { type: 'integer' }] };
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('x-') || key === 'description') continue;
    if (key === 'properties' && isRecord(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, strictSchema(child as Schema)]));
    } else if ((key === 'items' || key === 'additionalProperties') && isRecord(value)) {
      out[key] = strictSchema(value);
    } else if (key === 'enum' && Array.isArray(value)) {
      // The served enums repeat values that have aliases (externalTrafficPolicy); ajv refuses duplicates.
      out.enum = [...new Set(value)];
    } else out[key] = value;
  }
  if (out.properties && out.additionalProperties === undefined && node['x-kubernetes-preserve-unknown-fields'] !== true) {
    out.additionalProperties = false;
  }
  const listType = node['x-kubernetes-list-type'];
  if (listType === 'set') out.uniqueItems = true;
  if (listType === 'map' && Array.isArray(node['x-kubernetes-list-map-keys'])) out.k8sListMapKeys = node['x-kubernetes-list-map-keys'];
  return out;
}

export class KubernetesSchemas {
  readonly version: string;
  readonly #validators = new Map<string, ValidateFunction>();
  readonly #definitionByKind = new Map<string, string>();
  readonly #ajv: Ajv;

  constructor() {
    const raw = gunzipSync(readFileSync(SPEC_FILE));
    const digest = createHash('sha256').update(raw).digest('hex');
    if (digest !== SPEC_SHA256) throw new Error(`${SPEC_FILE.pathname} is not the recorded upstream file (sha256 ${digest})`);
    const document = JSON.parse(raw.toString('utf8')) as OpenApiDocument;
    this.version = document.info.version;
    const definitions: Record<string, Schema> = {};
    for (const [name, definition] of Object.entries(document.definitions)) {
      for (const gvk of (definition['x-kubernetes-group-version-kind'] as Array<{ group: string; version: string; kind: string }>) ?? []) {
        const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
        if (!REMOVED_IN_1_29.has(apiVersion)) this.#definitionByKind.set(`${apiVersion}/${gvk.kind}`, name);
      }
      definitions[name] =
        name === 'io.k8s.apimachinery.pkg.api.resource.Quantity'
          ? { anyOf: [{ type: 'string', pattern: QUANTITY }, { type: 'number' }] }
          : strictSchema(definition);
    }
    this.#ajv = new Ajv({ allErrors: true, strict: true });
    addFormats(this.#ajv);
    this.#ajv.addKeyword({
      keyword: 'k8sListMapKeys',
      type: 'array',
      schemaType: 'array',
      // A list-map (containers by name, ports by containerPort+protocol) cannot hold two items with one key.
      validate: (keys: string[], data: unknown[]) => {
        const seen = new Set(data.map((item) => JSON.stringify(keys.map((key) => (isRecord(item) ? item[key] : undefined)))));
        return seen.size === data.length;
      },
    });
    this.#ajv.addSchema({ $id: 'k8s', definitions }, 'k8s');
  }

  /** `apps/v1/Deployment`-style keys of every kind the pinned server serves. */
  kinds(): string[] {
    return [...this.#definitionByKind.keys()].sort();
  }

  /** Problems the pinned API server would report for one object; empty when it would accept it. */
  validate(object: Record<string, unknown>): ObjectProblem[] {
    const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
    const kind = typeof object.kind === 'string' ? object.kind : '';
    const definition = this.#definitionByKind.get(`${apiVersion}/${kind}`);
    if (!definition) {
      return [{ path: '', message: `no kind "${kind}" is registered for version "${apiVersion}" in Kubernetes v${this.version}` }];
    }
    let validator = this.#validators.get(definition);
    if (!validator) {
      validator = this.#ajv.compile({ $ref: `k8s#/definitions/${definition}` });
      this.#validators.set(definition, validator);
    }
    // The server decodes a JSON null as an absent field (Go's json.Unmarshal), so `resources:` with
    // nothing under it is accepted; a required field set to null is then missing, as there.
    const decoded = withoutNulls(object);
    const problems: ObjectProblem[] = validator(decoded) ? [] : (validator.errors ?? []).map(describe);
    return [...problems, ...serverChecks(decoded as Record<string, unknown>)];
  }
}

function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).flatMap(([key, child]) => (child === null ? [] : [[key, withoutNulls(child)]])));
}

function describe(error: ErrorObject): ObjectProblem {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    return { path: error.instancePath, message: `unknown field "${String(params.additionalProperty)}"` };
  }
  return { path: error.instancePath, message: error.message ?? error.keyword };
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const PORT_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

function checkLabels(labels: unknown, path: string, problems: ObjectProblem[]): Record<string, string> {
  if (!isRecord(labels)) return {};
  for (const [key, value] of Object.entries(labels)) {
    const slash = key.lastIndexOf('/');
    const prefix = slash >= 0 ? key.slice(0, slash) : '';
    const name = slash >= 0 ? key.slice(slash + 1) : key;
    if ((prefix && (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))) || name.length > 63 || !QUALIFIED_NAME.test(name)) {
      problems.push({ path: `${path}/${key}`, message: `invalid label key "${key}"` });
    }
    if (typeof value === 'string' && (value.length > 63 || !LABEL_VALUE.test(value))) {
      problems.push({ path: `${path}/${key}`, message: `invalid label value "${value}"` });
    }
  }
  return labels as Record<string, string>;
}

interface LabelSelector {
  readonly matchLabels?: Record<string, string>;
  readonly matchExpressions?: ReadonlyArray<{ key: string; operator: string; values?: string[] }>;
}

function selects(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (labels[key] !== value) return false;
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, key);
    if (operator === 'In' && !(has && values.includes(labels[key]!))) return false;
    if (operator === 'NotIn' && has && values.includes(labels[key]!)) return false;
    if (operator === 'Exists' && !has) return false;
    if (operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/**
 * What the API server validates beyond the OpenAPI schema (k8s.io/kubernetes pkg/apis/*
 * /validation), limited to the rules a chart's templates decide: names, labels, a workload's
 * selector against its pod template, container and port names, a Service's ports.
 */
function serverChecks(object: Record<string, unknown>): ObjectProblem[] {
  const problems: ObjectProblem[] = [];
  const kind = String(object.kind);
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  // A Service name becomes a DNS label (ValidateServiceName); other objects are DNS subdomains.
  const nameOk = kind === 'Service' ? DNS1035_LABEL.test(name) && name.length <= 63 : DNS1123_SUBDOMAIN.test(name) && name.length <= 253;
  if (!nameOk) problems.push({ path: '/metadata/name', message: `invalid ${kind} name "${name}"` });
  // A CronJob's Jobs append an 11-character suffix to its name (ValidateCronJob: at most 52).
  if (kind === 'CronJob' && name.length > 52) problems.push({ path: '/metadata/name', message: 'must be no more than 52 characters' });
  if (typeof metadata.namespace === 'string' && !DNS1123_LABEL.test(metadata.namespace)) {
    problems.push({ path: '/metadata/namespace', message: `invalid namespace "${metadata.namespace}"` });
  }
  checkLabels(metadata.labels, '/metadata/labels', problems);
  const spec = isRecord(object.spec) ? object.spec : {};
  if (['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet'].includes(kind) && isRecord(spec.template)) {
    const templateMeta = isRecord(spec.template.metadata) ? spec.template.metadata : {};
    const podLabels = checkLabels(templateMeta.labels, '/spec/template/metadata/labels', problems);
    const selector = (isRecord(spec.selector) ? spec.selector : {}) as LabelSelector;
    checkLabels(selector.matchLabels, '/spec/selector/matchLabels', problems);
    if (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0) {
      problems.push({ path: '/spec/selector', message: `empty selector is invalid for ${kind.toLowerCase()}` });
    } else if (!selects(selector, podLabels)) {
      problems.push({ path: '/spec/template/metadata/labels', message: '`selector` does not match template `labels`' });
    }
  }
  for (const [path, podSpec] of podSpecs(object)) {
    const names = new Set<unknown>();
    for (const [index, container] of (Array.isArray(podSpec.containers) ? podSpec.containers : []).entries()) {
      if (!isRecord(container)) continue;
      // validateContainers: names are unique within a pod (they key its status and logs).
      if (names.has(container.name))
        problems.push({ path: `${path}/containers/${index}/name`, message: `Duplicate value: "${String(container.name)}"` });
      names.add(container.name);
      if (typeof container.name === 'string' && !DNS1123_LABEL.test(container.name)) {
        problems.push({ path: `${path}/containers/${index}/name`, message: `invalid container name "${container.name}"` });
      }
      for (const [portIndex, port] of (Array.isArray(container.ports) ? container.ports : []).entries()) {
        if (
          isRecord(port) &&
          typeof port.name === 'string' &&
          (port.name.length > 15 || !PORT_NAME.test(port.name) || !/[a-z]/.test(port.name))
        ) {
          problems.push({ path: `${path}/containers/${index}/ports/${portIndex}/name`, message: `invalid port name "${port.name}"` });
        }
      }
    }
  }
  if (kind === 'Service') {
    const headless = spec.clusterIP === 'None';
    if (spec.type !== 'ExternalName' && !headless && !(Array.isArray(spec.ports) && spec.ports.length > 0)) {
      problems.push({ path: '/spec/ports', message: 'Required value' });
    }
  }
  return problems;
}

/** The pod specs an object carries, with their JSON paths (workloads, Jobs, CronJobs, Pods). */
function podSpecs(object: Record<string, unknown>): Array<[string, Record<string, unknown>]> {
  const spec = isRecord(object.spec) ? object.spec : {};
  if (object.kind === 'Pod') return [['/spec', spec]];
  const template = object.kind === 'CronJob' ? dig(spec, ['jobTemplate', 'spec', 'template', 'spec']) : dig(spec, ['template', 'spec']);
  const path = object.kind === 'CronJob' ? '/spec/jobTemplate/spec/template/spec' : '/spec/template/spec';
  return isRecord(template) ? [[path, template]] : [];
}

function dig(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) current = isRecord(current) ? current[key] : undefined;
  return current;
}
