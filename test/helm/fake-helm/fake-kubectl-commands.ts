/**
 * A behavioural fake `kubectl` over the same simulated cluster as the fake `helm`: the
 * `kubectl get -o json` shapes the CLI backend reads (one object for one `kind/name`, a `List`
 * otherwise), and kubectl's NotFound error.
 */
import type { SimulatedCluster } from '../../../src/agents/helm/backends/simulator/simulated-cluster.ts';
import { OpsgateError } from '../../../src/core/errors/index.ts';
import { parseArgs } from './fake-args.ts';
import { FakeFailure } from './fake-helm-commands.ts';

function fail(message: string): never {
  throw new FakeFailure(`${message}\n`);
}

const KINDS: Record<string, string> = { deployment: 'Deployment', statefulset: 'StatefulSet', daemonset: 'DaemonSet', job: 'Job' };
const GROUPS: Record<string, string> = {
  deployment: 'deployments.apps',
  statefulset: 'statefulsets.apps',
  daemonset: 'daemonsets.apps',
  job: 'jobs.batch',
};
const BOOLEAN = ['--short', '--ignore-not-found'];
const VALUE = ['--namespace', '-n', '-o', '--output', '--selector', '-l', '--context', '--kubeconfig'];

const list = (items: unknown[]) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items, metadata: { resourceVersion: '' } });

/**
 * Who kubectl runs as: `namespaceScoped`, a ServiceAccount with rights in its namespaces only
 * (cluster-scoped lists are Forbidden, in kubectl 1.32's words); `inCluster`, in-cluster config
 * with no kubeconfig context.
 */
export interface FakeKubectlIdentity {
  readonly namespaceScoped?: boolean;
  readonly inCluster?: boolean;
}

const SERVICE_ACCOUNT = 'system:serviceaccount:team-a:deployer';

/** Runs one `kubectl` command line; resolves with its stdout or throws `FakeFailure`. */
export async function runFakeKubectl(
  argv: readonly string[],
  cluster: SimulatedCluster,
  identity: FakeKubectlIdentity = {},
): Promise<string> {
  const { command, positional, flags } = parseArgs(
    argv,
    (_table, flag) => (BOOLEAN.includes(flag) ? 'boolean' : VALUE.includes(flag) ? 'value' : undefined),
    (m) => fail(`error: ${m}`),
  );
  const namespace = flags.get('--namespace') ?? flags.get('-n') ?? 'default';
  try {
    if (command === 'version') {
      const info = await cluster.clusterInfo();
      return `${JSON.stringify({ clientVersion: { gitVersion: 'v1.29.4' }, serverVersion: { gitVersion: info.kubernetesVersion, platform: 'linux/amd64' } })}\n`;
    }
    if (command === 'config' && positional[0] === 'current-context')
      return identity.inCluster ? fail('error: current-context is not set') : 'kind-opsgate\n';
    if (command === 'get' && (positional[0] === 'nodes' || positional[0] === 'namespaces') && identity.namespaceScoped)
      fail(
        `Error from server (Forbidden): ${positional[0]} is forbidden: User "${SERVICE_ACCOUNT}" cannot list resource "${positional[0]}" in API group "" at the cluster scope`,
      );
    if (command === 'get' && positional[0] === 'nodes') {
      const info = await cluster.clusterInfo();
      return `${list((info.nodes ?? []).map((node) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: node.name }, status: { conditions: [{ type: 'Ready', status: node.ready ? 'True' : 'False' }] } })))}\n`;
    }
    if (command === 'get' && positional[0] === 'namespaces') {
      return `${list((await cluster.listNamespaces()).map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })))}\n`;
    }
    // A release revision's storage object, read for its labels only: the fake's releases carry none
    // (its helm ignores --labels), so kubectl prints nothing, as it does for a Secret without labels.
    if (command === 'get' && positional[0] === 'secret' && positional[1]?.startsWith('sh.helm.release.v1.')) return '';
    if (command === 'get' && positional[0] === 'pods') {
      return `${list(await cluster.podObjects(namespace, flags.get('--selector') ?? flags.get('-l') ?? ''))}\n`;
    }
    if (command === 'get' && positional.length > 0 && positional.every((ref) => ref.includes('/'))) {
      const refs = positional.map((ref) => {
        const [typeAndGroup = '', name = ''] = ref.split('/');
        // `deployment.apps/web` names the same objects as `deployment/web`.
        const type = typeAndGroup.split('.')[0] ?? '';
        const kind = KINDS[type] ?? fail(`error: the server doesn't have a resource type "${type}"`);
        return { type, kind, name };
      });
      const objects = await cluster.workloadObjects(namespace, refs);
      const missing = refs.filter((ref) => !objects.some((o) => o.kind === ref.kind && (o.metadata as { name: string }).name === ref.name));
      if (missing.length > 0 && !flags.has('--ignore-not-found'))
        fail(`Error from server (NotFound): ${GROUPS[missing[0]!.type]} "${missing[0]!.name}" not found`);
      // kubectl prints nothing when --ignore-not-found found nothing, one object for one name, a List otherwise.
      if (objects.length === 0) return '';
      return `${refs.length === 1 ? JSON.stringify(objects[0]) : list(objects)}\n`;
    }
    return fail(`error: unknown command "${argv.join(' ')}" for "kubectl"`);
  } catch (error) {
    if (error instanceof FakeFailure || !OpsgateError.isInstance(error)) throw error;
    return fail(
      error.code === 'HELM_CLUSTER_UNREACHABLE'
        ? 'Unable to connect to the server: dial tcp 10.96.0.1:6443: connect: connection refused'
        : `Error from server (Forbidden): ${String(error.fields.detail ?? error.message)}`,
    );
  }
}
