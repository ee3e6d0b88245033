import { OpsgateError } from '../../../core/errors/index.ts';
import type { HelmBackend, RenderRequest } from '../backends/backend.ts';
import { Memo } from '../backends/memo.ts';
import { healthProblems } from '../backends/readiness.ts';
import type {
  ClusterInfo,
  HelmHistoryItem,
  HelmStatus,
  PodHealth,
  ReleaseHook,
  ReleaseTestResult,
  RenderedRelease,
  ServerCheck,
  WorkloadHealth,
} from '../backends/types.ts';
import type { ChartRepository } from '../charts/chart-repository.ts';
import { checkKubeVersion } from '../charts/kube-version.ts';
import type { LoadedChart } from '../charts/load-chart.ts';
import { parseManifest } from '../charts/render-chart.ts';
import { HelmErrors } from '../errors.ts';
import { mergeValues, type Values } from '../values/merge-values.ts';
import { requiredFields, type SchemaValidator, type ValuesValidation, validateValues } from '../values/validate-values.ts';
import { diffValues } from '../values/values-diff.ts';
import { type SetFile, userValuesOf, type ValuesFile, valueInputDigests } from '../values/values-inputs.ts';
import { type ChangeTimeout, chartSizeTimeout, DEFAULT_MAX_TIMEOUT_SECONDS, requestedTimeout } from './change-timeout.ts';
import { checkReleaseOrigin, originLabels, type RecordedOrigin, recordedOrigin } from './chart-origin.ts';
import { type ResolvedChart, resolveChart, resolveReleaseChart } from './chart-source.ts';
import { compareLive, type LiveDrift, liveRefs } from './live-drift.ts';
import { buildPlan, canonicalJson, type HelmOperation, type InstallationPlan, type PlanCluster } from './plan.ts';
import { SecretRedactor } from './redact-secrets.ts';
import { testHooks, testsRisk, testsSentence } from './release-tests.ts';
import { maskRenderTimes, RENDER_TIME } from './render-times.ts';

/** A plan with what only the service sees: the chart archive it was rendered from and the real (unhidden) values. */
interface Planned {
  readonly plan: InstallationPlan;
  readonly resolved?: ResolvedChart;
  readonly values?: Values;
}

export interface PlanRequest {
  readonly operation: HelmOperation;
  readonly release: string;
  readonly namespace: string;
  /**
   * Chart reference: `webapp` or `demo/webapp` (opsgate's repository), `REPO/NAME` (a `helm repo`
   * repository) or `oci://…`; upgrade defaults to the release's chart.
   */
  readonly chart?: string;
  readonly version?: string;
  /** New user values; on upgrade merged over the release's current user values unless `resetValues`. */
  readonly values?: Values;
  /** Values files by content, merged in order before `values` (`helm -f`). */
  readonly valuesFiles?: readonly ValuesFile[];
  /** `--set-file`: each key's value is the file's text, set after `values`. */
  readonly setFiles?: readonly SetFile[];
  /** Upgrade only: start from the chart defaults instead of the current user values. Default false. */
  readonly resetValues?: boolean;
  /** Rollback only: the revision to return to. Default: the one before the current. */
  readonly revision?: number;
  readonly createNamespace?: boolean;
  /**
   * Upgrade only: plan a chart from another source than the one the release was installed from
   * (refused otherwise, issue 30 N5); the plan's risks then say so. Default false.
   */
  readonly allowSourceChange?: boolean;
  /** Helm's `--timeout` in seconds, within the admin limit. Default: from the chart's size. */
  readonly timeoutSeconds?: number;
  /**
   * Install/upgrade only: if the change fails within its timeout, Helm undoes it (Helm 3 `--atomic`,
   * Helm 4 `--rollback-on-failure`): an install is uninstalled, an upgrade rolled back. Default false.
   */
  readonly rollbackOnFailure?: boolean;
}

export type Scenario =
  | {
      readonly scenario: 'INSTALL';
      readonly release: string;
      readonly namespace: string;
      /** The name belongs to a release uninstalled with its history kept: the install replaces it (`--replace`). */
      readonly replaces?: HelmStatus;
    }
  | { readonly scenario: 'UPGRADE'; readonly release: string; readonly namespace: string; readonly current: HelmStatus };

export interface MonitorReport {
  readonly healthy: boolean;
  readonly releaseStatus: string;
  readonly revision: number;
  readonly pods: readonly PodHealth[];
  readonly workloads: readonly WorkloadHealth[];
  /** Each failing pod or workload with its reason (CrashLoopBackOff, ImagePullBackOff, ProgressDeadlineExceeded, BackoffLimitExceeded). */
  readonly problems: ReadonlyArray<{ readonly object: string; readonly reason: string }>;
  readonly timedOut: boolean;
  readonly polls: number;
  readonly elapsedMs: number;
}

/**
 * Helm's history `chart` is NAME-VERSION; the version is the first `-MAJOR.MINOR.PATCH…` from the
 * left that reaches the end, so `x-1.0.0-rc.1` is x 1.0.0-rc.1 and `my-chart-2-1.0.0` is my-chart-2 1.0.0.
 */
export function splitChartString(chart: string): { name: string; version: string } {
  const match = /^(.*?)-(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?)$/.exec(chart);
  return match ? { name: match[1]!, version: match[2]! } : { name: chart, version: '' };
}

