import { randomBytes } from 'node:crypto';
import { parseAllDocuments } from 'yaml';
import { HelmErrors } from '../errors.ts';
import { subchartValues, type Values } from '../values/merge-values.ts';
import { resolveSubcharts } from './dependencies.ts';
import { formatGoValue, GO_NO_VALUE, goEmpty, goQuote, goStrval, goToJson, goToYaml, goTypeName } from './go-values.ts';
import { checkInstallable, isLibraryChart, type LoadedChart } from './load-chart.ts';

export interface RenderContext {
  readonly releaseName: string;
  readonly namespace: string;
  /** 1 for an install. */
  readonly revision: number;
}

/** One object of a rendered manifest. */
export interface ManifestResource {
  /**
   * The key plans compare by: `Kind/name`, with the API group for a kind outside Kubernetes' own
   * groups (`Certificate.cert-manager.io/web`) and the namespace when the object names one other
   * than the release's (`ConfigMap/monitoring/web`), so that objects Helm keeps apart stay apart.
   */
  readonly key: string;
  readonly kind: string;
  readonly name: string;
  readonly source: string;
  readonly text: string;
  readonly object: Record<string, unknown>;
}

/** A Go struct in the template scope (`.Chart`): asking for a field it lacks is an error, as in Go. */
const GO_STRUCTS = new WeakSet<object>();
type Scope = Record<string, unknown>;

function goStruct(fields: Scope): Scope {
  GO_STRUCTS.add(fields);
  return fields;
}

class TemplateError extends Error {}

type Token =
  | { readonly kind: 'field'; readonly path: readonly string[]; readonly text: string }
  | { readonly kind: 'literal'; readonly value: unknown; readonly text: string }
  | { readonly kind: 'ident'; readonly name: string; readonly text: string }
  | { readonly kind: 'open' | 'close' | 'pipe'; readonly text: string };

type Operand = { readonly token: Token } | { readonly pipeline: Pipeline };
type Command = readonly Operand[];
type Pipeline = readonly Command[];

const CONTROL_WORDS = new Set(['if', 'else', 'end', 'range', 'with', 'define', 'template', 'block', 'break', 'continue']);

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  const pattern =
    /\s+|(\()|(\))|(\|)|("(?:[^"\\]|\\.)*")|(`[^`]*`)|(-?\d+\.\d*(?:[eE][-+]?\d+)?|-?\d+[eE][-+]?\d+)|(-?\d+)|((?:\.[A-Za-z_][A-Za-z0-9_]*)+|\.)|([A-Za-z_][A-Za-z0-9_]*)|(\S)/y;
  while (pattern.lastIndex < expression.length) {
    const match = pattern.exec(expression);
    if (!match) break;
    const [text, open, close, pipe, quoted, raw, float, int, field, ident, other] = match;
    if (open) tokens.push({ kind: 'open', text });
    else if (close) tokens.push({ kind: 'close', text });
    else if (pipe) tokens.push({ kind: 'pipe', text });
    else if (quoted) {
      try {
        tokens.push({ kind: 'literal', value: JSON.parse(quoted) as string, text });
      } catch {
        throw new TemplateError(`unsupported escape in string ${quoted}`);
      }
    } else if (raw) tokens.push({ kind: 'literal', value: raw.slice(1, -1), text });
    else if (float) tokens.push({ kind: 'literal', value: Number(float), text });
    else if (int) tokens.push({ kind: 'literal', value: BigInt(int), text });
    else if (field) tokens.push({ kind: 'field', path: field.split('.').filter(Boolean), text });
    else if (ident === 'true' || ident === 'false') tokens.push({ kind: 'literal', value: ident === 'true', text });
    else if (ident === 'nil') tokens.push({ kind: 'literal', value: null, text });
    else if (ident) tokens.push({ kind: 'ident', name: ident, text });
    else if (other)
      throw new TemplateError(
        `unexpected "${other}" (variables, methods and hex or character literals are not supported by this renderer)`,
      );
  }
  return tokens;
}

function parsePipeline(tokens: Token[], position: { index: number }, nested: boolean): Pipeline {
  const commands: Command[] = [];
  let command: Operand[] = [];
  while (position.index < tokens.length) {
    const token = tokens[position.index++]!;
    if (token.kind === 'pipe') {
      if (command.length === 0) throw new TemplateError('missing command before "|"');
      commands.push(command);
      command = [];
    } else if (token.kind === 'close') {
      if (!nested) throw new TemplateError('unexpected ")"');
      break;
    } else if (token.kind === 'open') {
      command.push({ pipeline: parsePipeline(tokens, position, true) });
      if (tokens[position.index - 1]?.kind !== 'close') throw new TemplateError('unclosed "("');
    } else command.push({ token });
  }
  if (command.length === 0) throw new TemplateError('missing command');
  commands.push(command);
  return commands;
}

