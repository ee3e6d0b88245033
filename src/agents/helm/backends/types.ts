/** Shapes shared by the backends, the MCP server and the tools. JSON shapes follow Helm 3's `-o json`. */

/** One row of `helm list -o json` (Helm prints `revision` as a string there). */
export interface HelmListItem {
  readonly name: string;
  readonly namespace: string;
  readonly revision: string;
  readonly updated: string;
  readonly status: HelmReleaseStatusName;
  readonly chart: string;
  readonly app_version: string;
}

export type HelmReleaseStatusName =
  | 'unknown'
  | 'deployed'
  | 'uninstalled'
  | 'superseded'
  | 'failed'
  | 'uninstalling'
  | 'pending-install'
  | 'pending-upgrade'
  | 'pending-rollback';

export interface HelmChartMetadata {
  readonly name: string;
  readonly version: string;
  readonly appVersion?: string;
  readonly description?: string;
  readonly kubeVersion?: string;
  readonly apiVersion?: string;
}

/** `helm status -o json` (the release object Helm marshals). */
export interface HelmStatus {
  readonly name: string;
  readonly namespace: string;
  readonly version: number;
  readonly info: {
    readonly first_deployed: string;
    readonly last_deployed: string;
    readonly deleted: string;
    readonly description: string;
    readonly status: HelmReleaseStatusName;
    readonly notes?: string;
  };
  readonly chart: { readonly metadata: HelmChartMetadata };
  /** The user-supplied values of this revision. */
  readonly config: Record<string, unknown>;
  readonly manifest: string;
  /** The revision's labels where the backend read them with the status (Helm 4's `get metadata`). */
  readonly labels?: Readonly<Record<string, string>>;
}

/** One row of `helm history -o json`. */
export interface HelmHistoryItem {
  readonly revision: number;
  readonly updated: string;
  readonly status: HelmReleaseStatusName;
  readonly chart: string;
  readonly app_version: string;
  readonly description: string;
}

/** One row of `helm search repo -o json`. */
export interface HelmSearchItem {
  readonly name: string;
  readonly version: string;
  readonly app_version: string;
  readonly description: string;
}

export interface PodHealth {
  readonly name: string;
  /** `Running`, `Pending`, `CrashLoopBackOff`, `ImagePullBackOff`, … (the reason when waiting). */
  readonly status: string;
  readonly ready: boolean;
  readonly restarts: number;
  /** The Job that owns the pod (`metadata.ownerReferences`): its failures are judged by the Job. */
  readonly job?: string;
}

export interface WorkloadHealth {
  readonly kind: string;
  readonly name: string;
  /** Ready by the rules of `helm --wait` (see `backends/readiness.ts`). */
  readonly ready: boolean;
  /** Why it is (not) ready, for people: `2 of 3 updated replicas ready`. */
  readonly reason: string;
  /** Set when the workload has failed rather than being on its way: `ProgressDeadlineExceeded`, `BackoffLimitExceeded`. */
  readonly condition?: string;
}

/** One resource of a release that Helm keeps apart from its manifest (a hook: `helm.sh/hook`). */
export interface ReleaseHook {
  /** `Kind/name`. */
  readonly key: string;
  /** The events it runs on: `pre-install`, `post-upgrade`, `test`, … */
  readonly events: readonly string[];
  /**
   * Its rendered text: shown in the plan and bound by the approval, so a changed migration Job
   * is a changed plan. Left out for a hook that renders differently every time (`volatile`).
   */
  readonly manifest?: string;
}

/** What a dry run renders: the manifest Helm would store (hooks excluded) and the hooks apart. */
export interface RenderedRelease {
  readonly manifest: string;
  readonly hooks: readonly ReleaseHook[];
  /**
   * Rendered by a client-side dry run because the server one cannot map custom resources whose
   * CRDs (the chart's `crds/`) are not installed yet (helm/helm#13159): no `lookup`, no live capabilities.
   */
  readonly clientSide?: true;
  /** The command of a client-side render (`helm template` on Helm 3, `helm install --dry-run=client` on Helm 4). */
  readonly renderedWith?: string;
}

/** What the API server said about the rendered objects in a server-side dry run with strict field validation. */
export interface ServerCheck {
  /** Objects the server refuses, with its words (`Deployment: unknown field "spec.replicaz"`): a plan with any is not approvable. */
  readonly invalid: readonly string[];
  /** What could not be checked, and why (a missing namespace or CRD, no rights): said in the plan's risks. */
  readonly unchecked: readonly string[];
}

export interface ClusterInfo {
  readonly context: string;
  readonly kubernetesVersion: string;
  /** Undefined when the identity may not list nodes (namespace-scoped rights; Helm never needs them). */
  readonly nodes?: ReadonlyArray<{ readonly name: string; readonly ready: boolean }>;
}

/** Which kind of backend answered: a real cluster through the CLIs, or the built-in simulation. */
export type BackendKind = 'helm-cli' | 'simulated-cluster';

export const SIMULATION_NOTE =
  "SIMULATION: this answer comes from opsgate's built-in simulated cluster (no real Kubernetes cluster was touched).";

/** What `helm test` reported: each test hook Pod's phase. */
/** A chart archive's provenance as `helm verify` checked it against the configured keyring. */
export interface ChartProvenance {
  /** The signing key's user id, `NAME <EMAIL>`. */
  readonly signedBy: string;
  readonly fingerprint: string;
  /** The archive's sha256 the signed `.prov` names. */
  readonly hash: string;
}

export interface ReleaseTestResult {
  readonly passed: boolean;
  readonly suites: ReadonlyArray<{ readonly name: string; readonly phase: string }>;
  /** Helm's error when the run failed. */
  readonly detail?: string;
}
