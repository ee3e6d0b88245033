import { createHash } from 'node:crypto';
import type { HelmStatus } from '../backends/types.ts';
import type { LoadedChart } from '../charts/load-chart.ts';
import { HelmErrors } from '../errors.ts';

/**
 * Where a chart came from, as the plan names it: `REPO/NAME` of a `helm repo` repository,
 * `oci://REGISTRY/PATH/NAME`, or the url of opsgate's own repository folder with the chart's name.
 * With the archive's sha256 it is what an approver sees and what the approval binds.
 */
export interface ChartOrigin {
  readonly source: string;
  /** `sha256:HEX` of the chart archive. */
  readonly digest: string;
}

/**
 * Release labels (`helm install|upgrade --labels`, Helm ≥ 3.13) that record the origin of the chart
 * opsgate installed, because Helm itself records no source in a release. Label values are at most
 * 63 characters, so the source is stored as a hash and the digest as its first 56 hex digits
 * (224 bits).
 */
export const SOURCE_LABEL = 'opsgate.dev/chart-source';
export const DIGEST_LABEL = 'opsgate.dev/chart-digest';
const LABEL_HEX = 56;

function sourceHash(source: string): string {
  return createHash('sha256').update(source).digest('hex').slice(0, LABEL_HEX);
}

/** The labels that record `origin` on the release's new revision. */
export function originLabels(origin: ChartOrigin): Record<string, string> {
  return { [SOURCE_LABEL]: sourceHash(origin.source), [DIGEST_LABEL]: origin.digest.replace(/^sha256:/, '').slice(0, LABEL_HEX) };
}

/** What a release's labels say of its chart's origin; undefined when opsgate did not record one. */
export interface RecordedOrigin {
  readonly sourceHash: string;
  readonly digestPrefix: string;
}

export function recordedOrigin(labels: Readonly<Record<string, string>> | undefined): RecordedOrigin | undefined {
  const source = labels?.[SOURCE_LABEL];
  if (!source) return undefined;
  return { sourceHash: source, digestPrefix: labels?.[DIGEST_LABEL] ?? '' };
}

/** Whether `origin` is the source the release's chart was recorded from. */
export function isRecordedSource(recorded: RecordedOrigin, origin: ChartOrigin): boolean {
  return recorded.sourceHash === sourceHash(origin.source);
}

/** A chart that might replace the running one: its content and origin. */
export interface CandidateChart {
  readonly chart: LoadedChart;
  readonly origin: ChartOrigin;
}

/**
 * Whether an upgrade may take `candidate` for the running release (issue 30 N5: an in-house
 * `webapp 1.0.0` must not be swapped for a namesake from another repository).
 * - The release records its origin (opsgate installed it): another source is refused unless the
 *   request allows the switch, which then stands in the plan's risks.
 * - It records none (installed outside opsgate, or labels unreadable): the chart must at least be
 *   the same name, version and appVersion as the running one; the plan says the source is unproven.
 * Returns the plan's risk lines; throws when the chart is refused.
 */
export function checkReleaseOrigin(
  release: string,
  current: HelmStatus,
  recorded: RecordedOrigin | undefined,
  candidate: CandidateChart,
  allowSourceChange: boolean,
): string[] {
  const { metadata } = candidate.chart;
  const chart = `${metadata.name}-${metadata.version}`;
  if (recorded) {
    if (isRecordedSource(recorded, candidate.origin)) return [];
    if (!allowSourceChange)
      throw HelmErrors.HELM_CHART_SOURCE_CHANGED({
        release,
        recorded: `another source (label ${SOURCE_LABEL}=${recorded.sourceHash.slice(0, 12)}…)`,
        chart,
        source: candidate.origin.source,
      });
    return [
      `the chart source changes: release ${release} was installed from another source than ${candidate.origin.source} (allowSourceChange was set)`,
    ];
  }
  const running = current.chart.metadata;
  const sameChart = running.name === metadata.name && running.version === metadata.version;
  if (sameChart && (running.appVersion ?? '') !== (metadata.appVersion ?? '') && !allowSourceChange)
    throw HelmErrors.HELM_CHART_SOURCE_MISMATCH({
      release,
      chart,
      running: running.appVersion ?? '',
      found: metadata.appVersion ?? '',
      source: candidate.origin.source,
    });
  return [
    `release ${release} carries no record of its chart's source (installed outside opsgate, or by an older opsgate): ${candidate.origin.source} was ${sameChart ? 'matched by name, version and appVersion only' : 'named in the request'}; check it is where the release came from`,
  ];
}
