/**
 * A behavioural fake `helm` (3 or 4) for the workflow tests: Helm's command line and output, over
 * opsgate's simulated cluster kept in a SQLite file. Output shapes and error texts are Helm's own
 * (see `test/helm/fixtures/SOURCES.md`); where Helm 3 and Helm 4 differ, it answers as the
 * version in FAKE_HELM_VERSION. State: FAKE_HELM_STATE. Argv log (optional): FAKE_HELM_LOG.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { helmSimulatorMigrations } from '../../../src/agents/helm/backends/simulator/migration.ts';
import { SimulatedCluster } from '../../../src/agents/helm/backends/simulator/simulated-cluster.ts';
import { loadChartArchive } from '../../../src/agents/helm/charts/load-chart.ts';
import type { HelmStatus } from '../../../src/agents/helm/types.ts';
import { OpsgateError } from '../../../src/core/errors/index.ts';
import { openStore } from '../../../src/core/store/index.ts';
import { parseArgs } from './fake-args.ts';

const version = process.env.FAKE_HELM_VERSION ?? 'v3.21.4+g2e3a0c9';
const helm4 = version.startsWith('v4');
const argv = process.argv.slice(2);
if (process.env.FAKE_HELM_LOG) appendFileSync(process.env.FAKE_HELM_LOG, `helm ${argv.join(' ')}\n`);

const BOOLEAN_FLAGS = [
  '--all',
  '--all-namespaces',
  '-A',
  '--reset-values',
  '--replace',
  '--create-namespace',
  '--wait',
  '--wait-for-jobs',
  '--keep-history',
  '--short',
];
const VALUE_FLAGS = [
  '--namespace',
  '-n',
  '--output',
  '-o',
  '--values',
  '-f',
  '--timeout',
  '--revision',
  '--max',
  '--kube-context',
  '--dry-run',
];

function fail(message: string): never {
  process.stderr.write(`Error: ${message}\n`);
  process.exit(1);
}

/** The release object Helm prints with `-o json`: its field order; Helm 4 omits zero times; `status` strips the chart. */
function releaseJson(status: HelmStatus, hooks: Array<{ key: string; events: readonly string[]; manifest: string }> = []): string {
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
function helmError(error: unknown, command: string, release: string): never {
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

async function main(): Promise<void> {
  const { command, positional, flags } = parseArgs(argv, BOOLEAN_FLAGS, VALUE_FLAGS, fail);
  if (command === 'version') {
    process.stdout.write(`${flags.has('--short') ? version : `version.BuildInfo{Version:"${version.split('+')[0]}"}`}\n`);
    return;
  }
  if (helm4 && command === 'list' && flags.has('--all')) fail('unknown flag: --all');
  const namespace = flags.get('--namespace') ?? flags.get('-n') ?? 'default';
  const store = await openStore({
    sqlitePath: process.env.FAKE_HELM_STATE ?? fail('FAKE_HELM_STATE is not set'),
    databaseUrl: '',
    migrations: helmSimulatorMigrations,
  });
  const cluster = new SimulatedCluster(store);
  const release = positional[0] ?? '';
  const out = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  try {
    if (command === 'list') {
      const all = helm4 || flags.has('--all');
      const releases = await cluster.listReleases({ all, ...(flags.has('--all-namespaces') ? {} : { namespace }) });
      out(JSON.stringify(releases));
    } else if (command === 'status') {
      out(releaseJson(await cluster.status(release, namespace)));
    } else if (command === 'history') {
      const history = await cluster.history(release, namespace);
      const max = Number(flags.get('--max') ?? 256);
      out(
        JSON.stringify(
          history.slice(-max).map((item) => {
            const rollback = helm4 ? /^Rollback to (\d+)$/.exec(item.description)?.[1] : undefined;
            const { description, ...rest } = item;
            return { ...rest, ...(rollback ? { rollback_revision: Number(rollback) } : {}), description };
          }),
        ),
      );
    } else if (command === 'get') {
      const what = positional[0];
      const name = positional[1] ?? '';
      const revision = flags.get('--revision');
      const status = revision ? await cluster.revisionStatus(name, namespace, Number(revision)) : await cluster.status(name, namespace);
      if (what === 'metadata') {
        out(
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
      } else if (what === 'values') {
        out(Object.keys(status.config).length > 0 ? JSON.stringify(status.config) : 'null');
      } else if (what === 'manifest') {
        out(status.manifest);
      } else fail(`unknown command "${what}" for "helm get"`);
    } else if (command === 'install' || command === 'upgrade') {
      const chart = await loadChartArchive(readFileSync(positional[1] ?? fail('"helm install" requires 2 arguments')));
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
        const { status, hooks } = await cluster.dryRun({ ...request, upgrade: command === 'upgrade' });
        out(releaseJson(status, hooks));
      } else {
        const status = command === 'install' ? await cluster.install(request) : await cluster.upgrade(request);
        out(releaseJson(status));
      }
    } else if (command === 'rollback') {
      const revision = Number(positional[1] ?? 0);
      await cluster.rollback(release, namespace, revision);
      out('Rollback was a success! Happy Helming!');
    } else if (command === 'uninstall') {
      await cluster.uninstall(release, namespace, { keepHistory: flags.has('--keep-history') });
      out(`release "${release}" uninstalled`);
    } else {
      fail(`unknown command "${command}" for "helm"`);
    }
  } catch (error) {
    // The store commits on close: a failed operation's writes (a failed or pending revision) must land before exit.
    await store.close();
    helmError(error, command, command === 'get' ? (positional[1] ?? '') : release);
  }
  await store.close();
}

await main();
