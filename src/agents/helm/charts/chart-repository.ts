import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';
import type { HelmSearchItem } from '../backends/types.ts';
import { HelmErrors } from '../errors.ts';
import { compareVersions, parseVersion, requireConstraints, type SemverVersion, satisfiesConstraints } from './kube-version.ts';
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
const DEMO_REPOSITORY_NAME = 'demo';

/** Helm's `--devel` without `--version`: any version, prereleases included. */
const DEVEL_CONSTRAINT = '>0.0.0-0';
const DOWNLOAD_TIMEOUT_MS = 30_000;
/** A wrong url must not fill memory; real chart archives are far below this. */
const MAX_ARCHIVE_BYTES = 20 * 1024 * 1024;

export interface RepositoryOptions {
  /** Timeout of one archive download over http(s). Default 30 s. */
  readonly downloadTimeoutMs?: number;
  /** Where downloaded archives are kept for the `helm` CLI (default: a fresh temporary folder). */
  readonly cacheDir?: string;
}

export interface VersionChoice {
  /** Include prereleases when no version is given (Helm's `--devel`). */
  readonly devel?: boolean;
}

interface IndexedVersion {
  readonly entry: ChartIndexEntry;
  readonly semver: SemverVersion;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;

/**
 * Why Helm would skip an index entry (`ChartVersion.Validate` = `Metadata.Validate` in
 * `pkg/repo/index.go` loadIndex), worded as Helm words it; undefined when it is valid.
 */
function invalidReason(raw: Record<string, unknown>): string | undefined {
  const name = text(raw.name) ?? '';
  const version = text(raw.version) ?? '';
  if (!name) return 'chart.metadata.name is required';
  if (name === '.' || name === '..') return `chart.metadata.name "${name}" is not allowed`;
  if (name.includes('/') || name.includes('\\')) return `chart.metadata.name "${name}" is invalid`;
  if (!version) return 'chart.metadata.version is required';
  if (!parseVersion(version)) return `chart.metadata.version "${version}" is invalid`;
  if (raw.type !== undefined && raw.type !== '' && raw.type !== 'application' && raw.type !== 'library')
    return 'chart.metadata.type must be application or library';
  return undefined;
}

function toEntry(raw: Record<string, unknown>): ChartIndexEntry {
  const urls = Array.isArray(raw.urls) ? raw.urls.filter((u): u is string => typeof u === 'string') : [];
  const optional = (key: string) => (text(raw[key]) === undefined ? {} : { [key]: text(raw[key]) });
  return {
    name: text(raw.name)!,
    version: text(raw.version)!,
    digest: text(raw.digest) ?? '',
    urls,
    ...optional('appVersion'),
    ...optional('description'),
    ...optional('kubeVersion'),
    ...optional('created'),
  } as ChartIndexEntry;
}

/**
 * A Helm chart repository: `index.yaml` plus `.tgz` archives. Index entries are read the way Helm's
 * `loadIndex` reads them (invalid entries are skipped with a warning, versions sorted with
 * Masterminds semver), urls are resolved the way `repo.ResolveReferenceURL` does (relative to the
 * repository, absolute ones as they are), and every archive is checked against the index digest
 * before it is used.
 */
export class ChartRepository {
  /** The folder of a local repository (relative archive urls resolve against it). */
  readonly directory: string;
  readonly name: string;
  /** The repository's url, with a trailing slash. */
  readonly url: string;
  /** Entries Helm would skip, one line each, as Helm logs them. */
  readonly warnings: readonly string[];
  readonly #entries: Map<string, IndexedVersion[]>;
  readonly #loaded = new Map<string, Promise<LoadedChart>>();
  /** Verified downloads on disk, for the `helm` CLI which needs a file. */
  readonly #downloaded = new Map<string, string>();
  readonly #options: RepositoryOptions;
  #cacheDir: Promise<string> | undefined;

  private constructor(
    directory: string,
    name: string,
    entries: Map<string, IndexedVersion[]>,
    warnings: string[],
    options: RepositoryOptions,
  ) {
    this.directory = directory;
    this.name = name;
    this.url = pathToFileURL(join(directory, '/')).href;
    this.#entries = entries;
    this.warnings = warnings;
    this.#options = options;
  }

  static async open(
    directory: string = DEMO_REPOSITORY_DIR,
    name: string = DEMO_REPOSITORY_NAME,
    options: RepositoryOptions = {},
  ): Promise<ChartRepository> {
    const source = join(directory, 'index.yaml');
    return ChartRepository.fromIndex(await readFile(source, 'utf8'), { directory, name, source, ...options });
  }

