import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { OpsgateError } from '../../../core/errors/index.ts';
import type { HelmBackend } from '../backends/backend.ts';
import type { HelmStatus } from '../backends/types.ts';
import type { ChartRepository } from '../charts/chart-repository.ts';
import { type LoadedChart, loadChartArchive } from '../charts/load-chart.ts';
import { HelmErrors } from '../errors.ts';
import { type ChartOrigin, isRecordedSource, type RecordedOrigin } from './chart-origin.ts';

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
  /** Where the chart came from and its archive's digest, whatever the source: every plan names both. */
  readonly origin: ChartOrigin;
  /** Set when the source was found by searching the `helm repo` repositories for the release's chart. */
  readonly foundBySearch?: boolean;
}

/** `oci://…`, or `REPO/NAME` whose REPO is not opsgate's repository: Helm's own configuration resolves it. */
function isExternalReference(reference: string, repository: ChartRepository): boolean {
  if (reference.startsWith('oci://')) return true;
  const slash = reference.indexOf('/');
  return slash > 0 && reference.slice(0, slash) !== repository.name;
}

async function pulled(backend: HelmBackend, reference: string, version: string | undefined, repository: ChartRepository) {
  if (!backend.pullChart) throw HelmErrors.HELM_CHART_SOURCE_UNSUPPORTED({ chart: reference, repository: repository.name });
  const archive = await backend.pullChart(reference, version);
  const bytes = await readFile(archive);
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  return { chart: await loadChartArchive(bytes), archive, source: reference, digest, origin: { source: reference, digest } };
}

/** A chart of opsgate's own repository folder: its url and name, and the digest its index gives (checked when loaded). */
async function fromRepository(repository: ChartRepository, reference: string, version?: string): Promise<ResolvedChart> {
  if (repository.empty) throw HelmErrors.HELM_NO_CHART_REPOSITORY({ chart: reference });
  const chart = await repository.load(reference, version);
  const entry = repository.entry(chart.metadata.name, chart.metadata.version);
  return {
    chart,
    archive: repository.archivePath(entry),
    origin: { source: `${repository.url}${chart.metadata.name}`, digest: `sha256:${entry.digest}` },
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
  return fromRepository(repository, reference, version);
}

/**
 * The chart of an existing release when the upgrade names none. Helm stores no chart source in a
 * release, so the candidates are opsgate's repository and the `helm repo` repositories that hold
 * exactly this name and version. When opsgate recorded the release's source (release labels), only
 * that source qualifies; otherwise only charts with the running appVersion do (issue 30 N5: a
 * namesake from another repository is not the release's chart). One candidate is used (and named
 * in the plan), several or none ask for the source.
 */
export async function resolveReleaseChart(
  backend: HelmBackend,
  repository: ChartRepository,
  release: string,
  current: HelmStatus,
  recorded: RecordedOrigin | undefined,
): Promise<ResolvedChart> {
  const { name, version, appVersion = '' } = current.chart.metadata;
  const chart = `${name}-${version}`;
  const own = await fromRepository(repository, name, version).catch((error: unknown) => {
    if (OpsgateError.isInstance(error) && (error.code === 'HELM_CHART_NOT_FOUND' || error.code === 'HELM_NO_CHART_REPOSITORY'))
      return undefined;
    throw error;
  });
  const qualifies = (source: string, candidateAppVersion: string) =>
    recorded ? isRecordedSource(recorded, { source, digest: '' }) : candidateAppVersion === appVersion;
  const ownQualifies = own !== undefined && qualifies(own.origin.source, own.chart.metadata.appVersion ?? '');
  // The recorded source is one source: when opsgate's repository is it, no search can add a rival.
  if (ownQualifies && recorded) return own;
  const found = backend.findChart ? await backend.findChart(name, version) : [];
  const searched = found.filter((candidate) => qualifies(candidate.reference, candidate.appVersion));
  if (ownQualifies && searched.length === 0) return own;
  if (searched.length + (ownQualifies ? 1 : 0) > 1)
    throw HelmErrors.HELM_CHART_SOURCE_AMBIGUOUS({
      chart,
      release,
      candidates: [...(ownQualifies ? [own.origin.source] : []), ...searched.map((candidate) => candidate.reference)].join(', '),
    });
  if (searched.length === 1) return { ...(await pulled(backend, searched[0]!.reference, version, repository)), foundBySearch: true };
  const unqualified = own ?? found[0];
  if (unqualified && !recorded)
    throw HelmErrors.HELM_CHART_SOURCE_MISMATCH({
      release,
      chart,
      running: appVersion,
      found: own ? (own.chart.metadata.appVersion ?? '') : (found[0]?.appVersion ?? ''),
      source: own ? own.origin.source : (found[0]?.reference ?? ''),
    });
  throw HelmErrors.HELM_CHART_SOURCE_UNKNOWN({
    chart,
    release,
    searched: recorded
      ? ` at the source it was installed from, nor in any \`helm repo\` repository (an OCI chart is never found by search: name it)`
      : backend.findChart
        ? ' nor in any `helm repo` repository (an OCI chart is never found by search)'
        : '',
  });
}