/** How many of the plan's hooks run for `event` (`pre-` and `post-`): each may take Helm's whole `--timeout`. */
function hooksRunningOn(plan: InstallationPlan, event: string): number {
  return (plan.hooks ?? []).filter((hook) => hook.events.includes(`pre-${event}`) || hook.events.includes(`post-${event}`)).length;
}

/** How long one read of a release's live objects serves its plans (they are shown, not bound). */
const LIVE_DRIFT_REUSE_MS = 60_000;

/** How long a server dry run, and the cluster's version, nodes and namespaces, are reused. */
const RENDER_REUSE_MS = 5 * 60_000;

/**
 * One release's life: a release uninstalled and installed again starts at revision 1 with a new
 * `first_deployed` (Helm carries it over on upgrade and rollback), so this and a revision number
 * name one stored revision, whose manifest, hooks and values never change.
 */
function releaseLife(current: HelmStatus): string {
  return `${current.namespace}/${current.name}@${current.info.first_deployed}`;
}

/** Helm operations over one backend and one chart repository: what the MCP server exposes. */
export class HelmService {
  readonly backend: HelmBackend;
  readonly repository: ChartRepository;
  readonly #sleep: (ms: number) => Promise<void>;
  /** Secret data and secret-looking values are hidden in everything this service returns (plans, status, validation). */
  readonly #redact: SecretRedactor;
  /** The registered cluster this service acts on; named in every plan, so the approval binds it. */
  readonly #cluster: PlanCluster | undefined;
  /** The longest `--timeout` a requester may ask for (an admin setting). */
  readonly #maxTimeoutSeconds: number;

  constructor(
    backend: HelmBackend,
    repository: ChartRepository,
    options: {
      sleep?: (ms: number) => Promise<void>;
      redactor?: SecretRedactor;
      cluster?: PlanCluster;
      maxTimeoutSeconds?: number;
    } = {},
  ) {
    this.backend = backend;
    this.repository = repository;
    this.#cluster = options.cluster;
    this.#maxTimeoutSeconds = options.maxTimeoutSeconds ?? DEFAULT_MAX_TIMEOUT_SECONDS;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#redact = options.redactor ?? new SecretRedactor();
  }

  /**
   * Server dry runs by their complete input (release, namespace, archive, values, next revision):
   * one approved change planned 6 times (planning, proposal, approval click, validation, recheck)
   * and each plan rendered twice, 12 dry runs in all, each a discovery and OpenAPI round on the
   * cluster. The next revision is part of the key, so any change to the release renders afresh;
   * an entry lives 5 minutes.
   */
  readonly #renders = new Map<string, { at: number; renders: Promise<[RenderedRelease, RenderedRelease]> }>();