  /** Builds a repository from the text of an `index.yaml` (YAML or JSON, as Helm accepts both). */
  static fromIndex(
    indexText: string,
    options: RepositoryOptions & { readonly directory: string; readonly name?: string; readonly source?: string },
  ): ChartRepository {
    const source = options.source ?? join(options.directory, 'index.yaml');
    if (indexText.trim() === '') throw HelmErrors.HELM_REPOSITORY_INDEX_INVALID({ source, detail: 'index.yaml is empty' });
    let parsed: unknown;
    try {
      // Duplicate keys are refused as in Helm (TestLoadIndex_Duplicates): the yaml library errors on them.
      parsed = parseYaml(indexText);
    } catch (error) {
      throw HelmErrors.HELM_REPOSITORY_INDEX_INVALID({ source, detail: (error as Error).message.split('\n')[0] });
    }
    const index = asRecord(parsed);
    if (!index) throw HelmErrors.HELM_REPOSITORY_INDEX_INVALID({ source, detail: 'index.yaml is not a mapping' });
    if (!text(index.apiVersion)) throw HelmErrors.HELM_REPOSITORY_INDEX_INVALID({ source, detail: 'no API version specified' });
    const warnings: string[] = [];
    const entries = new Map<string, IndexedVersion[]>();
    for (const [chart, list] of Object.entries(asRecord(index.entries) ?? {})) {
      const versions: IndexedVersion[] = [];
      for (const item of Array.isArray(list) ? list : []) {
        const raw = asRecord(item);
        if (!raw) {
          warnings.push(`skipping loading invalid entry for chart "${chart}" from ${source}: empty entry`);
          continue;
        }
        const reason = invalidReason(raw);
        if (reason) {
          warnings.push(
            `skipping loading invalid entry for chart "${chart}" "${text(raw.version) ?? ''}" from ${source}: validation: ${reason}`,
          );
          continue;
        }
        const entry = toEntry(raw);
        versions.push({ entry, semver: parseVersion(entry.version)! });
      }
      entries.set(
        chart,
        versions.sort((a, b) => compareVersions(b.semver, a.semver)),
      );
    }
    return new ChartRepository(options.directory, options.name ?? DEMO_REPOSITORY_NAME, entries, warnings, options);
  }

  /**
   * A repository with no charts: what the agent has on a real cluster unless a folder is configured
   * (issue 30 N5: the demo charts must not stand in for in-house charts of the same name).
   */
  static none(name = 'opsgate'): ChartRepository {
    return ChartRepository.fromIndex('apiVersion: v1\nentries: {}\n', { directory: tmpdir(), name, source: '(none configured)' });
  }

  /** True when the repository holds no chart (none is configured). */
  get empty(): boolean {
    return this.#entries.size === 0;
  }

  /** Strips the repository prefix: `demo/webapp` → `webapp`. */
  chartName(reference: string): string {
    return reference.startsWith(`${this.name}/`) ? reference.slice(this.name.length + 1) : reference;
  }

