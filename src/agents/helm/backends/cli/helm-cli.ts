import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { OpsgateError } from '../../../../core/errors/index.ts';
import { HelmErrors } from '../../errors.ts';
import type { LiveRef } from '../../service/live-drift.ts';
import type { SchemaValidator } from '../../values/validate-values.ts';
import type { ChangeOptions, HelmBackend, ReleaseRequest, RenderRequest } from '../backend.ts';
import { Memo } from '../memo.ts';
import { releaseHealth } from '../readiness.ts';
import type {
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
} from '../types.ts';
import { cancellationSignal } from './cancellation.ts';
import { helmRouteArgs, withKubectlRoute } from './kube-route.ts';
import {
  classifyHelmError,
  parseDryRunRelease,
  parseHelmHistory,
  parseHelmHooks,
  parseHelmList,
  parseHelmMetadata,
  parseHelmSearch,
  parseHelmStatus,
  parseHelmValues,
  parseKubectlNamespaces,
  parseKubectlNodes,
  parseKubectlObjects,
  parseKubectlVersion,
} from './parse-output.ts';
import { failedTestPods, parseHelmTestOutput } from './parse-test-output.ts';
import { parseVerifyOutput } from './parse-verify-output.ts';
import { CommandFailed, type CommandRunner, execCommand } from './run-command.ts';
import { parseServerCheck, serverCheckArgs } from './server-check.ts';
import { parseTemplateOutput, templateArgs } from './template-render.ts';

/** Helm's default `--timeout` for install, upgrade, rollback and uninstall. */
const HELM_TIMEOUT_SECONDS = 300;
/**
 * How much longer than Helm's own `--timeout` a changing command may run before opsgate stops it.
 * Helm must time out first: install and upgrade mark their revision failed on SIGTERM, but
 * rollback and uninstall have no such handling, and a kill leaves `pending-rollback` or
 * `uninstalling` behind.
 */
const KILL_GRACE_SECONDS = 60;

export interface HelmCliOptions {
  /** Default `helm` (found on PATH). */
  readonly helmPath?: string;
  /** Default `kubectl`. */
  readonly kubectlPath?: string;
  /** `--kube-context` for both tools. Default: the current context. */
  readonly kubeContext?: string;
  /** `--kubeconfig` for both tools (a registered cluster's file). Default: $KUBECONFIG or ~/.kube/config. */
  readonly kubeconfig?: string;
  /**
   * An admin-configured public keyring (legacy `pubring.gpg` format): every chart must carry a `.prov`
   * signed by one of its keys (`helm verify` in planning, `--verify --keyring` on install/upgrade).
   */
  readonly keyring?: string;
  /** Per read-only command, milliseconds. Default 120000. Changing commands get Helm's `--timeout` plus a grace period. */
  readonly commandTimeoutMs?: number;
  readonly env?: NodeJS.ProcessEnv;
  /** How commands run. Default: `execFile`. Tests answer in-process where the process boundary is not under test. */
  readonly run?: CommandRunner;
}

/**
 * A real cluster through the `helm` (3 or 4) and `kubectl` CLIs, run with `execFile` (no shell),
 * `-o json` wherever Helm has it. Helm's traps are handled here: `list --all` on Helm 3 only, the
 * chart read from `get metadata`, plans from `--dry-run=server`, upgrades with the complete values
 * and `--reset-values` (reuse is decided by the caller), `--wait` on every change with a process
 * limit longer than Helm's own timeout, and rollback/uninstall (text output) confirmed by the
 * caller re-reading status/history.
 */
export class HelmCli implements HelmBackend {
  readonly kind = 'helm-cli' as const;
  readonly #options: HelmCliOptions;
  #helmVersion: Promise<{ readonly major: number; readonly minor: number; readonly patch: number; readonly text: string }> | undefined;
  readonly #pulled = new Map<string, Promise<string>>();
  /** The chart of each stored revision (`helm get metadata --revision`): `helm status` strips it, and it never changes. */
  readonly #metadata = new Memo<ReturnType<typeof parseHelmMetadata>>({ maxEntries: 256 });

  constructor(options: HelmCliOptions = {}) {
    this.#options = options;
  }