function isMap(value: unknown): value is Scope {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Field access with Go's rules under Helm's `missingkey=zero`: a missing map key is nil, a field of
 * nil is an error ("nil pointer evaluating"), and so is a field of a string or a slice.
 */
function lookupField(root: Scope, path: readonly string[], text: string): unknown {
  let current: unknown = root;
  for (const key of path) {
    if (current === null || current === undefined) throw new TemplateError(`at <${text}>: nil pointer evaluating interface {}.${key}`);
    if (!isMap(current)) throw new TemplateError(`at <${text}>: can't evaluate field ${key} in type ${goTypeName(current)}`);
    if (GO_STRUCTS.has(current) && !Object.hasOwn(current, key))
      throw new TemplateError(`at <${text}>: can't evaluate field ${key} in type *chart.Metadata`);
    current = Object.hasOwn(current, key) ? current[key] : undefined;
  }
  return current;
}

function wantString(name: string, value: unknown): string {
  if (typeof value !== 'string')
    throw new TemplateError(`error calling ${name}: wrong type for value; expected string; got ${goTypeName(value)}`);
  return value;
}

function wantInt(name: string, value: unknown): number {
  if (typeof value !== 'bigint')
    throw new TemplateError(`error calling ${name}: wrong type for value; expected int; got ${goTypeName(value)}`);
  return Number(value);
}

function arity(name: string, args: readonly unknown[], count: number): void {
  if (args.length !== count) throw new TemplateError(`wrong number of args for ${name}: want ${count} got ${args.length}`);
}

/** The only argument of a one-argument function. */
function only(name: string, args: readonly unknown[]): unknown {
  arity(name, args, 1);
  return args[0];
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Sprig's (and Helm's) functions with their Go signatures, so a wrong argument type fails as it does in Helm. */
const FUNCTIONS: Record<string, (args: readonly unknown[]) => unknown> = {
  quote: (args) =>
    args
      .filter((arg) => arg !== null && arg !== undefined)
      .map((arg) => goQuote(goStrval(arg)))
      .join(' '),
  squote: (args) =>
    args
      .filter((arg) => arg !== null && arg !== undefined)
      .map((arg) => `'${goStrval(arg)}'`)
      .join(' '),
  default: (args) => {
    if (args.length === 0) throw new TemplateError('wrong number of args for default: want at least 1 got 0');
    const [fallback, ...given] = args;
    return given.length === 0 || goEmpty(given[0]) ? fallback : given[0];
  },
  required: (args) => {
    arity('required', args, 2);
    const [message, value] = args;
    if (value === null || value === undefined || value === '')
      throw new TemplateError(`error calling required: ${wantString('required', message)}`);
    return value;
  },
  toYaml: (args) => goToYaml(only('toYaml', args)),
  toJson: (args) => goToJson(only('toJson', args)),
  indent: (args) => {
    arity('indent', args, 2);
    const pad = ' '.repeat(wantInt('indent', args[0]));
    return pad + wantString('indent', args[1]).replaceAll('\n', `\n${pad}`);
  },
  nindent: (args) => {
    arity('nindent', args, 2);
    const pad = ' '.repeat(wantInt('nindent', args[0]));
    return `\n${pad}${wantString('nindent', args[1]).replaceAll('\n', `\n${pad}`)}`;
  },
  // Charts use it for generated passwords, so two renders never agree (plans mark such objects volatile).
  randAlphaNum: (args) => {
    const length = wantInt('randAlphaNum', only('randAlphaNum', args));
    return Array.from(randomBytes(length), (byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');
  },
  // Sprig's clock functions (charts stamp ConfigMaps and annotations with them): `now | date LAYOUT`
  // with Go's reference-time layout, and `now | unixEpoch`. Times print in UTC.
  now: (args) => {
    arity('now', args, 0);
    return new Date();
  },
  date: (args) => {
    arity('date', args, 2);
    const [layout, time] = args;
    if (!(time instanceof Date)) throw new TemplateError('error calling date: the time must come from now');
    return formatGoLayout(wantString('date', layout), time);
  },
  unixEpoch: (args) => {
    const time = only('unixEpoch', args);
    if (!(time instanceof Date)) throw new TemplateError('error calling unixEpoch: the time must come from now');
    return String(Math.floor(time.getTime() / 1000));
  },
  upper: (args) => wantString('upper', only('upper', args)).toUpperCase(),
  lower: (args) => wantString('lower', only('lower', args)).toLowerCase(),
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Go's layout by its reference time (Mon Jan 2 15:04:05 MST 2006): the numeric fields and the month name. */
function formatGoLayout(layout: string, time: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const fields: Record<string, string> = {
    '2006': String(time.getUTCFullYear()),
    '01': two(time.getUTCMonth() + 1),
    Jan: MONTHS[time.getUTCMonth()]!,
    '02': two(time.getUTCDate()),
    '15': two(time.getUTCHours()),
    '04': two(time.getUTCMinutes()),
    '05': two(time.getUTCSeconds()),
    MST: 'UTC',
  };
  return layout.replace(/2006|01|Jan|02|15|04|05|MST/g, (token) => fields[token]!);
}

function evaluatePipeline(pipeline: Pipeline, scope: Scope): unknown {
  let piped: { value: unknown } | undefined;
  for (const command of pipeline) piped = { value: evaluateCommand(command, scope, piped) };
  return piped?.value;
}

function evaluateOperand(operand: Operand, scope: Scope): unknown {
  if ('pipeline' in operand) return evaluatePipeline(operand.pipeline, scope);
  const { token } = operand;
  if (token.kind === 'field') return lookupField(scope, token.path, token.text);
  if (token.kind === 'literal') return token.value;
  if (token.kind === 'ident') return callFunction(token.name, []);
  throw new TemplateError(`unexpected "${token.text}"`);
}

function callFunction(name: string, args: readonly unknown[]): unknown {
  if (CONTROL_WORDS.has(name)) throw new TemplateError(`"${name}" (control structures) is not supported by this renderer`);
  const fn = FUNCTIONS[name];
  if (!fn) throw new TemplateError(`function "${name}" is not supported by this renderer`);
  return fn(args);
}

function evaluateCommand(command: Command, scope: Scope, piped: { value: unknown } | undefined): unknown {
  const [head, ...rest] = command;
  if (head && !('pipeline' in head) && head.token.kind === 'ident') {
    const args = rest.map((operand) => evaluateOperand(operand, scope));
    return callFunction(head.token.name, piped ? [...args, piped.value] : args);
  }
  if (rest.length > 0 || piped) throw new TemplateError("can't give argument to non-function");
  return evaluateOperand(head!, scope);
}

const ACTION = /\{\{(-[ \t\r\n])?([\s\S]*?)([ \t\r\n]-)?\}\}/g;

/**
 * The part of Go's text/template that Helm charts use for values: field access (`.Values.a.b`,
 * `.Release.Name`, `.Chart.Version`, `.Template.Name`), pipelines, parentheses, string/number/bool
 * literals, comments, `{{-`/`-}}` whitespace trimming, and the functions above with Sprig
 * semantics. Results print as Go prints them (see go-values.ts), and `<no value>` is then deleted
 * as Helm's engine does. Control structures, variables and `include` fail loudly instead of
 * rendering something Helm would not.
 */
export function renderTemplate(template: string, scope: Record<string, unknown>, source: string): string {
  let out = '';
  let last = 0;
  let trimNext = false;
  for (const match of template.matchAll(ACTION)) {
    const [whole, leftTrim, body = '', rightTrim] = match;
    let text = template.slice(last, match.index);
    if (trimNext) text = text.replace(/^[ \t\r\n]+/, '');
    if (leftTrim) text = text.replace(/[ \t\r\n]+$/, '');
    out += text;
    last = match.index + whole.length;
    trimNext = Boolean(rightTrim);
    const expression = body.trim();
    if (expression.startsWith('/*') && expression.endsWith('*/')) continue;
    try {
      const tokens = tokenize(expression);
      if (tokens.length === 0) throw new TemplateError('missing value for command');
      out += formatGoValue(evaluatePipeline(parsePipeline(tokens, { index: 0 }, false), scope));
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      const line = template.slice(0, match.index).split('\n').length;
      throw HelmErrors.HELM_RENDER_FAILED({ template: `${source}:${line}`, detail: `{{ ${expression} }}: ${error.message}` });
    }
  }
  let tail = template.slice(last);
  if (trimNext) tail = tail.replace(/^[ \t\r\n]+/, '');
  // Helm's engine deletes every "<no value>" Go printed for a nil (engine.go, "the <no value> hack").
  return (out + tail).replaceAll(GO_NO_VALUE, '');
}

function renderInto(
  chart: LoadedChart,
  values: Values,
  context: RenderContext,
  prefix: string,
  out: string[],
  tags: unknown = values.tags,
): void {
  for (const template of chart.templates) {
    if (template.path.endsWith('.tpl') || template.path.endsWith('NOTES.txt')) continue;
    const source = `${prefix}${template.path}`;
    const scope = {
      Values: values,
      // Helm passes the release as a map, with Revision an int (not a float64 like values' numbers).
      Release: {
        Name: context.releaseName,
        Namespace: context.namespace,
        Revision: BigInt(context.revision),
        IsInstall: context.revision === 1,
        IsUpgrade: context.revision > 1,
        Service: 'Helm',
      },
      Chart: goStruct({
        Name: chart.metadata.name,
        Version: chart.metadata.version,
        AppVersion: chart.metadata.appVersion ?? '',
        Description: chart.metadata.description ?? '',
        KubeVersion: chart.metadata.kubeVersion ?? '',
      }),
      Template: { Name: source, BasePath: `${prefix}templates` },
    };
    const rendered = renderTemplate(template.content, scope, source).trim();
    if (rendered) out.push(`---\n# Source: ${source}\n${rendered}\n`);
  }
  for (const subchart of resolveSubcharts(chart, values, tags).enabled) {
    // A library chart lends its partials to the others and renders nothing itself (Helm's isTemplateValid).
    const renderable = isLibraryChart(subchart) ? { ...subchart, templates: [] } : subchart;
    renderInto(renderable, subchartValues(subchart, values), context, `${prefix}charts/${subchart.metadata.name}/`, out, tags);
  }
}

/** Renders a chart with merged values into one manifest, in Helm's `# Source:` layout. */
export function renderChart(chart: LoadedChart, mergedValues: Values, context: RenderContext): string {
  checkInstallable(chart);
  const out: string[] = [];
  renderInto(chart, mergedValues, context, `${chart.metadata.name}/`, out);
  return out.join('');
}

/** Kubernetes' own API groups (core, `apps`, `batch`, `*.k8s.io`): their kinds are unique without the group. */
function builtInGroup(group: string): boolean {
  return group === '' || !group.includes('.') || group.endsWith('.k8s.io');
}

function resourceKey(object: Record<string, unknown>, kind: string, name: string, releaseNamespace: string | undefined): string {
  const apiVersion = String(object.apiVersion ?? '');
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const namespace = (object.metadata as Record<string, unknown> | undefined)?.namespace;
  const own = typeof namespace === 'string' && namespace !== '' && namespace !== releaseNamespace ? `${namespace}/` : '';
  return `${kind}${builtInGroup(group) ? '' : `.${group}`}/${own}${name}`;
}

/** Splits a manifest into its objects; `releaseNamespace`: the namespace an object without its own lands in. */
export function parseManifest(manifest: string, releaseNamespace?: string): ManifestResource[] {
  const resources: ManifestResource[] = [];
  const chunks = manifest.split(/^---\s*$/m).filter((chunk) => chunk.trim());
  for (const chunk of chunks) {
    const source = chunk.match(/^# Source: (.+)$/m)?.[1] ?? '';
    // Helm accepts duplicate mapping keys (the last wins; neo4j, infinispan and others ship them).
    for (const document of parseAllDocuments(chunk, { uniqueKeys: false })) {
      if (document.errors.length > 0)
        throw HelmErrors.HELM_RENDER_FAILED({ template: source || '(manifest)', detail: document.errors[0]!.message });
      const object = document.toJS() as Record<string, unknown> | null;
      if (!object || typeof object !== 'object') continue;
      const kind = String(object.kind ?? '');
      const name = String((object.metadata as Record<string, unknown> | undefined)?.name ?? '');
      if (!kind || !name)
        throw HelmErrors.HELM_RENDER_FAILED({ template: source || '(manifest)', detail: 'an object has no kind or metadata.name' });
      resources.push({
        key: resourceKey(object, kind, name, releaseNamespace),
        kind,
        name,
        source,
        text: chunk.replace(/^\n+/, ''),
        object,
      });
    }
  }
  return resources;
}
