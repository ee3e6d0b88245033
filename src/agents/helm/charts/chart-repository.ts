import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import semver from 'semver';
import { parse as parseYaml } from 'yaml';
import { HelmErrors } from '../errors.ts';
import type { HelmSearchItem } from '../types.ts';
import { type LoadedChart, loadChartArchive } from './load-chart.ts';

/** One version of a chart as `index.yaml` lists it. */
export interface ChartIndexEntry {
  readonly name: string;
  readonly version: string;
  readonly appVersion?: string;
  readonly description?: string;
  readonly kubeVersion?: string;
  readonly digest: string;
  readonly created?: string;
  readonly urls: readonly string[];
}

/** The folder of the demo repository shipped with opsgate (`index.yaml` + archives). */
export const DEMO_REPOSITORY_DIR = new URL('./repo/', import.meta.url).pathname;
/** The name the demo repository has in `helm search` answers (`demo/webapp`). */
export const DEMO_REPOSITORY_NAME = 'demo';

/**
 * A Helm chart repository on disk: `index.yaml` plus `.tgz` archives. Archives are checked
 * against the index digest before they are used.
 */
export class ChartRepository {
  readonly directory: string;
  readonly name: string;
  readonly #entries: Map<string, ChartIndexEntry[]>;
  readonly #loaded = new Map<string, Promise<LoadedChart>>();

  private constructor(directory: string, name: string, entries: Map<string, ChartIndexEntry[]>) {
    this.directory = directory;
    this.name = name;
    this.#entries = entries;
  }

  static async open(directory: string = DEMO_REPOSITORY_DIR, name: string = DEMO_REPOSITORY_NAME): Promise<ChartRepository> {
    const text = await readFile(join(directory, 'index.yaml'), 'utf8');
    const index = parseYaml(text) as { entries?: Record<string, ChartIndexEntry[]> };
    const entries = new Map<string, ChartIndexEntry[]>();
    for (const [chart, versions] of Object.entries(index.entries ?? {})) {
      entries.set(
        chart,
        [...versions].sort((a, b) => semver.rcompare(a.version, b.version)),
      );
    }
    return new ChartRepository(directory, name, entries);
  }

  /** Strips the repository prefix: `demo/webapp` → `webapp`. */
  chartName(reference: string): string {
    return reference.startsWith(`${this.name}/`) ? reference.slice(this.name.length + 1) : reference;
  }

  /** Like `helm search repo KEYWORD`: newest version per chart whose name or description matches. */
  search(keyword = ''): HelmSearchItem[] {
    const needle = this.chartName(keyword).toLowerCase();
    const results: HelmSearchItem[] = [];
    for (const [name, versions] of this.#entries) {
      const newest = versions[0];
      if (!newest) continue;
      if (needle && !name.toLowerCase().includes(needle) && !(newest.description ?? '').toLowerCase().includes(needle)) continue;
      results.push({
        name: `${this.name}/${name}`,
        version: newest.version,
        app_version: newest.appVersion ?? '',
        description: newest.description ?? '',
      });
    }
    return results.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Every version of a chart, newest first. */
  versions(reference: string): ChartIndexEntry[] {
    const versions = this.#entries.get(this.chartName(reference));
    if (!versions) throw HelmErrors.HELM_CHART_NOT_FOUND({ chart: reference, version: '' });
    return [...versions];
  }

  /** The index entry for a version (default: newest). A semver range picks the newest match. */
  entry(reference: string, version?: string): ChartIndexEntry {
    const versions = this.versions(reference);
    const found = version
      ? (versions.find((v) => v.version === version) ?? versions.find((v) => semver.satisfies(v.version, version)))
      : versions[0];
    if (!found) throw HelmErrors.HELM_CHART_NOT_FOUND({ chart: reference, version: version ? ` version ${version}` : '' });
    return found;
  }

  /** Path of the archive of a version. */
  archivePath(entry: ChartIndexEntry): string {
    const url = entry.urls[0];
    if (!url) throw HelmErrors.HELM_CHART_INVALID({ chart: entry.name, detail: 'index entry has no url' });
    return join(this.directory, url);
  }

  /** Loads (and caches) a chart version, verifying the archive's sha256 against the index. */
  load(reference: string, version?: string): Promise<LoadedChart> {
    const entry = this.entry(reference, version);
    const key = `${entry.name}@${entry.version}`;
    let loaded = this.#loaded.get(key);
    if (!loaded) {
      loaded = (async () => {
        const archive = await readFile(this.archivePath(entry));
        const digest = createHash('sha256').update(archive).digest('hex');
        if (digest !== entry.digest) {
          throw HelmErrors.HELM_CHART_INVALID({
            chart: key,
            detail: `archive digest ${digest} does not match index.yaml (${entry.digest})`,
          });
        }
        return loadChartArchive(archive);
      })();
      loaded.catch(() => this.#loaded.delete(key));
      this.#loaded.set(key, loaded);
    }
    return loaded;
  }
}
