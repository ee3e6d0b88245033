import { randomBytes } from 'node:crypto';
import { parseAllDocuments } from 'yaml';
import { HelmErrors } from '../errors.ts';
import { subchartValues, type Values } from '../values/merge-values.ts';
import { resolveSubcharts } from './dependencies.ts';
import { checkInstallable, isLibraryChart, type LoadedChart } from './load-chart.ts';

export interface RenderContext {
  readonly releaseName: string;
  readonly namespace: string;
  /** 1 for an install. */
  readonly revision: number;
}

/** One object of a rendered manifest. */
export interface ManifestResource {
  /** `Kind/name`, the key plans compare by. */
  readonly key: string;
  readonly kind: string;
  readonly name: string;
  readonly source: string;
  readonly text: string;
  readonly object: Record<string, unknown>;
}

const ACTION = /\{\{-?\s*(.*?)\s*-?\}\}/g;

function lookup(root: Record<string, unknown>, path: string): unknown {
  let current: unknown = root;
  for (const key of path.split('.').filter(Boolean)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function literal(token: string): unknown {
  if (/^".*"$/.test(token)) return JSON.parse(token);
  if (/^-?\d+(\.\d+)?$/.test(token)) return Number(token);
  if (token === 'true' || token === 'false') return token === 'true';
  return undefined;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Sprig's `randAlphaNum`: charts use it for generated passwords, so two renders never agree. */
function randomAlphaNumeric(length: number): string {
  return Array.from(randomBytes(length), (byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');
}

function toText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * A deliberately small subset of Helm's template language, enough for the demo charts:
 * `{{ .Values.a.b }}`, `{{ .Release.Name }}`, `.Release.Namespace`, `.Release.Revision`,
 * `.Chart.Name|Version|AppVersion`, `randAlphaNum N`, and the pipes `quote`, `default X`, `toJson`, `upper`, `lower`.
 * Anything else fails loudly rather than rendering something wrong.
 */
export function renderTemplate(template: string, scope: Record<string, unknown>, source: string): string {
  return template.replace(ACTION, (_whole, expression: string) => {
    const [head = '', ...pipes] = expression.split('|').map((part) => part.trim());
    let value: unknown;
    const random = /^randAlphaNum\s+(\d+)$/.exec(head);
    if (head.startsWith('.')) value = lookup(scope, head.slice(1));
    else if (random) value = randomAlphaNumeric(Number(random[1]));
    else value = literal(head);
    if (!head.startsWith('.') && value === undefined)
      throw HelmErrors.HELM_RENDER_FAILED({ template: source, detail: `unsupported expression "{{ ${expression} }}"` });
    for (const pipe of pipes) {
      const [fn, ...args] = pipe.split(/\s+/);
      if (fn === 'quote') value = JSON.stringify(toText(value));
      else if (fn === 'toJson') value = JSON.stringify(value ?? null);
      else if (fn === 'upper') value = toText(value).toUpperCase();
      else if (fn === 'lower') value = toText(value).toLowerCase();
      else if (fn === 'default') {
        const fallback = literal(args.join(' '));
        if (value === undefined || value === null || value === '') value = fallback;
      } else throw HelmErrors.HELM_RENDER_FAILED({ template: source, detail: `unsupported function "${fn}"` });
    }
    return toText(value);
  });
}

function renderInto(
  chart: LoadedChart,
  values: Values,
  context: RenderContext,
  prefix: string,
  out: string[],
  tags: unknown = values.tags,
): void {
  const scope = {
    Values: values,
    Release: { Name: context.releaseName, Namespace: context.namespace, Revision: context.revision, Service: 'Helm' },
    Chart: { Name: chart.metadata.name, Version: chart.metadata.version, AppVersion: chart.metadata.appVersion ?? '' },
  };
  for (const template of chart.templates) {
    if (template.path.endsWith('.tpl') || template.path.endsWith('NOTES.txt')) continue;
    const source = `${prefix}${template.path}`;
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

/** Splits a manifest into its objects. */
export function parseManifest(manifest: string): ManifestResource[] {
  const resources: ManifestResource[] = [];
  const chunks = manifest.split(/^---\s*$/m).filter((chunk) => chunk.trim());
  for (const chunk of chunks) {
    const source = chunk.match(/^# Source: (.+)$/m)?.[1] ?? '';
    for (const document of parseAllDocuments(chunk)) {
      if (document.errors.length > 0)
        throw HelmErrors.HELM_RENDER_FAILED({ template: source || '(manifest)', detail: document.errors[0]!.message });
      const object = document.toJS() as Record<string, unknown> | null;
      if (!object || typeof object !== 'object') continue;
      const kind = String(object.kind ?? '');
      const name = String((object.metadata as Record<string, unknown> | undefined)?.name ?? '');
      if (!kind || !name)
        throw HelmErrors.HELM_RENDER_FAILED({ template: source || '(manifest)', detail: 'an object has no kind or metadata.name' });
      resources.push({ key: `${kind}/${name}`, kind, name, source, text: chunk.replace(/^\n+/, ''), object });
    }
  }
  return resources;
}