  /**
   * What does not change between the two gates is read once (issue 30 N7: an approved change is
   * planned six times, and each plan read the cluster's version, nodes, context and namespaces: 4
   * processes, and on EKS/GKE/AKS a credential plugin run each). The release's own status is
   * read afresh by every plan, so a change to it is always seen; what hangs off one stored revision
   * (history at that status, manifest, hooks, values) is keyed by it. A change made here drops the
   * cluster facts (it may have created the namespace).
   */
  readonly #clusterFacts = new Memo<{ readonly info: ClusterInfo; readonly namespaces: string[] | undefined }>({
    maxEntries: 1,
    maxAgeMs: RENDER_REUSE_MS,
  });
  readonly #histories = new Memo<HelmHistoryItem[]>({ maxEntries: 64 });
  readonly #manifests = new Memo<string>({ maxEntries: 64 });
  readonly #hooks = new Memo<ReleaseHook[]>({ maxEntries: 64 });
  readonly #values = new Memo<Values>({ maxEntries: 64 });
  /** The labels opsgate set on a stored revision (its chart's origin): they never change. */
  readonly #labels = new Memo<Readonly<Record<string, string>> | undefined>({ maxEntries: 64 });
  /** The live state of a release's objects: informational, so one read serves the plans of one request chain. */
  readonly #liveStates = new Memo<LiveDrift>({ maxEntries: 16, maxAgeMs: LIVE_DRIFT_REUSE_MS });

  /** The API server's strict check of a render, by the render's inputs (as the renders are). */
  readonly #serverChecks = new Memo<ServerCheck>({ maxEntries: 16, maxAgeMs: RENDER_REUSE_MS });

  /**
   * Issue 30 N6: the objects Helm would apply (hooks too), strictly validated by the API server in a
   * dry run, so an unknown field (`spec.replicaz`) stops planning instead of the approved change.
   */
  async #checkObjects(request: RenderRequest, rendered: RenderedRelease): Promise<ServerCheck | undefined> {
    const check = this.backend.checkObjects?.bind(this.backend);
    if (!check) return undefined;
    const objects = [rendered.manifest, ...rendered.hooks.flatMap((hook) => (hook.manifest ? [`---\n${hook.manifest}\n`] : []))].join('\n');
    const result = await this.#serverChecks.get(canonicalJson({ ...request, chart: undefined }), () => check(objects, request.namespace));
    if (result.invalid.length > 0)
      throw HelmErrors.HELM_OBJECTS_INVALID({ count: result.invalid.length, detail: result.invalid.join('; '), objects: result.invalid });
    return result;
  }

  /** The history as of `current` (the status just read): a new revision or state is another key. */
  #history(current: HelmStatus): Promise<HelmHistoryItem[]> {
    const key = `${releaseLife(current)}#${current.version}/${current.info.status}/${current.info.last_deployed}`;
    return this.#histories.get(key, () => this.backend.history(current.name, current.namespace));
  }

  #revisionManifest(current: HelmStatus, revision: number): Promise<string> {
    return this.#manifests.get(`${releaseLife(current)}#${revision}`, () =>
      this.backend.revisionManifest(current.name, current.namespace, revision),
    );
  }

  #revisionHooks(current: HelmStatus, revision: number): Promise<ReleaseHook[]> {
    return this.#hooks.get(`${releaseLife(current)}#${revision}`, () =>
      this.backend.revisionHooks(current.name, current.namespace, revision),
    );
  }

  #revisionValues(current: HelmStatus, revision: number): Promise<Values> {
    return this.#values.get(`${releaseLife(current)}#${revision}`, () =>
      this.backend.revisionValues(current.name, current.namespace, revision),
    );
  }

  /** Version, nodes and namespaces (undefined when this identity may not list them: Helm never needs to). */
  #facts() {
    return this.#clusterFacts.get('cluster', async () => {
      const info = await this.backend.clusterInfo();
      const namespaces = await this.backend.listNamespaces().catch((error: unknown) => {
        if (OpsgateError.isInstance(error) && error.code === 'HELM_FORBIDDEN') return undefined;
        throw error;
      });
      return { info, namespaces };
    });
  }

  #renderTwice(request: RenderRequest): Promise<[RenderedRelease, RenderedRelease]> {
    const key = canonicalJson({ ...request, chart: undefined });
    const now = Date.now();
    for (const [stale, entry] of this.#renders) if (now - entry.at > RENDER_REUSE_MS) this.#renders.delete(stale);
    const cached = this.#renders.get(key);
    if (cached) return cached.renders;
    // Rendered twice: objects that differ between two renders of the same inputs are volatile, and
    // binding their content would make every execution fail as stale.
    const renders = (async () =>
      [await this.backend.render(request), await this.backend.render(request)] as [RenderedRelease, RenderedRelease])();
    this.#renders.set(key, { at: now, renders });
    renders.catch(() => this.#renders.delete(key));
    return renders;
  }

  async chartInfo(reference: string, version?: string) {
    const resolved = await resolveChart(this.backend, this.repository, reference, version);
    const { chart } = resolved;
    const entry = resolved.source ? undefined : this.repository.entry(reference, chart.metadata.version);
    return {
      repository: resolved.source ? resolved.source : this.repository.name,
      chart: { ...chart.metadata, digest: resolved.digest ?? entry?.digest ?? '', url: resolved.source ?? entry?.urls[0] ?? '' },
      valuesYaml: chart.valuesYaml,
      defaults: chart.defaults,
      hasSchema: chart.schema !== undefined,
      schema: chart.schema ?? null,
      requiredFields: requiredFields(chart),
      subcharts: chart.subcharts.map((sub) => ({
        name: sub.metadata.name,
        version: sub.metadata.version,
        hasSchema: sub.schema !== undefined,
      })),
    };
  }

  /**
   * Install or upgrade? "release: not found" means install, and so does a release uninstalled with
   * its history kept (Helm reinstalls it with `--replace`). A `pending-*` or `uninstalling` release
   * stops the workflow with the one remedy that works for that state; any other error
   * (unreachable, forbidden) is thrown — never an install by mistake.
   */
  async detectScenario(release: string, namespace: string): Promise<Scenario> {
    let current: HelmStatus;
    try {
      current = await this.backend.status(release, namespace);
    } catch (error) {
      if (OpsgateError.isInstance(error) && error.code === 'HELM_RELEASE_NOT_FOUND') return { scenario: 'INSTALL', release, namespace };
      throw error;
    }
    const state = current.info.status;
    if (state === 'uninstalled') return { scenario: 'INSTALL', release, namespace, replaces: current };
    if (state.startsWith('pending-') || state === 'uninstalling') {
      throw HelmErrors.HELM_RELEASE_PENDING({
        release,
        status: state,
        revision: current.version,
        remedy: await this.#pendingRemedy(release, namespace, current),
      });
    }
    return { scenario: 'UPGRADE', release, namespace, current };
  }

  /** What clears a stuck release: only uninstall clears `pending-install` (nothing earlier exists to roll back to). */
  async #pendingRemedy(release: string, namespace: string, current: HelmStatus): Promise<string> {
    if (current.info.status === 'uninstalling') return `the uninstall did not finish; run "uninstall ${release}" again.`;
    const history = await this.#history(current);
    const stable = [...history]
      .reverse()
      .find((item) => item.revision < current.version && (item.status === 'deployed' || item.status === 'superseded'));
    if (current.info.status === 'pending-install' || !stable)
      return `there is no earlier revision to roll back to; uninstall it first ("uninstall ${release}"), then install again.`;
    return `roll back to revision ${stable.revision} first ("rollback ${release} to ${stable.revision}").`;
  }

  async releaseStatus(release: string, namespace: string): Promise<{ status: HelmStatus; history: HelmHistoryItem[] }> {
    const status = await this.backend.status(release, namespace);
    const history = await this.#history(status);
    return { status: this.#redact.status(status), history };
  }

  /** The current revision's manifest, each Secret's values hidden (the `helm://releases/NS/REL/manifest` resource). */
  async releaseManifest(release: string, namespace: string): Promise<string> {
    return this.#redact.manifest((await this.backend.status(release, namespace)).manifest);
  }

  async #schemaValidator(): Promise<SchemaValidator> {
    return (await this.backend.schemaValidator?.()) ?? 'jsonschema-v6';
  }

  /** The chart named by the request; an upgrade naming none keeps the release's chart and version, wherever it came from. */
  async #chartFor(request: PlanRequest, current?: HelmStatus, recorded?: RecordedOrigin): Promise<ResolvedChart> {
    if (request.chart) return resolveChart(this.backend, this.repository, request.chart, request.version);
    if (!current) throw HelmErrors.HELM_CHART_NOT_FOUND({ chart: '(none given)', version: '' });
    if (request.version) return resolveChart(this.backend, this.repository, current.chart.metadata.name, request.version);
    return resolveReleaseChart(this.backend, this.repository, request.release, current, recorded);
  }

  /**
   * The origin opsgate recorded on the running revision (release labels), read with the status
   * where the backend could. The simulator has no such method: its one repository is the only source.
   */
  async #recordedOrigin(request: PlanRequest, current: HelmStatus): Promise<RecordedOrigin | undefined> {
    if (current.labels) return recordedOrigin(current.labels);
    const { releaseLabels } = this.backend;
    if (!releaseLabels) return undefined;
    return recordedOrigin(
      await this.#labels.get(`${releaseLife(current)}#${current.version}`, () =>
        releaseLabels.call(this.backend, request.release, request.namespace, current.version),
      ),
    );
  }

  /**
   * The complete user values of the new revision: reuse of the current values is explicit. Like
   * Helm, they are reused from the last *deployed* revision: a failed one's values never ran.
   */
  async effectiveValues(request: PlanRequest, current?: HelmStatus): Promise<Values> {
    const given = userValuesOf(request);
    if (request.operation !== 'upgrade' || !current || request.resetValues) return mergeValues({}, given);
    return mergeValues(await this.#deployedValues(request.release, request.namespace, current), given);
  }

  async #deployedValues(release: string, namespace: string, current: HelmStatus): Promise<Values> {
    if (current.info.status !== 'failed') return current.config;
    const history = await this.#history(current);
    const deployed = [...history].reverse().find((item) => item.status === 'deployed' && item.revision < current.version);
    // Helm takes the failed revision itself when nothing was ever deployed.
    return deployed ? this.#revisionValues(current, deployed.revision) : current.config;
  }

  async validate(request: PlanRequest): Promise<ValuesValidation & { readonly userValues: Values; readonly chart: string }> {
    const current = request.operation === 'upgrade' ? await this.backend.status(request.release, request.namespace) : undefined;
    const { chart } = await this.#chartFor(request, current, current ? await this.#recordedOrigin(request, current) : undefined);
    const userValues = await this.effectiveValues(request, current);
    const validation = validateValues(chart, userValues, await this.#schemaValidator());
    return {
      ...validation,
      merged: this.#redact.values(validation.merged),
      userValues: this.#redact.values(userValues),
      chart: `${chart.metadata.name}-${chart.metadata.version}`,
    };
  }

  async checkPrerequisites(request: { chart: string; version?: string; namespace: string; createNamespace?: boolean }) {
    const { chart } = await resolveChart(this.backend, this.repository, request.chart, request.version);
    return this.#prerequisites(chart, request);
  }

  async #prerequisites(chart: LoadedChart, request: { namespace: string; createNamespace?: boolean | undefined }) {
    // Listing namespaces is a cluster-wide right Helm never needs: a namespace-scoped identity plans without it.
    const { info, namespaces } = await this.#facts();
    const checks: Array<{ name: string; ok: boolean; detail: string }> = [];
    const kubeVersion = chart.metadata.kubeVersion;
    // Helm compares the server's gitVersion as it is (`v1.29.4-eks-…` stays a prerelease), with Masterminds semver.
    checks.push(
      kubeVersion
        ? { name: 'kubeVersion', ...checkKubeVersion(kubeVersion, info.kubernetesVersion) }
        : { name: 'kubeVersion', ok: true, detail: `chart has no kubeVersion constraint; cluster runs ${info.kubernetesVersion}` },
    );
    const ready = info.nodes?.filter((node) => node.ready).length ?? 0;
    checks.push(
      info.nodes
        ? { name: 'nodes', ok: ready > 0, detail: `${ready} of ${info.nodes.length} nodes ready` }
        : {
            name: 'nodes',
            ok: true,
            detail: 'nodes are not readable with this identity (namespace-scoped rights); Helm does not need them',
          },
    );
    // `--create-namespace` needs rights on namespaces at the cluster scope (the API server
    // authorizes before it looks for the object), so it is passed only when the namespace is known
    // missing and was asked for; a namespace-scoped identity never gets it (issue 30 N1).
    if (!namespaces) {
      checks.push({
        name: 'namespace',
        ok: true,
        detail: `namespaces are not listable with this identity; namespace ${request.namespace} must exist (it is not created: that needs rights on namespaces)`,
      });
      return { ok: checks.every((check) => check.ok), checks, cluster: info, createsNamespace: false };
    }
    const exists = namespaces.includes(request.namespace);
    checks.push({
      name: 'namespace',
      ok: exists || Boolean(request.createNamespace),
      detail: exists
        ? `namespace ${request.namespace} exists`
        : request.createNamespace
          ? `namespace ${request.namespace} will be created`
          : `namespace ${request.namespace} does not exist (set createNamespace)`,
    });
    return { ok: checks.every((check) => check.ok), checks, cluster: info, createsNamespace: !exists && Boolean(request.createNamespace) };
  }

  /** Computes the plan; invalid values or failed prerequisites throw before any plan exists. */
  async plan(request: PlanRequest): Promise<InstallationPlan> {
    return (await this.#plan(request)).plan;
  }

  /** Helm's `--timeout` for the change: the requester's within the admin limit, else from what Helm will wait for. */
  #timeout(request: PlanRequest, manifest: string, hooks: readonly ReleaseHook[]): ChangeTimeout {
    return request.timeoutSeconds === undefined
      ? chartSizeTimeout(manifest, hooks, request.namespace, this.#maxTimeoutSeconds)
      : requestedTimeout(request.timeoutSeconds, this.#maxTimeoutSeconds);
  }

  /** The plan, and for install and upgrade the chart archive it was rendered from (what execution installs). */
  async #plan(request: PlanRequest): Promise<Planned> {
    // A timeout out of bounds is refused before anything is read from the cluster.
    if (request.timeoutSeconds !== undefined) requestedTimeout(request.timeoutSeconds, this.#maxTimeoutSeconds);
    if (request.operation === 'rollback' || request.operation === 'uninstall') return { plan: await this.#planRemoval(request) };
    const scenario = await this.detectScenario(request.release, request.namespace);
    if (request.operation === 'install' && scenario.scenario === 'UPGRADE')
      throw HelmErrors.HELM_NAME_IN_USE({ release: request.release, namespace: request.namespace });
    if (request.operation === 'upgrade' && scenario.scenario === 'INSTALL')
      throw HelmErrors.HELM_RELEASE_NOT_FOUND({ release: request.release, namespace: request.namespace });
    const current = scenario.scenario === 'UPGRADE' ? scenario.current : undefined;
    const recorded = current ? await this.#recordedOrigin(request, current) : undefined;
    const resolved = await this.#chartFor(request, current, recorded);
    const { chart } = resolved;
    // A configured keyring: a chart without a valid signed .prov is refused before anything is approved.
    const provenance = await this.backend.verifyChart?.(resolved.archive);
    // Issue 30 N5: an upgrade takes its chart from the source the release came from, or says it cannot know.
    const originRisks =
      current && this.backend.releaseLabels
        ? checkReleaseOrigin(request.release, current, recorded, { chart, origin: resolved.origin }, request.allowSourceChange === true)
        : [];
    const userValues = await this.effectiveValues(request, current);
    const validation = validateValues(chart, userValues, await this.#schemaValidator());
    if (!validation.valid) {
      throw HelmErrors.HELM_VALUES_INVALID({
        count: validation.errors.length,
        detail: validation.errors.map((e) => `${e.path}: ${e.message}`).join('; '),
        errors: validation.errors,
      });
    }
    const prerequisites = await this.#prerequisites(chart, {
      namespace: request.namespace,
      createNamespace: request.operation === 'install' ? request.createNamespace : true,
    });
    if (!prerequisites.ok) {
      throw HelmErrors.HELM_PREREQUISITES_FAILED({
        detail: prerequisites.checks
          .filter((c) => !c.ok)
          .map((c) => c.detail)
          .join('; '),
        checks: prerequisites.checks,
      });
    }
    const replaces = scenario.scenario === 'INSTALL' ? scenario.replaces : undefined;
    const nextRevision = current ? current.version + 1 : replaces ? replaces.version + 1 : 1;
    const renderRequest = {
      release: request.release,
      namespace: request.namespace,
      chart,
      chartArchive: resolved.archive,
      values: userValues,
      createNamespace: request.operation === 'install' && prerequisites.createsNamespace,
      revision: nextRevision,
      isUpgrade: Boolean(current),
      kubeVersion: prerequisites.cluster.kubernetesVersion,
      ...(replaces ? { replace: true } : {}),
    };
    const renders = await this.#renderTwice(renderRequest);
    const serverCheck = await this.#checkObjects(renderRequest, renders[0]);
    // Stamps of the render time (`now | date …`) are shown as <render time> and not bound, so the
    // same plan an hour or a day later is still the same plan; the rest of each object stays bound.
    const renderedAt = Date.now();
    const [rendered, again] = renders.map((release) => withoutRenderTimes(release, renderedAt)) as [RenderedRelease, RenderedRelease];
    const stamped = [
      ...parseManifest(rendered.manifest, request.namespace)
        .filter((resource) => resource.text.includes(RENDER_TIME))
        .map((resource) => resource.key),
      ...rendered.hooks.filter((hook) => hook.manifest?.includes(RENDER_TIME)).map((hook) => hook.key),
    ];
    // A hook rendered differently twice (a generated password) binds its presence, not its text.
    const hookAgain = new Map(again.hooks.map((hook) => [hook.key, hook.manifest]));
    const volatileHooks = rendered.hooks.filter((hook) => hookAgain.get(hook.key) !== hook.manifest).map((hook) => hook.key);
    const hooks = rendered.hooks.map((hook) => (volatileHooks.includes(hook.key) ? { key: hook.key, events: hook.events } : hook));
    const volatile = [...volatileObjects(rendered.manifest, again.manifest, request.namespace), ...volatileHooks];
    const risks: string[] = [...originRisks];
    if (current && current.chart.metadata.version !== chart.metadata.version)
      risks.push(`chart version changes ${current.chart.metadata.version} → ${chart.metadata.version}`);
    if (current?.info.status === 'failed') risks.push(`the current revision ${current.version} is failed; its values are not reused`);
    if (rendered.clientSide)
      risks.push(
        `planned with a client-side render (${rendered.renderedWith ?? 'a client-side dry run'}): the chart's CRDs (crds/) are not on the cluster yet, so Helm's server dry run cannot map their custom resources (helm/helm#13159). Not checked: lookup (it returned nothing), the cluster's API versions (Helm's defaults stood in${rendered.renderedWith === 'helm template' ? `, with the chart's CRDs and Kubernetes ${prerequisites.cluster.kubernetesVersion}` : ''}), and the server's acceptance of the objects`,
      );
    if (serverCheck && serverCheck.unchecked.length > 0)
      risks.push(`the API server's strict check (a dry run) could not check ${serverCheck.unchecked.join('; ')}`);
    if (validation.unresolvedRefs.length > 0)
      risks.push(
        `values were checked without the schema documents ${[...new Set(validation.unresolvedRefs.map((r) => r.ref))].join(', ')} (referred to by $ref; opsgate never fetches a chart's URLs): ${this.backend.kind === 'helm-cli' ? "Helm fetched them and validated against them in this plan's server dry run" : 'the simulator does not validate against them; Helm will, when it installs on a real cluster'}`,
      );
    if (resolved.foundBySearch)
      risks.push(
        `the release's chart ${chart.metadata.name}-${chart.metadata.version} was found in the \`helm repo\` repository ${resolved.source} by ${recorded ? 'the source opsgate recorded on the release' : 'name, version and appVersion'} (Helm records no source in a release)`,
      );
    if (stamped.length > 0)
      risks.push(
        `${stamped.join(', ')} carr${stamped.length === 1 ? 'ies' : 'y'} the time of rendering, shown as ${RENDER_TIME}: the approval binds everything else in ${stamped.length === 1 ? 'it' : 'them'}`,
      );
    const testsLine = testsRisk(testHooks(rendered.hooks), this.backend.runTests !== undefined);
    if (testsLine) risks.push(testsLine);
    if (replaces) risks.push(`replaces release ${request.release}, uninstalled at revision ${replaces.version} with its history kept`);
    const timeout = this.#timeout(request, rendered.manifest, rendered.hooks);
    if (request.rollbackOnFailure)
      risks.push(
        `if the ${request.operation} fails or is not ready within ${timeout.seconds}s, Helm undoes it: ${current ? `rolls back to revision ${current.version}` : 'uninstalls the release'}`,
      );
    const plan = buildPlan({
      ...(this.#cluster ? { cluster: this.#cluster } : {}),
      operation: request.operation,
      release: request.release,
      namespace: request.namespace,
      chart: {
        name: chart.metadata.name,
        version: chart.metadata.version,
        appVersion: chart.metadata.appVersion ?? '',
        source: resolved.origin.source,
        digest: resolved.origin.digest,
        ...(provenance ? { provenance: { signedBy: provenance.signedBy, fingerprint: provenance.fingerprint } } : {}),
      },
      ...(current
        ? {
            currentRevision: current.version,
            valueChanges: diffValues(this.#redact.values(current.config), this.#redact.values(userValues)),
          }
        : {}),
      nextRevision,
      currentManifest: this.#redact.manifest(current?.manifest ?? ''),
      proposedManifest: this.#redact.manifest(rendered.manifest),
      hooks: this.#redact.hooks(hooks),
      volatile,
      ...(replaces ? { replace: true } : {}),
      values: this.#redact.values(userValues),
      valueInputs: valueInputDigests(request),
      createNamespace: request.operation === 'install' && prerequisites.createsNamespace,
      risks,
      timeout,
      ...(request.rollbackOnFailure ? { rollbackOnFailure: true } : {}),
    });
    const liveDrift = current && this.backend.liveObjects ? await this.#liveDrift(current, request.namespace) : undefined;
    return { plan: liveDrift ? { ...plan, liveDrift } : plan, resolved, values: userValues };
  }

  /** The running release's objects against the cluster (not bound: see service/live-drift.ts). */
  #liveDrift(current: HelmStatus, namespace: string): Promise<LiveDrift> {
    return this.#liveStates.get(`${releaseLife(current)}#${current.version}`, async () => {
      const resources = parseManifest(current.manifest, namespace);
      try {
        return compareLive(resources, await this.backend.liveObjects!(liveRefs(resources, namespace)), namespace);
      } catch (error) {
        // Informational: a read this identity may not make (a cluster-scoped kind) must not block the plan.
        if (!OpsgateError.isInstance(error)) throw error;
        return { checked: 0, drifted: [], missing: [], skipped: [], unread: error.message };
      }
    });
  }

  async #planRemoval(request: PlanRequest): Promise<InstallationPlan> {
    const current = await this.backend.status(request.release, request.namespace);
    const history = await this.#history(current);
    const chart = {
      name: current.chart.metadata.name,
      version: current.chart.metadata.version,
      appVersion: current.chart.metadata.appVersion ?? '',
    };
    if (request.operation === 'uninstall') {
      const hooks = await this.#revisionHooks(current, current.version);
      return buildPlan({
        ...(this.#cluster ? { cluster: this.#cluster } : {}),
        operation: 'uninstall',
        release: request.release,
        namespace: request.namespace,
        chart,
        currentRevision: current.version,
        currentManifest: this.#redact.manifest(current.manifest),
        proposedManifest: '',
        hooks: this.#redact.hooks(hooks),
        values: this.#redact.values(current.config),
        timeout: this.#timeout(request, current.manifest, hooks),
      });
    }
    const target = request.revision ?? [...history].reverse().find((item) => item.revision < current.version)?.revision;
    if (target === undefined || !history.some((item) => item.revision === target) || target === current.version) {
      throw HelmErrors.HELM_REVISION_NOT_FOUND({ release: request.release, revision: target ?? '(previous)' });
    }
    const targetItem = history.find((item) => item.revision === target)!;
    const targetManifest = await this.#revisionManifest(current, target);
    // Helm runs the target revision's rollback hooks.
    const targetHooks = await this.#revisionHooks(current, target);
    return buildPlan({
      ...(this.#cluster ? { cluster: this.#cluster } : {}),
      operation: 'rollback',
      release: request.release,
      namespace: request.namespace,
      chart: {
        ...splitChartString(targetItem.chart),
        appVersion: targetItem.app_version,
      },
      currentRevision: current.version,
      nextRevision: current.version + 1,
      rollbackRevision: target,
      currentManifest: this.#redact.manifest(current.manifest),
      proposedManifest: this.#redact.manifest(targetManifest),
      hooks: this.#redact.hooks(targetHooks),
      risks: current.info.status.startsWith('pending-') ? [`release is ${current.info.status}; the rollback clears it`] : [],
      timeout: this.#timeout(request, targetManifest, targetHooks),
    });
  }

  /** Recomputes the plan right before running and refuses when its hash is not the approved one. */
  async #recheck(request: PlanRequest, planHash: string): Promise<Planned> {
    const checked = await this.#plan(request);
    if (checked.plan.planHash !== planHash)
      throw HelmErrors.HELM_PLAN_STALE({ expected: planHash, actual: checked.plan.planHash, planHash: checked.plan.planHash });
    return checked;
  }

  async execute(
    request: PlanRequest,
    planHash: string,
  ): Promise<{ plan: InstallationPlan; status?: HelmStatus; history?: HelmHistoryItem[]; tests?: ReleaseTestResult; confirmed: string }> {
    const { plan, resolved, values } = await this.#recheck(request, planHash);
    this.#clusterFacts.clear();
    if ((plan.operation === 'install' || plan.operation === 'upgrade') && resolved) {
      const releaseRequest = {
        release: plan.release,
        namespace: plan.namespace,
        chart: resolved.chart,
        chartArchive: resolved.archive,
        // The plan shows hidden secrets; Helm gets the real values.
        values: values ?? {},
        createNamespace: plan.createNamespace,
        hooks: hooksRunningOn(plan, plan.operation),
        labels: originLabels(resolved.origin),
        ...(plan.timeout ? { timeoutSeconds: plan.timeout.seconds } : {}),
        ...(plan.replace ? { replace: true } : {}),
        ...(plan.rollbackOnFailure ? { rollbackOnFailure: true } : {}),
      };
      const change = plan.operation === 'install' ? this.backend.install(releaseRequest) : this.backend.upgrade(releaseRequest);
      const status = await change.catch((error: unknown) => this.#undoneOrRethrow(plan, error));
      // `helm test` after the change, as the plan said; its result is part of the answer (and so of the audit).
      const tests =
        testHooks(plan.hooks).length > 0 && this.backend.runTests
          ? await this.backend.runTests(plan.release, plan.namespace, plan.timeout?.seconds ?? 300)
          : undefined;
      return {
        plan,
        status: this.#redact.status(status),
        ...(tests ? { tests } : {}),
        confirmed: `${plan.operation} of ${plan.release} created revision ${status.version} (${status.info.status})${tests ? testsSentence(tests) : ''}`,
      };
    }
    if (plan.operation === 'rollback') {
      await this.backend.rollback(plan.release, plan.namespace, plan.targetRevision ?? 0, {
        hooks: hooksRunningOn(plan, 'rollback'),
        ...(plan.timeout ? { timeoutSeconds: plan.timeout.seconds } : {}),
      });
      // `helm rollback` prints text only: confirm by re-reading the history.
      const history = await this.backend.history(plan.release, plan.namespace);
      const latest = history[history.length - 1];
      if (!latest || latest.revision !== plan.nextRevision) {
        throw HelmErrors.HELM_OPERATION_FAILED({
          operation: 'rollback',
          detail: `expected revision ${plan.nextRevision} in the history, found ${latest?.revision ?? 'none'}`,
        });
      }
      const status = await this.backend.status(plan.release, plan.namespace);
      return {
        plan,
        status: this.#redact.status(status),
        history,
        confirmed: `rolled back ${plan.release}: revision ${latest.revision} is ${latest.status} (${latest.description})`,
      };
    }
    await this.backend.uninstall(plan.release, plan.namespace, {
      hooks: hooksRunningOn(plan, 'delete'),
      ...(plan.timeout ? { timeoutSeconds: plan.timeout.seconds } : {}),
    });
    // `helm uninstall` prints text only: confirm the release is gone.
    try {
      const still = await this.backend.status(plan.release, plan.namespace);
      throw HelmErrors.HELM_OPERATION_FAILED({ operation: 'uninstall', detail: `release is still ${still.info.status} after uninstall` });
    } catch (error) {
      if (!(OpsgateError.isInstance(error) && error.code === 'HELM_RELEASE_NOT_FOUND')) throw error;
    }
    return { plan, confirmed: `uninstalled ${plan.release} from ${plan.namespace}; status now reports "release: not found"` };
  }

  /**
   * A failed install/upgrade that asked Helm to undo it: the release's state after the failure says
   * whether Helm did (an install is gone, an upgrade's newest revision is a deployed rollback).
   * Anything else is the original error, so an undo that did not happen is never claimed.
   */
  async #undoneOrRethrow(plan: InstallationPlan, error: unknown): Promise<never> {
    if (!plan.rollbackOnFailure || !OpsgateError.isInstance(error)) throw error;
    const detail = String(error.fields.detail ?? error.message);
    const after = await this.backend.status(plan.release, plan.namespace).catch((readError: unknown) => {
      if (OpsgateError.isInstance(readError) && readError.code === 'HELM_RELEASE_NOT_FOUND') return undefined;
      throw error;
    });
    if (plan.operation === 'install' && (after === undefined || after.info.status === 'uninstalled'))
      throw HelmErrors.HELM_CHANGE_ROLLED_BACK({
        operation: 'install',
        release: plan.release,
        undone: 'the release was uninstalled',
        detail,
      });
    if (
      plan.operation === 'upgrade' &&
      after?.info.status === 'deployed' &&
      plan.nextRevision !== undefined &&
      after.version > plan.nextRevision
    )
      throw HelmErrors.HELM_CHANGE_ROLLED_BACK({
        operation: 'upgrade',
        release: plan.release,
        undone: `rolled back to revision ${plan.currentRevision}, now revision ${after.version}`,
        detail,
      });
    throw error;
  }

  /** Polls release status and pod health until healthy, failing, or `timeoutSeconds` (bounded to 600). */
  async monitor(
    release: string,
    namespace: string,
    options: { timeoutSeconds?: number; intervalMs?: number } = {},
  ): Promise<MonitorReport> {
    const timeoutMs = Math.min(options.timeoutSeconds ?? 60, 600) * 1000;
    const intervalMs = options.intervalMs ?? 1000;
    const started = Date.now();
    let polls = 0;
    for (;;) {
      polls++;
      const status = await this.backend.status(release, namespace);
      const { pods, workloads } = await this.backend.health(release, namespace, status.manifest);
      const problems = healthProblems(pods, workloads);
      if (status.info.status === 'failed') problems.push({ object: `release/${release}`, reason: status.info.description });
      // Healthy the way `helm --wait` means it: every workload of the manifest ready (observed
      // generation, updated and ready replicas, completed Jobs) — zero pods is not a pass.
      const healthy = status.info.status === 'deployed' && problems.length === 0 && workloads.every((w) => w.ready);
      const elapsedMs = Date.now() - started;
      const timedOut = !healthy && problems.length === 0 && elapsedMs + intervalMs > timeoutMs;
      if (healthy || problems.length > 0 || timedOut) {
        return {
          healthy,
          releaseStatus: status.info.status,
          revision: status.version,
          pods,
          workloads,
          problems,
          timedOut,
          polls,
          elapsedMs,
        };
      }
      await this.#sleep(intervalMs);
    }
  }
}

/** A render with its time stamps masked (see render-times.ts). */
function withoutRenderTimes(release: RenderedRelease, renderedAt: number): RenderedRelease {
  return {
    ...release,
    manifest: maskRenderTimes(release.manifest, renderedAt),
    hooks: release.hooks.map((hook) => (hook.manifest ? { ...hook, manifest: maskRenderTimes(hook.manifest, renderedAt) } : hook)),
  };
}

/** Keys of the objects whose content differs between two renders of the same inputs. */
function volatileObjects(first: string, second: string, namespace: string): string[] {
  if (first === second) return [];
  const again = new Map(parseManifest(second, namespace).map((resource) => [resource.key, canonicalJson(resource.object)]));
  return parseManifest(first, namespace)
    .filter((resource) => again.get(resource.key) !== canonicalJson(resource.object))
    .map((resource) => resource.key);
}
