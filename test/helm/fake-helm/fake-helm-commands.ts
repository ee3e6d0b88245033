/**
 * A behavioural fake `helm` (3 or 4) for the workflow tests: Helm's command line and output, over
 * opsgate's simulated cluster. Output shapes and error texts are Helm's own (see
 * `test/helm/fixtures/SOURCES.md`); where Helm 3 and Helm 4 differ, it answers as `version`.
 * It runs in-process behind the CLI backend's command runner (`in-process-fakes.ts`) or as an
 * executable (`fake-helm.ts`) where the process boundary itself is under test.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { SimulatedCluster } from '../../../src/agents/helm/backends/simulator/simulated-cluster.ts';
import type { HelmStatus } from '../../../src/agents/helm/backends/types.ts';
import { loadChartArchive } from '../../../src/agents/helm/charts/load-chart.ts';
import { parseManifest } from '../../../src/agents/helm/charts/render-chart.ts';
import { OpsgateError } from '../../../src/core/errors/index.ts';
import { parseArgs } from './fake-args.ts';
import { type FakeChartSources, fakePull, fakeSearch } from './fake-chart-sources.ts';
import { checkHelmFlags, flagKind } from './helm-flags.ts';

/** A command that exits 1 with this stderr. */
export class FakeFailure extends Error {
  readonly stderr: string;
  constructor(stderr: string) {
    super(stderr);
    this.stderr = stderr;
  }
}

export function fail(message: string): never {
  throw new FakeFailure(`Error: ${message}\n`);
}

/**
 * How long the fake's cluster takes, in Helm seconds: each hook, and the rollout `--wait` waits
 * for. Both are measured against the command's `--timeout` exactly as Helm does (per hook, and
 * separately for the wait), so a test can prove a long rollout or a slow hook is allowed to finish.
 */
export interface FakeTiming {
  readonly rolloutSeconds?: number;
  readonly hookSeconds?: number;
}

export interface FakeContext {
  /** `helm version --short`, e.g. `v3.21.4+g2e3a0c9`. */
  readonly version: string;
  readonly cluster: SimulatedCluster;
  readonly timing?: FakeTiming;
  /** `helm repo` repositories and OCI registries `helm pull` and `helm search repo` read. */
  readonly charts?: FakeChartSources;
  /** Sleeps `seconds` Helm seconds (real processes scale them with FAKE_HELM_SECOND_MS; in-process tests use fake timers). */
  readonly sleep: (seconds: number) => Promise<void>;
}

type Hook = { key: string; events: readonly string[]; manifest: string };

/** The release object Helm prints with `-o json`: its field order; Helm 4 omits zero times; `status` strips the chart. */
function releaseJson(helm4: boolean, status: HelmStatus, hooks: readonly Hook[] = []): string {
  const info = helm4
    ? {
        ...(status.info.first_deployed ? { first_deployed: status.info.first_deployed } : {}),
        ...(status.info.last_deployed ? { last_deployed: status.info.last_deployed } : {}),
        ...(status.info.deleted ? { deleted: status.info.deleted } : {}),
        ...(status.info.description ? { description: status.info.description } : {}),
        status: status.info.status,
        ...(status.info.notes ? { notes: status.info.notes } : {}),
      }
    : {
        first_deployed: status.info.first_deployed,
        last_deployed: status.info.last_deployed,
        deleted: status.info.deleted,
        ...(status.info.description ? { description: status.info.description } : {}),
        status: status.info.status,
        ...(status.info.notes ? { notes: status.info.notes } : {}),
      };
  return JSON.stringify({
    name: status.name,
    info,
    ...(Object.keys(status.config).length > 0 ? { config: status.config } : {}),
    ...(status.manifest ? { manifest: status.manifest } : {}),
    ...(hooks.length > 0
      ? {
          hooks: hooks.map((hook) => {
            const [kind, name] = hook.key.split('/');
            return { name, kind, path: '', manifest: hook.manifest, events: hook.events, last_run: {} };
          }),
        }
      : {}),
    version: status.version,
    namespace: status.namespace,
  });
}

