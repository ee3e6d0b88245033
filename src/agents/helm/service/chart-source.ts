import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { OpsgateError } from '../../../core/errors/index.ts';
import type { HelmBackend } from '../backends/backend.ts';
import type { HelmStatus } from '../backends/types.ts';
import type { ChartRepository } from '../charts/chart-repository.ts';
import { type LoadedChart, loadChartArchive } from '../charts/load-chart.ts';
import { HelmErrors } from '../errors.ts';

/** A chart ready to plan and install: its content and the archive `helm` is given. */
export interface ResolvedChart {
  readonly chart: LoadedChart;
  readonly archive: string;
  /**
   * Where it came from when not opsgate's repository: `REPO/NAME` of a `helm repo` repository or
   * `oci://…`. The plan carries it (and the archive's digest), so execution installs the same chart.
   */
  readonly source?: string;
  readonly digest?: string;
  /** Set when the source was found by searching the `helm repo` repositories for the release's chart. */
  readonly foundBySearch?: boolean;
}

/** `oci://…`, or `REPO/NAME` whose REPO is not opsgate's repository: Helm's own configuration resolves it. */
export function isExternalReference(reference: string, repository: ChartRepository): boolean {
  if (reference.startsWith('oci://')) return true;
  const slash = reference.indexOf('/');
  return slash > 0 && reference.slice(0, slash) !== repository.name;
}

async function pulled(backend: HelmBackend, reference: string, version: string | undefined, repository: ChartRepository) {
  if (!backend.pullChart) throw HelmErrors.HELM_CHART_SOURCE_UNSUPPORTED({ chart: reference, repository: repository.name });
  const archive = await backend.pullChart(reference, version);
  const bytes = await readFile(archive);
  return {
    chart: await loadChartArchive(bytes),
    archive,
    source: reference,
    digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
  };
}

/** The chart a reference names: opsgate's repository, a `helm repo` repository or an OCI registry. */
export async function resolveChart(
  backend: HelmBackend,
  repository: ChartRepository,
  reference: string,
  version?: string,
): Promise<ResolvedChart> {
  if (isExternalReference(reference, repository)) return pulled(backend, reference, version, repository);
  const chart = await repository.load(reference, version);
  return { chart, archive: repository.archivePath(repository.entry(chart.metadata.name, chart.metadata.version)) };
}

/**
 * The chart of an existing release when the upgrade names none. Helm stores no chart source in a
 * release, so: opsgate's repository first, then the `helm repo` repositories that hold exactly this
 * name and version; one match is used (and named in the plan), several or none ask for the source.
 */
export async function resolveReleaseChart(
  backend: HelmBackend,
  repository: ChartRepository,
  release: string,
  current: HelmStatus,
): Promise<ResolvedChart> {
  const { name, version } = current.chart.metadata;
  try {
    return await resolveChart(backend, repository, name, version);
  } catch (error) {
    if (!(OpsgateError.isInstance(error) && error.code === 'HELM_CHART_NOT_FOUND')) throw error;
  }
  const chart = `${name}-${version}`;
  if (!backend.findChart) throw HelmErrors.HELM_CHART_SOURCE_UNKNOWN({ chart, release, searched: '' });
  const candidates = await backend.findChart(name, version);
  if (candidates.length > 1) throw HelmErrors.HELM_CHART_SOURCE_AMBIGUOUS({ chart, release, candidates: candidates.join(', ') });
  if (candidates.length === 0)
    throw HelmErrors.HELM_CHART_SOURCE_UNKNOWN({
      chart,
      release,
      searched: ' nor in any `helm repo` repository (an OCI chart is never found by search)',
    });
  return { ...(await pulled(backend, candidates[0]!, version, repository)), foundBySearch: true };
}
