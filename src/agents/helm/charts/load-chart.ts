import { Parser, type ReadEntry } from 'tar';
import { parse as parseYaml } from 'yaml';
import { HelmErrors } from '../errors.ts';
import type { HelmChartMetadata } from '../types.ts';

/** Any JSON document: what `values.schema.json` holds before it is checked against its metaschema. */
export type SchemaDocument = Record<string, unknown> | readonly unknown[] | string | number | boolean | null;

/** A chart read from its archive: metadata, default values, schema, templates and subcharts. */
export interface LoadedChart {
  readonly metadata: HelmChartMetadata & { readonly dependencies?: ReadonlyArray<{ name: string; version?: string }> };
  /** The text of `values.yaml`. */
  readonly valuesYaml: string;
  readonly defaults: Record<string, unknown>;
  /**
   * `values.schema.json` parsed, when the chart has one. Not narrowed to an object: a schema may be
   * a boolean, and one that is not a schema at all must still load (Helm fails it at validation).
   */
  readonly schema?: SchemaDocument;
  readonly templates: ReadonlyArray<{ readonly path: string; readonly content: string }>;
  readonly subcharts: readonly LoadedChart[];
}

/** A file of a chart: text, or bytes as read from an archive (a packed subchart must stay binary). */
export type ChartFileContent = string | Uint8Array;

/** Reads every regular file of a gzipped tar into memory: path → bytes. */
export async function readArchive(archive: Uint8Array): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    const parser = new Parser({
      onReadEntry: (entry: ReadEntry) => {
        if (entry.type !== 'File') {
          entry.resume();
          return;
        }
        const chunks: Buffer[] = [];
        entry.on('data', (chunk: Buffer) => chunks.push(chunk));
        entry.on('end', () => files.set(entry.path, Buffer.concat(chunks)));
      },
    });
    parser.on('end', () => resolve());
    parser.on('error', reject);
    parser.end(Buffer.from(archive));
  });
  return files;
}

function asObject(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Builds a chart from the files under `root/` (e.g. `webapp/`), subcharts from `root/charts/<name>/`. */
export function chartFromFiles(files: ReadonlyMap<string, ChartFileContent>, root: string): LoadedChart {
  const text = (path: string): string | undefined => {
    const content = files.get(path);
    return content === undefined || typeof content === 'string' ? content : Buffer.from(content).toString('utf8');
  };
  const chartYaml = text(`${root}Chart.yaml`);
  if (chartYaml === undefined) throw HelmErrors.HELM_CHART_INVALID({ chart: root, detail: 'Chart.yaml is missing' });
  const metadata = parseYaml(chartYaml) as LoadedChart['metadata'];
  if (!metadata?.name || !metadata.version)
    throw HelmErrors.HELM_CHART_INVALID({ chart: root, detail: 'Chart.yaml needs name and version' });
  const valuesYaml = text(`${root}values.yaml`) ?? '';
  const defaults = asObject(parseYaml(valuesYaml));
  const schemaText = text(`${root}values.schema.json`);
  let schema: SchemaDocument | undefined;
  if (schemaText !== undefined) {
    try {
      schema = JSON.parse(schemaText) as SchemaDocument;
    } catch (error) {
      throw HelmErrors.HELM_CHART_INVALID({ chart: metadata.name, detail: `values.schema.json is not JSON (${(error as Error).message})` });
    }
  }
  const templates = [...files.keys()]
    .filter((path) => path.startsWith(`${root}templates/`) && /\.(ya?ml|tpl|txt)$/.test(path))
    .map((path) => ({ path: path.slice(root.length), content: text(path)! }))
    .sort((a, b) => a.path.localeCompare(b.path));
  const subchartRoots = new Set<string>();
  for (const path of files.keys()) {
    const match = path.slice(root.length).match(/^charts\/([^/]+)\/Chart\.yaml$/);
    if (match) subchartRoots.add(`${root}charts/${match[1]}/`);
  }
  const subcharts = [...subchartRoots].sort().map((subRoot) => chartFromFiles(files, subRoot));
  return schema === undefined
    ? { metadata, valuesYaml, defaults, templates, subcharts }
    : { metadata, valuesYaml, defaults, schema, templates, subcharts };
}

/** Loads a packaged chart (`.tgz`), whose files sit under one top folder named after the chart. */
export async function loadChartArchive(archive: Uint8Array): Promise<LoadedChart> {
  const files = await readArchive(archive);
  const top = [...files.keys()].map((path) => path.split('/')[0]).find((first) => files.has(`${first}/Chart.yaml`));
  if (!top) throw HelmErrors.HELM_CHART_INVALID({ chart: '(archive)', detail: 'no top-level folder with a Chart.yaml' });
  return chartFromFiles(files, `${top}/`);
}