/** Helm's error texts for what the simulator raised (each from a Helm golden or Helm's source). */
function helmError(helm4: boolean, error: unknown, command: string, release: string): never {
  if (!OpsgateError.isInstance(error)) throw error;
  const prefix = command === 'install' ? 'INSTALLATION FAILED: ' : command === 'upgrade' ? 'UPGRADE FAILED: ' : '';
  const detail = String(error.fields.detail ?? '');
  switch (error.code) {
    case 'HELM_RELEASE_NOT_FOUND':
      return fail(command === 'uninstall' ? `uninstall: Release not loaded: ${release}: release: not found` : 'release: not found');
    case 'HELM_NAME_IN_USE':
      return fail(`${prefix}${helm4 ? 'cannot reuse a name that is still in use' : 'cannot re-use a name that is still in use'}`);
    case 'HELM_NO_DEPLOYED_RELEASES':
      return fail(`${prefix}"${release}" has no deployed releases`);
    case 'HELM_OPERATION_IN_PROGRESS':
      return fail(`${prefix}another operation (install/upgrade/rollback) is in progress`);
    case 'HELM_REVISION_NOT_FOUND':
      return fail(`release has no ${String(error.fields.revision)} version`);
    case 'HELM_TIMEOUT':
      return fail(`${prefix}context deadline exceeded`);
    case 'HELM_CLUSTER_UNREACHABLE':
    case 'HELM_FORBIDDEN':
    case 'HELM_APPLY_FAILED':
      return fail(`${prefix}${detail}`);
    default:
      return fail(`${prefix}${error.message}`);
  }
}

/** Helm's `--timeout` ("300s", "5m0s", "1m30s") in seconds; 300 when absent. */
function timeoutSeconds(flags: Map<string, string>): number {
  const text = flags.get('--timeout');
  if (!text) return 300;
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(text);
  if (!match || text === '') fail(`invalid argument "${text}" for "--timeout" flag: time: invalid duration "${text}"`);
  return Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
}

/**
 * Runs the hooks of one event the way Helm does (v3 `pkg/action/hooks.go`): each hook is waited
 * for with the whole `--timeout`, and a hook slower than that fails the command.
 */
async function runHooks(context: FakeContext, hooks: readonly Hook[], event: string, timeout: number, prefix: string): Promise<void> {
  for (const hook of hooks.filter((h) => h.events.includes(event))) {
    const seconds = context.timing?.hookSeconds ?? 0;
    await context.sleep(Math.min(seconds, timeout));
    if (seconds > timeout) fail(`${prefix}${event} hooks failed: 1 error occurred:\n\t* timed out waiting for the condition (${hook.key})`);
  }
}

/** Waits for the rollout (`--wait`) with the whole `--timeout`, as Helm does after applying. */
async function waitForRollout(context: FakeContext, flags: Map<string, string>, timeout: number, prefix: string): Promise<void> {
  if (!flags.has('--wait')) return;
  const seconds = context.timing?.rolloutSeconds ?? 0;
  await context.sleep(Math.min(seconds, timeout));
  if (seconds > timeout) fail(`${prefix}context deadline exceeded`);
}

/**
 * Helm's server dry run of a first install skips the chart's `crds/` (v3 `install.go:263-270`) and
 * then cannot map custom resources of those kinds (helm/helm#13159): Helm's own error text.
 */
function refuseUnmappedCustomResources(crds: ReadonlyArray<{ readonly content: string }>, manifest: string): void {
  const resources = parseManifest(manifest);
  for (const crd of crds) {
    const spec = (parse(crd.content) as { spec?: { group?: string; names?: { kind?: string } } } | null)?.spec;
    const custom = resources.find(
      (resource) => resource.kind === spec?.names?.kind && String(resource.object.apiVersion ?? '').startsWith(`${spec?.group}/`),
    );
    if (custom)
      fail(
        `INSTALLATION FAILED: unable to build kubernetes objects from release manifest: resource mapping not found for name: "${custom.name}" namespace: "" from "": no matches for kind "${custom.kind}" in version "${String(custom.object.apiVersion)}"\nensure CRDs are installed first`,
      );
  }
}

