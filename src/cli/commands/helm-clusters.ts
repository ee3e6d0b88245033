import { helmClustersMigration } from '../../agents/helm/clusters/cluster-migration.ts';
import { type AddClusterInput, ClusterRegistry, checkClusterInput, type HelmCluster } from '../../agents/helm/clusters/cluster-registry.ts';
import { AuditLog, SYSTEM_ACTOR } from '../../core/audit/index.ts';
import { LOCAL_ADMIN } from '../../core/identity/identity-audit.ts';
import { openStore, resolveDataDir } from '../../core/store/index.ts';
import { type CliCommand, type CliIo, UsageError } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';

const OPTIONS = {
  context: { type: 'string' },
  kubeconfig: { type: 'string' },
  'in-cluster': { type: 'boolean' },
  environment: { type: 'string' },
  namespaces: { type: 'string' },
} as const;

/** How helm and kubectl reach the cluster, in words. */
function where(cluster: HelmCluster): string {
  if (!cluster.kubeContext && !cluster.kubeconfig) return "in-cluster (the server's default context)";
  const context = cluster.kubeContext ? `context ${cluster.kubeContext}` : 'current context';
  return cluster.kubeconfig ? `${context} (${cluster.kubeconfig})` : context;
}

export const helmClustersCommand: CliCommand = {
  name: 'helm-clusters',
  summary: 'Register Kubernetes clusters as targets of the helm agent (helm-clusters add | list | remove)',
  usage: `Usage:
  opsgate helm-clusters add NAME (--context KUBE_CONTEXT [--kubeconfig /abs/path] | --kubeconfig /abs/path | --in-cluster)
                             --environment production|staging|dev|… --namespaces NS[,NS…]
  opsgate helm-clusters list
  opsgate helm-clusters remove NAME

add     registers a target: the kube context helm and kubectl use (--kube-context / --context),
        optionally a kubeconfig file on the server (its path only: opsgate stores no credentials;
        without --context its current context), or --in-cluster: no context and no kubeconfig, so
        helm and kubectl use the server's default (in a pod, its service account),
        an environment label Cedar policies read (context.environment; the default policy lets
        nobody approve their own change to a "production" target), and the namespaces the agent
        may act in ("*" for all). A call naming another namespace is refused.
        With one cluster registered it is the default target; with several, each request names one.`,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const [action, ...rest] = args;
    if (action !== 'add' && action !== 'list' && action !== 'remove')
      throw new UsageError('expected "add", "list" or "remove" (see opsgate helm-clusters --help)');
    const { values, positionals } = parseCommandArgs(rest, OPTIONS, true);
    const expected = { add: 1, list: 0, remove: 1 }[action];
    if (positionals.length !== expected)
      throw new UsageError(`helm-clusters ${action} takes ${expected} positional argument(s), got ${positionals.length}`);
    if (action !== 'add' && Object.keys(values).length > 0)
      throw new UsageError(`options belong to "helm-clusters add", not "helm-clusters ${action}"`);
    let input: AddClusterInput | undefined;
    if (action === 'add') {
      if (!values.environment || !values.namespaces) throw new UsageError('helm-clusters add needs --environment and --namespaces');
      if (values['in-cluster'] ? Boolean(values.context || values.kubeconfig) : !values.context && !values.kubeconfig)
        throw new UsageError('helm-clusters add needs --context and/or --kubeconfig, or --in-cluster alone');
      input = {
        name: positionals[0]!,
        ...(values.context ? { kubeContext: values.context } : {}),
        ...(values.kubeconfig ? { kubeconfig: values.kubeconfig } : {}),
        environment: values.environment,
        namespaces: values.namespaces
          .split(',')
          .map((n) => n.trim())
          .filter(Boolean),
      };
      // A malformed registration is a bad argument (exit 2), checked before the store is opened.
      try {
        checkClusterInput(input);
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
    }
    const store = await openStore({
      dataDir: resolveDataDir(io.env.OPSGATE_DATA_DIR),
      databaseUrl: io.env.OPSGATE_DATABASE_URL ?? '',
      migrations: [helmClustersMigration],
    });
    const audit = new AuditLog(store);
    try {
      const clusters = new ClusterRegistry(store);
      const record = (type: 'helm_cluster_added' | 'helm_cluster_removed', payload: Record<string, unknown>) =>
        audit.append({
          type,
          actor: SYSTEM_ACTOR,
          payload: { ...payload, by: LOCAL_ADMIN, via: `cli (os user ${io.env.USER ?? 'unknown'})` },
        });
      if (action === 'list') {
        for (const c of await clusters.list())
          io.stdout.write(`${c.name}\t${c.environment}\t${where(c)}\tnamespaces ${c.namespaces.join(',')}\n`);
      } else if (action === 'remove') {
        await clusters.remove(positionals[0]!);
        await record('helm_cluster_removed', { name: positionals[0] });
        io.stdout.write(`removed cluster ${positionals[0]}\n`);
      } else {
        const cluster = await clusters.add(input!);
        await record('helm_cluster_added', {
          name: cluster.name,
          ...(cluster.kubeContext ? { kubeContext: cluster.kubeContext } : {}),
          ...(cluster.kubeconfig ? { kubeconfig: cluster.kubeconfig } : {}),
          environment: cluster.environment,
          namespaces: cluster.namespaces,
        });
        io.stdout.write(
          `added cluster ${cluster.name} (${cluster.environment}, ${where(cluster)}, namespaces ${cluster.namespaces.join(',')})\n`,
        );
      }
      return 0;
    } finally {
      await audit.close();
      await store.close();
    }
  },
};
