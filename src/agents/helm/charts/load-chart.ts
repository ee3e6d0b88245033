import { Parser, type ReadEntry } from 'tar';
import { parse as parseYaml } from 'yaml';
import type { HelmChartMetadata } from '../backends/types.ts';
import { HelmErrors } from '../errors.ts';
import { parseVersion } from './kube-version.ts';

/** Any JSON document: what `values.schema.json` holds before it is checked against its metaschema. */
export type SchemaDocument = Record<string, unknown> | readonly unknown[] | string | number | boolean | null;

/** One entry of `dependencies:` in Chart.yaml (or `requirements.yaml` of an apiVersion v1 chart). */
export interface ChartDependency {
  readonly name: string;
  readonly version?: string;
  readonly repository?: string;
  /** Comma-separated values paths; the first that holds a boolean decides. */
  readonly condition?: string;
  readonly tags?: readonly string[];
  readonly alias?: string;
}

/** A chart file kept as text: a template or a CRD manifest. */
export interface ChartTextFile {
  readonly path: string;
  readonly content: string;
}

/** A chart read from its archive: metadata, default values, schema, templates, CRDs and subcharts. */
export interface LoadedChart {
  readonly metadata: HelmChartMetadata & {
    readonly dependencies?: readonly ChartDependency[];
    /** `application` (also when absent) or `library`. */
    readonly type?: string;
  };
  /** The text of `values.yaml`. */
  readonly valuesYaml: string;
  readonly defaults: Record<string, unknown>;
  /**
   * `values.schema.json` parsed, when the chart has one. Not narrowed to an object: a schema may be
   * a boolean, and one that is not a schema at all must still load (Helm fails it at validation).
   */
  readonly schema?: SchemaDocument;
  /** Everything under `templates/`, partials (`_*.tpl`) included: a library chart is only partials. */
  readonly templates: readonly ChartTextFile[];
  /**
   * `crds/*.yaml|yml|json` of this chart only (not its subcharts'). Helm applies them before the
   * templates, as they are, never templated, and never upgrades or deletes them.
   */
  readonly crds: readonly ChartTextFile[];
  /** Every subchart under `charts/`, unpacked from `charts/*.tgz` or read from `charts/<dir>/`. */
  readonly subcharts: readonly LoadedChart[];
}

/** A file of a chart: text, or bytes as read from an archive (a packed subchart must stay binary). */
export type ChartFileContent = string | Uint8Array;