/** Runs one `helm` command line; resolves with its stdout or throws `FakeFailure`. */
export async function runFakeHelm(argv: readonly string[], context: FakeContext): Promise<string> {
  const helm4 = context.version.startsWith('v4');
  const { command, positional, flags } = parseArgs(argv, (table, flag) => flagKind(context.version, table, flag), fail);
  checkHelmFlags(context.version, command === 'get' || command === 'search' ? `${command} ${positional[0] ?? ''}` : command, flags, fail);
  if (command === 'version') {
    return `${flags.has('--short') ? context.version : `version.BuildInfo{Version:"${context.version.split('+')[0]}"}`}\n`;
  }
  const namespace = flags.get('--namespace') ?? flags.get('-n') ?? 'default';
  const { cluster } = context;
  const release = positional[0] ?? '';
  const line = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
  const prefix = command === 'install' ? 'INSTALLATION FAILED: ' : command === 'upgrade' ? 'UPGRADE FAILED: ' : '';
  if (command === 'pull') return fakePull(context.charts ?? {}, release || fail('"helm pull" requires at least 1 argument'), flags, fail);
  if (command === 'search' && positional[0] === 'repo') return fakeSearch(context.charts ?? {}, positional[1] ?? '', flags, fail);
  try {
    if (command === 'list') {
      const all = helm4 || flags.has('--all');
      const releases = await cluster.listReleases({ all, ...(flags.has('--all-namespaces') || flags.has('-A') ? {} : { namespace }) });
      const max = Number(flags.get('--max') ?? flags.get('-m') ?? 256);
      return line(JSON.stringify(max > 0 ? releases.slice(0, max) : releases));
    }
    if (command === 'status') return line(releaseJson(helm4, await cluster.status(release, namespace)));
    if (command === 'history') {
      const history = await cluster.history(release, namespace);
      const max = Number(flags.get('--max') ?? 256);
      return line(
        JSON.stringify(
          history.slice(-max).map((item) => {
            const rollback = helm4 ? /^Rollback to (\d+)$/.exec(item.description)?.[1] : undefined;
            const { description, ...rest } = item;
            return { ...rest, ...(rollback ? { rollback_revision: Number(rollback) } : {}), description };
          }),
        ),
      );
    }
    if (command === 'get') {
      const what = positional[0];
      const name = positional[1] ?? '';
      const revision = flags.get('--revision');
      const status = revision ? await cluster.revisionStatus(name, namespace, Number(revision)) : await cluster.status(name, namespace);
      if (what === 'metadata') {
        return line(
          JSON.stringify({
            name: status.name,
            chart: status.chart.metadata.name,
            version: status.chart.metadata.version,
            appVersion: status.chart.metadata.appVersion ?? '',
            namespace: status.namespace,
            revision: status.version,
            status: status.info.status,
            deployedAt: status.info.last_deployed,
          }),
        );
      }
      if (what === 'values') return line(Object.keys(status.config).length > 0 ? JSON.stringify(status.config) : 'null');
      if (what === 'manifest') return line(status.manifest);
      if (what === 'hooks') {
        // Helm's get_hooks.go: "---\n# Source: PATH\nMANIFEST\n" per hook.
        const hooks = await cluster.revisionHooks(name, namespace, status.version);
        return hooks.map((hook) => `---\n# Source: ${hook.key}\n${hook.manifest}\n`).join('');
      }
      return fail(`unknown command "${what}" for "helm get"`);
    }
    if (command === 'install' || command === 'upgrade') {
      const chart = await loadChartArchive(readFileSync(positional[1] ?? fail(`"helm ${command}" requires 2 arguments`)));
      const valuesFile = flags.get('--values') ?? flags.get('-f');
      const values = valuesFile ? (JSON.parse(readFileSync(valuesFile, 'utf8')) as Record<string, unknown>) : {};
      const request = {
        release,
        namespace,
        chart,
        chartArchive: positional[1]!,
        values,
        createNamespace: flags.has('--create-namespace'),
        ...(flags.has('--replace') ? { replace: true } : {}),
      };
      const dryRun = flags.get('--dry-run');
      if (dryRun !== undefined) {
        if (dryRun !== 'server' && dryRun !== 'client' && dryRun !== 'true') fail(`invalid dry-run flag value "${dryRun}"`);
        const rendered = await cluster.dryRun({ ...request, upgrade: command === 'upgrade' });
        if (dryRun === 'server' && command === 'install') refuseUnmappedCustomResources(chart.crds, rendered.status.manifest);
        return line(releaseJson(helm4, rendered.status, rendered.hooks));
      }
      const timeout = timeoutSeconds(flags);
      // Only a test that times hooks pays for reading them (a render of its own).
      const hooks = context.timing?.hookSeconds ? (await cluster.dryRun({ ...request, upgrade: command === 'upgrade' })).hooks : [];
      await runHooks(context, hooks, `pre-${command}`, timeout, prefix);
      const status = command === 'install' ? await cluster.install(request) : await cluster.upgrade(request);
      await waitForRollout(context, flags, timeout, prefix);
      await runHooks(context, hooks, `post-${command}`, timeout, prefix);
      return line(releaseJson(helm4, status));
    }
    if (command === 'rollback') {
      const timeout = timeoutSeconds(flags);
      const hooks = await cluster.releaseHooks(release, namespace);
      await runHooks(context, hooks, 'pre-rollback', timeout, '');
      await cluster.rollback(release, namespace, Number(positional[1] ?? 0));
      await waitForRollout(context, flags, timeout, '');
      await runHooks(context, hooks, 'post-rollback', timeout, '');
      return 'Rollback was a success! Happy Helming!\n';
    }
    if (command === 'uninstall') {
      const timeout = timeoutSeconds(flags);
      const hooks = await cluster.releaseHooks(release, namespace);
      await runHooks(context, hooks, 'pre-delete', timeout, '');
      await cluster.uninstall(release, namespace, { keepHistory: flags.has('--keep-history') });
      await runHooks(context, hooks, 'post-delete', timeout, '');
      return `release "${release}" uninstalled\n`;
    }
    return fail(`unknown command "${command}" for "helm"`);
  } catch (error) {
    if (error instanceof FakeFailure) throw error;
    return helmError(helm4, error, command, command === 'get' ? (positional[1] ?? '') : release);
  }
}