  /**
   * Like `helm search repo KEYWORD`: the newest version per chart whose name or description
   * matches; stable versions only unless `devel` (Helm searches with `>0.0.0`, or `>0.0.0-0`).
   */
  search(keyword = '', choice: VersionChoice = {}): HelmSearchItem[] {
    const needle = this.chartName(keyword).toLowerCase();
    const constraint = requireConstraints(choice.devel ? DEVEL_CONSTRAINT : '>0.0.0', keyword);
    const results: HelmSearchItem[] = [];
    for (const [name, versions] of this.#entries) {
      const newest = versions.find((v) => satisfiesConstraints(v.semver, constraint))?.entry;
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

  /** Every valid version of a chart, prereleases included, newest first. */
  versions(reference: string): ChartIndexEntry[] {
    const versions = this.#entries.get(this.chartName(reference));
    if (!versions || versions.length === 0) throw HelmErrors.HELM_CHART_NOT_FOUND({ chart: reference, version: '' });
    return versions.map((v) => v.entry);
  }

  /**
   * The index entry Helm's `IndexFile.Get` picks: an exact version first, else the newest that
   * satisfies the version as a Masterminds constraint. Without a version, the newest stable one
   * (`*` excludes prereleases), or the newest of all with `devel`.
   */
  entry(reference: string, version?: string, choice: VersionChoice = {}): ChartIndexEntry {
    const name = this.chartName(reference);
    const versions = this.#entries.get(name);
    if (!versions || versions.length === 0) throw HelmErrors.HELM_CHART_NOT_FOUND({ chart: reference, version: '' });
    const wanted = version || (choice.devel ? DEVEL_CONSTRAINT : '*');
    const constraint = requireConstraints(wanted, name);
    const found =
      (version ? versions.find((v) => v.entry.version === version) : undefined) ??
      versions.find((v) => satisfiesConstraints(v.semver, constraint));
    if (!found) {
      if (!version) throw HelmErrors.HELM_NO_STABLE_VERSION({ chart: name, newest: versions[0]!.entry.version });
      throw HelmErrors.HELM_CHART_NOT_FOUND({ chart: reference, version: ` version ${version}` });
    }
    return found.entry;
  }

  /** Where the archive of an entry is: Helm's `ResolveReferenceURL` against the repository url. */
  archiveUrl(entry: ChartIndexEntry): URL {
    const ref = entry.urls[0];
    if (!ref) throw HelmErrors.HELM_CHART_INVALID({ chart: `${entry.name}-${entry.version}`, detail: 'the index entry has no urls' });
    try {
      return new URL(ref, this.url);
    } catch {
      throw HelmErrors.HELM_CHART_INVALID({ chart: `${entry.name}-${entry.version}`, detail: `url "${ref}" is not a valid url` });
    }
  }

  /**
   * A local file holding the archive, for the `helm` CLI. A `file:` archive is used in place; an
   * http(s) archive is the verified copy `load()` saved, so load the chart first.
   */
  archivePath(entry: ChartIndexEntry): string {
    const url = this.archiveUrl(entry);
    if (url.protocol === 'file:') return fileURLToPath(url);
    const saved = this.#downloaded.get(url.href);
    if (!saved)
      throw HelmErrors.HELM_CHART_DOWNLOAD_FAILED({
        chart: `${entry.name}-${entry.version}`,
        url: url.href,
        detail: 'the archive was not downloaded yet (load the chart before asking for its file)',
      });
    return saved;
  }

  async #fetchArchive(entry: ChartIndexEntry, url: URL): Promise<Buffer> {
    const chart = `${entry.name}-${entry.version}`;
    if (url.protocol === 'file:') return readFile(fileURLToPath(url));
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw HelmErrors.HELM_CHART_DOWNLOAD_FAILED({
        chart,
        url: url.href,
        detail: `the ${url.protocol} scheme is not supported in a repository index (file, http and https are); an OCI chart is named oci://REGISTRY/PATH/NAME in the chart reference instead (helm CLI backend)`,
      });
    const timeout = this.#options.downloadTimeoutMs ?? DOWNLOAD_TIMEOUT_MS;
    let response: Response;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(timeout), redirect: 'follow' });
    } catch (error) {
      const detail = (error as Error).name === 'TimeoutError' ? `no answer within ${timeout} ms` : (error as Error).message;
      throw HelmErrors.HELM_CHART_DOWNLOAD_FAILED({ chart, url: url.href, detail });
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw HelmErrors.HELM_CHART_DOWNLOAD_FAILED({ chart, url: url.href, detail: `HTTP ${response.status}` });
    }
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > MAX_ARCHIVE_BYTES) {
      await response.body?.cancel();
      throw HelmErrors.HELM_CHART_DOWNLOAD_FAILED({
        chart,
        url: url.href,
        detail: `the archive is larger than ${MAX_ARCHIVE_BYTES} bytes`,
      });
    }
    try {
      const body = Buffer.from(await response.arrayBuffer());
      if (body.length > MAX_ARCHIVE_BYTES)
        throw HelmErrors.HELM_CHART_DOWNLOAD_FAILED({
          chart,
          url: url.href,
          detail: `the archive is larger than ${MAX_ARCHIVE_BYTES} bytes`,
        });
      return body;
    } catch (error) {
      if ((error as { code?: string }).code === 'HELM_CHART_DOWNLOAD_FAILED') throw error;
      const detail = (error as Error).name === 'TimeoutError' ? `no complete answer within ${timeout} ms` : (error as Error).message;
      throw HelmErrors.HELM_CHART_DOWNLOAD_FAILED({ chart, url: url.href, detail });
    }
  }

  async #saveDownload(url: URL, archive: Buffer, digest: string): Promise<void> {
    // One folder per repository: a fresh one per download would leave a folder behind for each chart.
    this.#cacheDir ??= this.#options.cacheDir
      ? mkdir(this.#options.cacheDir, { recursive: true }).then(() => this.#options.cacheDir!)
      : mkdtemp(join(tmpdir(), 'opsgate-charts-'));
    const dir = await this.#cacheDir;
    const file = join(dir, `${digest}.tgz`);
    await writeFile(file, archive, { mode: 0o600 });
    this.#downloaded.set(url.href, file);
  }

  /** Loads (and caches) a chart version, verifying the archive's sha256 against the index. */
  load(reference: string, version?: string, choice: VersionChoice = {}): Promise<LoadedChart> {
    const entry = this.entry(reference, version, choice);
    const key = `${entry.name}@${entry.version}`;
    let loaded = this.#loaded.get(key);
    if (!loaded) {
      loaded = (async () => {
        const url = this.archiveUrl(entry);
        const archive = await this.#fetchArchive(entry, url);
        const digest = createHash('sha256').update(archive).digest('hex');
        // Helm writes the bare hex; some repositories (and Helm's own test indexes) prefix the algorithm.
        const expected = entry.digest.replace(/^sha256:/, '').toLowerCase();
        if (digest !== expected) {
          throw HelmErrors.HELM_CHART_INVALID({
            chart: key,
            detail: expected
              ? `archive digest ${digest} does not match index.yaml (${entry.digest})`
              : 'index.yaml gives no digest for it, so the archive cannot be verified',
          });
        }
        if (url.protocol !== 'file:') await this.#saveDownload(url, archive, digest);
        return loadChartArchive(archive);
      })();
      loaded.catch(() => this.#loaded.delete(key));
      this.#loaded.set(key, loaded);
    }
    return loaded;
  }
}
