import { Parser, type ReadEntry } from 'tar';
import { parse as parseYaml } from 'yaml';
import { HelmErrors } from '../errors.ts';
import type { HelmChartMetadata } from '../types.ts';

/** A chart read from its archive: metadata, default values, schema, templates and subcharts. */
export interface LoadedChart {
  readonly metadata: HelmChartMetadata & { readonly dependencies?: ReadonlyArray<{ name: string; version?: string }> };
  /** The text of `values.yaml`. */
  readonly valuesYaml: string;
  readonly defaults: Record<string, unknown>;
  /** `values.schema.json` parsed, when the chart has one. */
  readonly schema?: Record<string, unknown>;
  readonly templates: ReadonlyArray<{ readonly path: string; readonly content: string }>;
  readonly subcharts: readonly LoadedChart[];
}

/** Reads every regular file of a gzipped tar into memory: path → text. */
export async function readArchive(archive: Uint8Array): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  await new Promise<void>((resolve, reject) => {
    const parser = new Parser({
      onReadEntry: (entry: ReadEntry) => {
        if (entry.type !== 'File') {
          entry.resume();
          return;
        }
        const chunks: Buffer[] = [];
        entry.on('data', (chunk: Buffer) => chunks.push(chunk));
        entry.on('end', () => files.set(entry.path, Buffer.concat(chunks).toString('utf8')));
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
export function chartFromFiles(files: ReadonlyMap<string, string>, root: string): LoadedChart {
  const chartYaml = files.get(`${root}Chart.yaml`);
  if (chartYaml === undefined) throw HelmErrors.HELM_CHART_INVALID({ chart: root, detail: 'Chart.yaml is missing' });
  const metadata = parseYaml(chartYaml) as LoadedChart['metadata'];
  if (!metadata?.name || !metadata.version)
    throw HelmErrors.HELM_CHART_INVALID({ chart: root, detail: 'Chart.yaml needs name and version' });
  const valuesYaml = files.get(`${root}values.yaml`) ?? '';
  const defaults = asObject(parseYaml(valuesYaml));
  const schemaText = files.get(`${root}values.schema.json`);
  let schema: Record<string, unknown> | undefined;
  if (schemaText !== undefined) {
    try {
      schema = asObject(JSON.parse(schemaText));
    } catch (error) {
      throw HelmErrors.HELM_CHART_INVALID({ chart: metadata.name, detail: `values.schema.json is not JSON (${(error as Error).message})` });
    }
  }
  const templates = [...files.entries()]
    .filter(([path]) => path.startsWith(`${root}templates/`) && /\.(ya?ml|tpl|txt)$/.test(path))
    .map(([path, content]) => ({ path: path.slice(root.length), content }))
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