/** Reads every regular file of a gzipped tar into memory: path → bytes. */
async function readArchive(archive: Uint8Array): Promise<Map<string, Buffer>> {
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

/** Helm's `hasManifestExtension`: which files of `crds/` are manifests. */
const CRD_FILE = /\.(ya?ml|json)$/i;

/**
 * The checks of Helm's `Metadata.Validate` that decide whether a chart loads at all, with Helm's
 * wording (`helm install` prints "validation: chart.metadata.type must be application or library").
 */
function validateMetadata(metadata: Record<string, unknown>, where: string): void {
  const invalid = (detail: string) =>
    HelmErrors.HELM_CHART_INVALID({ chart: String(metadata.name ?? where), detail: `validation: ${detail}` });
  if (typeof metadata.name !== 'string' || metadata.name === '') throw invalid('chart.metadata.name is required');
  const version = typeof metadata.version === 'number' ? String(metadata.version) : metadata.version;
  if (typeof version !== 'string' || version === '') throw invalid('chart.metadata.version is required');
  if (!parseVersion(version)) throw invalid(`chart.metadata.version "${version}" is invalid`);
  const type = metadata.type ?? '';
  if (type !== '' && type !== 'application' && type !== 'library') throw invalid('chart.metadata.type must be application or library');
}

/**
 * Builds a chart from the files under `root/` (e.g. `webapp/`), the way Helm's `loader.LoadFiles`
 * sorts them: subcharts are each first path part under `charts/` — a `.tgz` is unpacked, a folder
 * is read, names starting with `_` or `.` are skipped (so `charts/_ignore_me` is not a chart).
 */
export async function chartFromFiles(files: ReadonlyMap<string, ChartFileContent>, root: string): Promise<LoadedChart> {
  const text = (path: string): string | undefined => {
    const content = files.get(path);
    return content === undefined || typeof content === 'string' ? content : Buffer.from(content).toString('utf8');
  };
  const chartYaml = text(`${root}Chart.yaml`);
  if (chartYaml === undefined) throw HelmErrors.HELM_CHART_INVALID({ chart: root, detail: 'Chart.yaml is missing' });
  const rawMetadata = asObject(parseYaml(chartYaml));
  validateMetadata(rawMetadata, root);
  // An apiVersion v1 chart may keep its dependencies in requirements.yaml (Helm reads both).
  const requirements = text(`${root}requirements.yaml`);
  if (requirements !== undefined && !Array.isArray(rawMetadata.dependencies)) {
    const dependencies = asObject(parseYaml(requirements)).dependencies;
    if (Array.isArray(dependencies)) rawMetadata.dependencies = dependencies;
  }
  const metadata = { ...rawMetadata, version: String(rawMetadata.version) } as unknown as LoadedChart['metadata'];
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
  const underRoot = [...files.keys()].filter((path) => path.startsWith(root)).map((path) => path.slice(root.length));
  const textFiles = (folder: string, keep: (path: string) => boolean): ChartTextFile[] =>
    underRoot
      .filter((path) => path.startsWith(folder) && keep(path))
      .map((path) => ({ path, content: text(`${root}${path}`)! }))
      .sort((a, b) => a.path.localeCompare(b.path));
  const templates = textFiles('templates/', (path) => /\.(ya?ml|tpl|txt)$/.test(path));
  const crds = textFiles('crds/', (path) => CRD_FILE.test(path));

  const groups = new Map<string, string[]>();
  for (const path of underRoot) {
    if (!path.startsWith('charts/') || path.endsWith('.prov')) continue;
    const name = path.slice('charts/'.length).split('/')[0]!;
    groups.set(name, [...(groups.get(name) ?? []), path]);
  }
  const subcharts: LoadedChart[] = [];
  for (const name of [...groups.keys()].sort()) {
    if (name.startsWith('_') || name.startsWith('.')) continue;
    const unpacking = (error: unknown): never => {
      throw HelmErrors.HELM_CHART_INVALID({
        chart: metadata.name,
        detail: `error unpacking subchart ${name} in ${metadata.name}: ${(error as Error).message}`,
      });
    };
    if (name.endsWith('.tgz')) {
      const archive = files.get(`${root}charts/${name}`);
      if (archive === undefined) unpacking(new Error(`expected ${name}, got a folder`));
      const bytes = typeof archive === 'string' ? Buffer.from(archive, 'latin1') : archive!;
      subcharts.push(await loadChartArchive(bytes).catch(unpacking));
    } else {
      subcharts.push(await chartFromFiles(files, `${root}charts/${name}/`).catch(unpacking));
    }
  }
  return { metadata, valuesYaml, defaults, ...(schema === undefined ? {} : { schema }), templates, crds, subcharts };
}

/** Loads a packaged chart (`.tgz`), whose files sit under one top folder named after the chart. */
export async function loadChartArchive(archive: Uint8Array): Promise<LoadedChart> {
  const files = await readArchive(archive);
  const top = [...files.keys()].map((path) => path.split('/')[0]).find((first) => files.has(`${first}/Chart.yaml`));
  if (!top) throw HelmErrors.HELM_CHART_INVALID({ chart: '(archive)', detail: 'no top-level folder with a Chart.yaml' });
  return chartFromFiles(files, `${top}/`);
}

/** A library chart only lends templates to other charts (`helm install` refuses it with this wording). */
export function checkInstallable(chart: LoadedChart): void {
  const type = chart.metadata.type ?? '';
  if (type !== '' && type !== 'application') throw HelmErrors.HELM_CHART_NOT_INSTALLABLE({ chart: chart.metadata.name, type });
}

export function isLibraryChart(chart: LoadedChart): boolean {
  return chart.metadata.type === 'library';
}
