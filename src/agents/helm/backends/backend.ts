import type { LoadedChart } from '../charts/load-chart.ts';
import type { LiveRef } from '../service/live-drift.ts';
import type { Values } from '../values/merge-values.ts';
import type { SchemaValidator } from '../values/validate-values.ts';
import type {
  BackendKind,
  ChartProvenance,
  ClusterInfo,
  HelmHistoryItem,
  HelmListItem,
  HelmStatus,
  PodHealth,
  ReleaseHook,
  ReleaseTestResult,
  RenderedRelease,
  ServerCheck,
  WorkloadHealth,
} from './types.ts';

/** An install or upgrade, fully decided: exactly these user values are applied (no implicit reuse). */
export interface ReleaseRequest {
  readonly release: string;
  readonly namespace: string;
  readonly chart: LoadedChart;
  /** Path of the chart archive (the CLI backend hands it to `helm`). */
  readonly chartArchive: string;
  /** The complete user-supplied values of the new revision. */
  readonly values: Values;
  readonly createNamespace: boolean;
  /** Helm's `--timeout`, seconds. Default 300. */
  readonly timeoutSeconds?: number;
  /** How many hooks run for this command: Helm waits up to `--timeout` for each, apart from the rollout. */
  readonly hooks?: number;
  /** Labels recorded on the new revision (the chart's origin, see service/chart-origin.ts). */
  readonly labels?: Readonly<Record<string, string>>;
  /** Install only: reuse the name of a release whose last revision is uninstalled or failed (`--replace`). */
  readonly replace?: boolean;
  /** Helm undoes the change if it fails within `--timeout` (Helm 3 `--atomic`, Helm 4 `--rollback-on-failure`). */
  readonly rollbackOnFailure?: boolean;
}

/** How long a rollback or uninstall may wait: Helm's `--timeout`, and the hooks that each may take all of it. */
export interface ChangeOptions {
  readonly hooks?: number;
  readonly timeoutSeconds?: number;
}

export interface RenderRequest extends ReleaseRequest {
  readonly revision: number;
  readonly isUpgrade: boolean;
  /** The cluster's Kubernetes version, for a render that cannot ask the cluster (`helm template --kube-version`). */
  readonly kubeVersion?: string;
}

/**
 * One interface over a real cluster (the `helm`/`kubectl` CLIs) and the built-in simulated
 * cluster. Errors are `HelmErrors`: `HELM_RELEASE_NOT_FOUND` only when Helm said "release: not found".
 */
export interface HelmBackend {
  readonly kind: BackendKind;
  clusterInfo(): Promise<ClusterInfo>;
  listNamespaces(): Promise<string[]>;
  /** `all` includes pending-*, failed and uninstalling releases (`helm list -a`). */
  listReleases(query: { readonly namespace?: string; readonly all: boolean }): Promise<HelmListItem[]>;
  status(release: string, namespace: string): Promise<HelmStatus>;
  history(release: string, namespace: string): Promise<HelmHistoryItem[]>;
  /** The manifest of one stored revision. */
  revisionManifest(release: string, namespace: string, revision: number): Promise<string>;
  /** The hooks of one stored revision with their events (`helm get hooks --revision`). */
  revisionHooks(release: string, namespace: string, revision: number): Promise<ReleaseHook[]>;
  /** The user-supplied values of one stored revision (`helm get values --revision`). */
  revisionValues(release: string, namespace: string, revision: number): Promise<Record<string, unknown>>;
  /**
   * What Helm would store for the request, hooks apart (`helm install|upgrade --dry-run=server`:
   * the real next revision, the cluster's Capabilities and `lookup`), changing nothing.
   */
  render(request: RenderRequest): Promise<RenderedRelease>;
  install(request: ReleaseRequest): Promise<HelmStatus>;
  upgrade(request: ReleaseRequest): Promise<HelmStatus>;
  /** `hooks`: how many hooks the rollback runs (each may take Helm's whole `--timeout`); `timeoutSeconds`: Helm's `--timeout`, default 300. */
  rollback(release: string, namespace: string, revision: number, options?: ChangeOptions): Promise<void>;
  uninstall(release: string, namespace: string, options?: ChangeOptions): Promise<void>;
  /** Readiness of the workloads in `manifest` (the release's) by the rules of `helm --wait`, and their pods. */
  health(release: string, namespace: string, manifest: string): Promise<{ pods: PodHealth[]; workloads: WorkloadHealth[] }>;
  /**
   * Fetches a chart from a `helm repo` repository (`REPO/NAME`) or an OCI registry (`oci://…`)
   * with Helm's own configuration and credentials (`helm pull`): the archive's path. Only a
   * backend with a real `helm` has it; the simulator knows opsgate's repository only.
   */
  pullChart?(reference: string, version?: string): Promise<string>;
  /** `REPO/NAME` and appVersion of every `helm repo` repository's chart `name` at `version` (`helm search repo`). */
  findChart?(name: string, version: string): Promise<Array<{ readonly reference: string; readonly appVersion: string }>>;
  /**
   * The labels of a release's revision (`helm install|upgrade --labels`), where opsgate records the
   * chart's origin; undefined when they cannot be read (another storage driver, no right to read).
   */
  releaseLabels?(release: string, namespace: string, revision: number): Promise<Readonly<Record<string, string>> | undefined>;
  /**
   * The objects as the cluster holds them now (`kubectl get … --ignore-not-found -o json`); an
   * object that is gone is simply absent. Only a backend on a real cluster has it.
   */
  liveObjects?(refs: readonly LiveRef[]): Promise<Array<Record<string, unknown>>>;
  /**
   * `helm test`: runs the release's test hooks and reports each one's phase; a failed test is a
   * result, not an error (the change it follows has happened). Only a backend with a real `helm` has it.
   */
  runTests?(release: string, namespace: string, timeoutSeconds: number): Promise<ReleaseTestResult>;
  /**
   * With an admin-configured keyring: the archive's signed provenance (`helm verify`, the `.prov`
   * beside it), or `HELM_CHART_UNVERIFIED`. Undefined when no keyring is configured.
   */
  verifyChart?(archive: string): Promise<ChartProvenance | undefined>;
  /** The values-schema validator of the Helm in use (it changed in 3.18.5). Default: Helm 4's. */
  schemaValidator?(): Promise<SchemaValidator>;
  /** The rendered objects through the API server's strict field validation, changing nothing (a real cluster only). */
  checkObjects?(manifest: string, namespace: string): Promise<ServerCheck>;
  close?(): Promise<void>;
}