  /**
   * The installed Helm's version, read once from `helm version --short` ("v4.0.1+g…"). Helm
   * before 3.13.0 has neither `get metadata` nor `--dry-run=server`, so every workflow would fail
   * half-way: it is refused up front with HELM_VERSION_UNSUPPORTED.
   */
  helmVersion(): Promise<{ readonly major: number; readonly minor: number; readonly patch: number; readonly text: string }> {
    this.#helmVersion ??= this.#run('helm', ['version', '--short'], 'version').then((output) => {
      const text = output.trim();
      const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text);
      if (!match) throw HelmErrors.HELM_BAD_OUTPUT({ command: 'version', detail: `unexpected version "${text.slice(0, 80)}"` });
      const version = { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]), text: text.split('+')[0]! };
      if (version.major < 3 || (version.major === 3 && version.minor < 13))
        throw HelmErrors.HELM_VERSION_UNSUPPORTED({ version: version.text });
      return version;
    });
    return this.#helmVersion;
  }

  /** Helm 3.13.0–3.18.4 validate values with gojsonschema; 3.18.5 and Helm 4 with santhosh-tekuri/jsonschema v6. */
  async schemaValidator(): Promise<SchemaValidator> {
    const { major, minor, patch } = await this.helmVersion();
    return major === 3 && (minor < 18 || (minor === 18 && patch < 5)) ? 'gojsonschema' : 'jsonschema-v6';
  }

  /** The installed Helm's major version (3 or 4). */
  async helmMajorVersion(): Promise<number> {
    return (await this.helmVersion()).major;
  }

  /** The context helm uses: the option, else Helm's own HELM_KUBECONTEXT. */
  #kubeContext(): string | undefined {
    return this.#options.kubeContext ?? ((this.#options.env ?? process.env).HELM_KUBECONTEXT || undefined);
  }

  async #run(
    tool: 'helm' | 'kubectl',
    args: readonly string[],
    operation: string,
    release = '',
    namespace = '',
    timeoutMs = this.#options.commandTimeoutMs ?? 120_000,
  ): Promise<string> {
    return this.#invoke(tool, args, operation, timeoutMs).catch((error: unknown) => {
      if (!(error instanceof CommandFailed)) throw error;
      throw classifyHelmError(operation, `${error.stderr}\n${error.message}`, release, namespace);
    });
  }

  /**
   * Runs one command on the cluster helm reaches, as the identity helm uses (kube-route.ts: kubectl
   * is told what Helm reads from its HELM_KUBE* variables); a failure is the raw CommandFailed (stderr whole).
   */
  async #invoke(tool: 'helm' | 'kubectl', args: readonly string[], operation: string, timeoutMs: number): Promise<string> {
    const env = this.#options.env ?? process.env;
    const target = {
      ...(this.#options.kubeContext ? { kubeContext: this.#options.kubeContext } : {}),
      ...(this.#options.kubeconfig ? { kubeconfig: this.#options.kubeconfig } : {}),
    };
    const run = this.#options.run ?? execCommand;
    const signal = cancellationSignal();
    const options = { timeoutMs, ...(signal ? { signal } : {}) };
    if (tool === 'kubectl')
      return withKubectlRoute(target, env, (route, routedEnv) =>
        run(this.#options.kubectlPath ?? 'kubectl', [...args, ...route], { ...options, env: routedEnv }),
      );
    if (operation !== 'version') await this.helmVersion();
    return run(this.#options.helmPath ?? 'helm', [...args, ...helmRouteArgs(target)], { ...options, env });
  }

  /**
   * Issue 30 N6: the rendered objects through the API server's own strict field validation, changing
   * nothing (see server-check.ts). Helm's dry run does not validate on servers that advertise
   * `fieldValidation`, and Helm 4 applies with Strict: a `spec.replicaz` failed only after approval.
   */
  async checkObjects(manifest: string, namespace: string): Promise<ServerCheck> {
    const dir = await mkdtemp(join(tmpdir(), 'opsgate-helm-check-'));
    const file = join(dir, 'objects.yaml');
    try {
      // The manifest may hold Secrets: a private file, removed at once.
      await writeFile(file, manifest, { mode: 0o600 });
      const output = await this.#invoke(
        'kubectl',
        serverCheckArgs(file, namespace),
        'check objects',
        this.#options.commandTimeoutMs ?? 120_000,
      );
      return parseServerCheck(output, '');
    } catch (error) {
      if (!(error instanceof CommandFailed)) throw error;
      return parseServerCheck('', error.stderr);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Writes values to a private temporary file (values may hold secrets) for `--values`. */
  async #withValues<T>(values: Record<string, unknown>, use: (file: string) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(join(tmpdir(), 'opsgate-helm-'));
    // JSON, not YAML: a YAML 1.2 writer leaves yes/no/on/off/y unquoted and Helm reads them as booleans.
    const file = join(dir, 'values.json');
    try {
      await writeFile(file, JSON.stringify(values), { mode: 0o600 });
      return await use(file);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * Version, nodes and context. Listing nodes is a cluster-wide right a namespace-scoped identity
   * lacks (and Helm never needs): then `nodes` is left out. In a pod (in-cluster config) kubectl
   * has no current context ("current-context is not set"): the context is then "in-cluster".
   */
  async clusterInfo(): Promise<ClusterInfo> {
    const version = parseKubectlVersion(await this.#run('kubectl', ['version', '-o', 'json'], 'version'));
    const nodes = await this.#run('kubectl', ['get', 'nodes', '-o', 'json'], 'get nodes').then(parseKubectlNodes, (error: unknown) => {
      if (OpsgateError.isInstance(error) && error.code === 'HELM_FORBIDDEN') return undefined;
      throw error;
    });
    const context =
      this.#kubeContext() ??
      (await this.#run('kubectl', ['config', 'current-context'], 'config').then(
        (output) => output.trim(),
        (error: unknown) => {
          if (OpsgateError.isInstance(error) && /current-context is not set/.test(String(error.fields.detail ?? ''))) return 'in-cluster';
          throw error;
        },
      ));
    return { context, kubernetesVersion: version, ...(nodes ? { nodes } : {}) };
  }

  async listNamespaces(): Promise<string[]> {
    return parseKubectlNamespaces(await this.#run('kubectl', ['get', 'namespaces', '-o', 'json'], 'get namespaces'));
  }

  /** Helm 4 lists releases in every state by default and removed `--all` ("unknown flag"). */
  listReleasesArgs(query: { namespace?: string; all: boolean }, helmMajor: number): string[] {
    return [
      'list',
      ...(query.all && helmMajor < 4 ? ['--all'] : []),
      ...(query.namespace ? ['--namespace', query.namespace] : ['--all-namespaces']),
      // Helm lists 256 releases unless told otherwise; 0 is no limit (pkg/action/list.go).
      '--max',
      '0',
      '--output',
      'json',
    ];
  }

  async listReleases(query: { namespace?: string; all: boolean }): Promise<HelmListItem[]> {
    return parseHelmList(await this.#run('helm', this.listReleasesArgs(query, await this.helmMajorVersion()), 'list'));
  }

  /** `helm status` strips the chart (Helm 3 and 4), so its name and version come from `helm get metadata`. */
  async status(release: string, namespace: string): Promise<HelmStatus> {
    const status = parseHelmStatus(
      await this.#run('helm', ['status', release, '--namespace', namespace, '--output', 'json'], 'status', release, namespace),
    );
    if (status.chart.metadata.name) return status;
    // A stored revision's chart never changes; `first_deployed` tells a reinstalled release's revision 1 from the old one's.
    const metadata = await this.#metadata.get(`${namespace}/${release}@${status.info.first_deployed}#${status.version}`, async () =>
      parseHelmMetadata(
        await this.#run(
          'helm',
          ['get', 'metadata', release, '--namespace', namespace, '--revision', String(status.version), '--output', 'json'],
          'get metadata',
          release,
          namespace,
        ),
      ),
    );
    return {
      ...status,
      chart: { metadata: { ...status.chart.metadata, name: metadata.chart, version: metadata.version, appVersion: metadata.appVersion } },
      ...(metadata.labels ? { labels: metadata.labels } : {}),
    };
  }

  async history(release: string, namespace: string): Promise<HelmHistoryItem[]> {
    return parseHelmHistory(
      await this.#run(
        'helm',
        ['history', release, '--namespace', namespace, '--max', '256', '--output', 'json'],
        'history',
        release,
        namespace,
      ),
    );
  }

  async revisionManifest(release: string, namespace: string, revision: number): Promise<string> {
    return this.#run(
      'helm',
      ['get', 'manifest', release, '--namespace', namespace, '--revision', String(revision)],
      'get manifest',
      release,
      namespace,
    );
  }

  async revisionHooks(release: string, namespace: string, revision: number): Promise<ReleaseHook[]> {
    return parseHelmHooks(
      await this.#run(
        'helm',
        ['get', 'hooks', release, '--namespace', namespace, '--revision', String(revision)],
        'get hooks',
        release,
        namespace,
      ),
    );
  }

  async revisionValues(release: string, namespace: string, revision: number): Promise<Record<string, unknown>> {
    return parseHelmValues(
      await this.#run(
        'helm',
        ['get', 'values', release, '--namespace', namespace, '--revision', String(revision), '--output', 'json'],
        'get values',
        release,
        namespace,
      ),
    );
  }

  /**
   * `helm pull REF [--version V] --destination DIR`: Helm resolves `REPO/NAME` through its own
   * `helm repo` configuration and `oci://` through its registry login, with their credentials, so
   * opsgate never holds them. The archive stays in a private folder for as long as the backend
   * lives, and the same reference and version is pulled once: what is installed is the archive
   * that was planned. With a keyring configured, its `.prov` is fetched beside it (`--prov`, both
   * Helm 3 and 4), so `helm verify` can check repository and OCI charts as it checks opsgate's own.
   */
  pullChart(reference: string, version?: string): Promise<string> {
    const key = `${reference}@${version ?? ''}`;
    const cached = this.#pulled.get(key);
    if (cached) return cached;
    const pulled = (async () => {
      const destination = await mkdtemp(join(tmpdir(), 'opsgate-helm-pull-'));
      const chart = version ? `${reference} ${version}` : reference;
      try {
        // With a keyring, the `.prov` comes too (beside the archive, where `helm verify` looks); a chart
        // published without one is still pulled, and refused by verifyChart in planning.
        const provenance = this.#options.keyring ? ['--prov'] : [];
        await this.#run(
          'helm',
          ['pull', reference, ...(version ? ['--version', version] : []), ...provenance, '--destination', destination],
          'pull',
        );
      } catch (error) {
        await rm(destination, { recursive: true, force: true });
        if (OpsgateError.isInstance(error) && error.code === 'HELM_OPERATION_FAILED')
          throw HelmErrors.HELM_CHART_PULL_FAILED({ chart, detail: String(error.fields.detail ?? '') });
        throw error;
      }
      const archives = (await readdir(destination)).filter((file) => file.endsWith('.tgz'));
      if (archives.length !== 1)
        throw HelmErrors.HELM_BAD_OUTPUT({ command: 'pull', detail: `expected one chart archive, found ${archives.length}` });
      return join(destination, archives[0]!);
    })();
    this.#pulled.set(key, pulled);
    pulled.catch(() => this.#pulled.delete(key));
    return pulled;
  }

  /**
   * `helm search repo` over the configured repositories' cached indexes, for exactly NAME (the
   * search's text per chart is `NAME\vREPO/NAME\v…`, v3 `cmd/helm/search/search.go` indstr) at
   * exactly `version`.
   */
  async findChart(name: string, version: string): Promise<Array<{ reference: string; appVersion: string }>> {
    const pattern = `\\v[^/\\v]+/${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\v`;
    const output = await this.#run('helm', ['search', 'repo', pattern, '--regexp', '--version', version, '--output', 'json'], 'search');
    return parseHelmSearch(output)
      .filter((found) => found.version === version && found.name.endsWith(`/${name}`))
      .map((found) => ({ reference: found.name, appVersion: found.app_version }));
  }

  /**
   * A revision's labels. Helm 4 prints them in `get metadata`; Helm 3.17 does not, so they are read
   * from the revision's storage object (`sh.helm.release.v1.NAME.vN`, labels only: its data holds
   * the values). Another storage driver (sql, memory) or no right to read gives undefined.
   */
  async releaseLabels(release: string, namespace: string, revision: number): Promise<Readonly<Record<string, string>> | undefined> {
    if ((await this.helmMajorVersion()) >= 4)
      return parseHelmMetadata(
        await this.#run(
          'helm',
          ['get', 'metadata', release, '--namespace', namespace, '--revision', String(revision), '--output', 'json'],
          'get metadata',
          release,
          namespace,
        ),
      ).labels;
    const driver = ((this.#options.env ?? process.env).HELM_DRIVER ?? 'secret').toLowerCase();
    const kind =
      driver === '' || driver === 'secret' || driver === 'secrets' ? 'secret' : driver.startsWith('configmap') ? 'configmap' : undefined;
    if (!kind) return undefined;
    const output = await this.#run(
      'kubectl',
      [
        'get',
        kind,
        `sh.helm.release.v1.${release}.v${revision}`,
        '--namespace',
        namespace,
        '--ignore-not-found',
        '-o',
        'jsonpath={.metadata.labels}',
      ],
      'get release labels',
      release,
      namespace,
    ).catch((error: unknown) => {
      if (OpsgateError.isInstance(error) && error.code === 'HELM_FORBIDDEN') return '';
      throw error;
    });
    if (!output.trim()) return undefined;
    try {
      return JSON.parse(output) as Record<string, string>;
    } catch {
      throw HelmErrors.HELM_BAD_OUTPUT({ command: 'kubectl get release labels', detail: 'the labels are not JSON' });
    }
  }

  /**
   * The live objects, one `kubectl get` per namespace, each named `kind.group/name` (so a custom
   * resource's kind is not taken for another group's).
   */
  async liveObjects(refs: readonly LiveRef[]): Promise<Array<Record<string, unknown>>> {
    const found: Array<Record<string, unknown>> = [];
    for (const [namespace, group] of Map.groupBy(refs, (ref) => ref.namespace)) {
      const names = group.map((ref) => {
        const apiGroup = ref.apiVersion.includes('/') ? ref.apiVersion.slice(0, ref.apiVersion.indexOf('/')) : '';
        return `${ref.kind.toLowerCase()}${apiGroup ? `.${apiGroup}` : ''}/${ref.name}`;
      });
      const output = await this.#run(
        'kubectl',
        ['get', ...names, '--namespace', namespace, '--ignore-not-found', '-o', 'json'],
        'get live objects',
        '',
        namespace,
      );
      if (output.trim()) found.push(...parseKubectlObjects(output));
    }
    return found;
  }

  /** `helm test`, bounded by `--timeout` per test hook; a failure is reported with the pods Helm names. */
  async runTests(release: string, namespace: string, timeoutSeconds: number): Promise<ReleaseTestResult> {
    try {
      return parseHelmTestOutput(
        await this.#run(
          'helm',
          ['test', release, '--namespace', namespace, '--timeout', `${timeoutSeconds}s`],
          'test',
          release,
          namespace,
          this.processLimitMs(timeoutSeconds),
        ),
      );
    } catch (error) {
      if (!OpsgateError.isInstance(error)) throw error;
      const detail = String(error.fields.detail ?? error.message);
      return { passed: false, suites: failedTestPods(detail).map((name) => ({ name, phase: 'Failed' })), detail };
    }
  }

  /** `helm verify` against the configured keyring; undefined without one. */
  async verifyChart(archive: string): Promise<ChartProvenance | undefined> {
    const keyring = this.#options.keyring;
    if (!keyring) return undefined;
    let stdout: string;
    try {
      stdout = await this.#invoke('helm', ['verify', archive, '--keyring', keyring], 'verify', this.#options.commandTimeoutMs ?? 120_000);
    } catch (error) {
      if (!(error instanceof CommandFailed)) throw error;
      const detail = error.stderr.trim().replace(/^Error: /, '') || error.message;
      throw HelmErrors.HELM_CHART_UNVERIFIED({ archive: basename(archive), detail });
    }
    const provenance = parseVerifyOutput(stdout);
    if (!provenance)
      throw HelmErrors.HELM_CHART_UNVERIFIED({ archive: basename(archive), detail: `unexpected helm verify output: ${stdout.trim()}` });
    return provenance;
  }

  #verifyArgs(): string[] {
    return this.#options.keyring ? ['--verify', '--keyring', this.#options.keyring] : [];
  }

  /** `--labels k=v,…` (Helm ≥ 3.13) for the revision an install or upgrade records. */
  #labelArgs(request: ReleaseRequest): string[] {
    const labels = Object.entries(request.labels ?? {});
    return labels.length ? ['--labels', labels.map(([key, value]) => `${key}=${value}`).join(',')] : [];
  }

  /**
   * The process limit of a changing command. Helm's `--timeout` bounds each hook and, apart, the
   * rollout wait (v3 `pkg/action/hooks.go`, `upgrade.go`), so a command running `hooks` hooks may
   * take `--timeout` × (hooks + 1); the grace period comes on top so that Helm times out first.
   */
  processLimitMs(timeoutSeconds: number = HELM_TIMEOUT_SECONDS, hooks = 0): number {
    return (timeoutSeconds * (hooks + 1) + KILL_GRACE_SECONDS) * 1000;
  }

  /**
   * `--dry-run=server`, not `helm template`: the server renders the real next revision with the
   * cluster's Capabilities and `lookup`, and the answer keeps hooks and tests out of the manifest.
   */
  renderArgs(request: RenderRequest, valuesFile: string): string[] {
    return [
      request.isUpgrade ? 'upgrade' : 'install',
      request.release,
      request.chartArchive,
      '--namespace',
      request.namespace,
      ...(request.isUpgrade ? ['--reset-values'] : request.replace ? ['--replace'] : []),
      // The flags the apply will use, so the plan's dry run states them.
      ...(!request.isUpgrade && request.createNamespace ? ['--create-namespace'] : []),
      '--values',
      valuesFile,
      '--dry-run=server',
      '--output',
      'json',
    ];
  }

  /**
   * A first install of a chart whose templates hold custom resources of its own `crds/` cannot be
   * dry-run on the server: Helm skips installing CRDs in a dry run and then cannot map the custom
   * resources ("ensure CRDs are installed first", helm/helm#13159, kube-prometheus-stack and most
   * operators). Such a plan falls back to a client-side render, and says so: `--dry-run=client` on
   * Helm 4; on Helm 3 that maps against the cluster too and fails the same way, so `helm template`
   * (see template-render.ts).
   */
  async render(request: RenderRequest): Promise<RenderedRelease> {
    const command = request.isUpgrade ? 'upgrade' : 'install';
    const dryRun = (args: string[]) =>
      this.#withValues(
        request.values,
        async (file) =>
          parseDryRunRelease(
            await this.#run(
              'helm',
              args.length
                ? [...this.renderArgs(request, file).filter((a) => a !== '--dry-run=server'), ...args]
                : this.renderArgs(request, file),
              `${command} --dry-run`,
              request.release,
              request.namespace,
            ),
            `${command} --dry-run`,
          ).rendered,
      );
    try {
      return await dryRun([]);
    } catch (error) {
      const crdsMissing =
        !request.isUpgrade &&
        request.chart.crds.length > 0 &&
        OpsgateError.isInstance(error) &&
        /ensure CRDs are installed first/.test(String(error.fields.detail ?? ''));
      if (!crdsMissing) throw error;
      if ((await this.helmMajorVersion()) >= 4)
        return { ...(await dryRun(['--dry-run=client'])), clientSide: true, renderedWith: `${command} --dry-run=client` };
      return this.#withValues(request.values, async (file) =>
        parseTemplateOutput(
          await this.#run('helm', templateArgs(request, file, request.kubeVersion), 'template', request.release, request.namespace),
        ),
      );
    }
  }

  #waitArgs(timeoutSeconds: number = HELM_TIMEOUT_SECONDS): string[] {
    // Helm 3 and 4 both take a bare --wait (Helm 4: the "watcher" strategy); Jobs are waited for too.
    return ['--wait', '--wait-for-jobs', '--timeout', `${timeoutSeconds}s`];
  }

  /** Helm 3 `--atomic`, Helm 4 `--rollback-on-failure` (the same behaviour, renamed); both imply `--wait`. */
  #rollbackOnFailureArgs(request: ReleaseRequest, major: number): string[] {
    if (!request.rollbackOnFailure) return [];
    return [major >= 4 ? '--rollback-on-failure' : '--atomic'];
  }

  installArgs(request: ReleaseRequest, valuesFile: string, major: number): string[] {
    return [
      'install',
      request.release,
      request.chartArchive,
      '--namespace',
      request.namespace,
      ...(request.createNamespace ? ['--create-namespace'] : []),
      ...(request.replace ? ['--replace'] : []),
      ...this.#labelArgs(request),
      '--values',
      valuesFile,
      ...this.#waitArgs(request.timeoutSeconds),
      ...this.#rollbackOnFailureArgs(request, major),
      ...this.#verifyArgs(),
      '--output',
      'json',
    ];
  }

  upgradeArgs(request: ReleaseRequest, valuesFile: string, major: number): string[] {
    // --reset-values: the values file already holds the complete, deliberately merged user values.
    return [
      'upgrade',
      request.release,
      request.chartArchive,
      '--namespace',
      request.namespace,
      '--reset-values',
      ...this.#labelArgs(request),
      '--values',
      valuesFile,
      ...this.#waitArgs(request.timeoutSeconds),
      ...this.#rollbackOnFailureArgs(request, major),
      ...this.#verifyArgs(),
      '--output',
      'json',
    ];
  }

  async install(request: ReleaseRequest): Promise<HelmStatus> {
    const major = await this.helmMajorVersion();
    return this.#change('install', request, (file) => this.installArgs(request, file, major));
  }

  async upgrade(request: ReleaseRequest): Promise<HelmStatus> {
    const major = await this.helmMajorVersion();
    return this.#change('upgrade', request, (file) => this.upgradeArgs(request, file, major));
  }

  /** Runs an install or upgrade with its values file, under the process limit past Helm's `--timeout`. */
  #change(operation: 'install' | 'upgrade', request: ReleaseRequest, args: (valuesFile: string) => string[]): Promise<HelmStatus> {
    return this.#withValues(request.values, async (file) =>
      parseHelmStatus(
        await this.#run(
          'helm',
          args(file),
          operation,
          request.release,
          request.namespace,
          this.processLimitMs(request.timeoutSeconds, request.hooks),
        ),
        operation,
      ),
    );
  }

  async rollback(release: string, namespace: string, revision: number, options: ChangeOptions = {}): Promise<void> {
    await this.#run(
      'helm',
      ['rollback', release, String(revision), '--namespace', namespace, ...this.#waitArgs(options.timeoutSeconds)],
      'rollback',
      release,
      namespace,
      this.processLimitMs(options.timeoutSeconds, options.hooks),
    );
  }

  async uninstall(release: string, namespace: string, options: ChangeOptions = {}): Promise<void> {
    const timeoutSeconds = options.timeoutSeconds ?? HELM_TIMEOUT_SECONDS;
    await this.#run(
      'helm',
      ['uninstall', release, '--namespace', namespace, '--wait', '--timeout', `${timeoutSeconds}s`],
      'uninstall',
      release,
      namespace,
      this.processLimitMs(timeoutSeconds, options.hooks),
    );
  }

  /**
   * Reads the manifest's workloads in each object's own namespace, `--ignore-not-found`: kubectl
   * exits 1 for a multi-get when one name is gone (a Job removed by `ttlSecondsAfterFinished`),
   * which turned a healthy release into a failure. A missing workload is simply not reported.
   */
  async health(release: string, namespace: string, manifest: string): Promise<{ pods: PodHealth[]; workloads: WorkloadHealth[] }> {
    const objects = async (output: string) => (output.trim() ? parseKubectlObjects(output) : []);
    return releaseHealth(manifest, {
      workloads: async (refs) => {
        const byNamespace = Map.groupBy(refs, (ref) => ref.namespace ?? namespace);
        const found: Array<Record<string, unknown>> = [];
        for (const [where, group] of byNamespace) {
          found.push(
            ...(await objects(
              await this.#run(
                'kubectl',
                [
                  'get',
                  ...group.map((ref) => `${ref.kind.toLowerCase()}/${ref.name}`),
                  '--namespace',
                  where,
                  '--ignore-not-found',
                  '-o',
                  'json',
                ],
                'get workloads',
                release,
                namespace,
              ),
            )),
          );
        }
        return found;
      },
      pods: async (selector, where = namespace) =>
        objects(
          await this.#run(
            'kubectl',
            ['get', 'pods', '--namespace', where, '--selector', selector, '-o', 'json'],
            'get pods',
            release,
            namespace,
          ),
        ),
    });
  }
}
