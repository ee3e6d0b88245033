/**
 * A behavioural fake `kubectl` over the same simulated cluster as `fake-helm.ts`: the
 * `kubectl get -o json` shapes the CLI backend reads (one object for one `kind/name`, a `List`
 * otherwise), and kubectl's NotFound error.
 */
import { appendFileSync } from 'node:fs';
import { helmSimulatorMigrations } from '../../../src/agents/helm/backends/simulator/migration.ts';
import { SimulatedCluster } from '../../../src/agents/helm/backends/simulator/simulated-cluster.ts';
import { OpsgateError } from '../../../src/core/errors/index.ts';
import { openStore } from '../../../src/core/store/index.ts';
import { parseArgs } from './fake-args.ts';

const argv = process.argv.slice(2);
if (process.env.FAKE_HELM_LOG) appendFileSync(process.env.FAKE_HELM_LOG, `kubectl ${argv.join(' ')}\n`);

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

const KINDS: Record<string, string> = { deployment: 'Deployment', statefulset: 'StatefulSet', daemonset: 'DaemonSet', job: 'Job' };
const GROUPS: Record<string, string> = {
  deployment: 'deployments.apps',
  statefulset: 'statefulsets.apps',
  daemonset: 'daemonsets.apps',
  job: 'jobs.batch',
};

const list = (items: unknown[]) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items, metadata: { resourceVersion: '' } });

async function main(): Promise<void> {
  const { command, positional, flags } = parseArgs(
    argv,
    ['--short'],
    ['--namespace', '-n', '-o', '--output', '--selector', '-l', '--context'],
    (m) => fail(`error: ${m}`),
  );
  const store = await openStore({
    sqlitePath: process.env.FAKE_HELM_STATE ?? fail('FAKE_HELM_STATE is not set'),
    databaseUrl: '',
    migrations: helmSimulatorMigrations,
  });
  const cluster = new SimulatedCluster(store);
  const namespace = flags.get('--namespace') ?? flags.get('-n') ?? 'default';
  try {
    if (command === 'version') {
      const info = await cluster.clusterInfo();
      process.stdout.write(
        `${JSON.stringify({ clientVersion: { gitVersion: 'v1.29.4' }, serverVersion: { gitVersion: info.kubernetesVersion, platform: 'linux/amd64' } })}\n`,
      );
    } else if (command === 'config' && positional[0] === 'current-context') {
      process.stdout.write('kind-opsgate\n');
    } else if (command === 'get' && positional[0] === 'nodes') {
      const info = await cluster.clusterInfo();
      process.stdout.write(
        `${list(info.nodes.map((node) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: node.name }, status: { conditions: [{ type: 'Ready', status: node.ready ? 'True' : 'False' }] } })))}\n`,
      );
    } else if (command === 'get' && positional[0] === 'namespaces') {
      process.stdout.write(
        `${list((await cluster.listNamespaces()).map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })))}\n`,
      );
    } else if (command === 'get' && positional[0] === 'pods') {
      process.stdout.write(`${list(await cluster.podObjects(namespace, flags.get('--selector') ?? flags.get('-l') ?? ''))}\n`);
    } else if (command === 'get' && positional.every((ref) => ref.includes('/'))) {
      const refs = positional.map((ref) => {
        const [type = '', name = ''] = ref.split('/');
        const kind = KINDS[type] ?? fail(`error: the server doesn't have a resource type "${type}"`);
        return { type, kind, name };
      });
      const objects = await cluster.workloadObjects(namespace, refs);
      const missing = refs.filter((ref) => !objects.some((o) => o.kind === ref.kind && (o.metadata as { name: string }).name === ref.name));
      if (missing.length > 0) await store.close();
      if (missing.length > 0) fail(`Error from server (NotFound): ${GROUPS[missing[0]!.type]} "${missing[0]!.name}" not found`);
      process.stdout.write(`${refs.length === 1 ? JSON.stringify(objects[0]) : list(objects)}\n`);
    } else {
      fail(`error: unknown command "${argv.join(' ')}" for "kubectl"`);
    }
  } catch (error) {
    await store.close();
    if (!OpsgateError.isInstance(error)) throw error;
    fail(
      error.code === 'HELM_CLUSTER_UNREACHABLE'
        ? 'Unable to connect to the server: dial tcp 10.96.0.1:6443: connect: connection refused'
        : `Error from server (Forbidden): ${String(error.fields.detail ?? error.message)}`,
    );
  }
  await store.close();
}

await main();
