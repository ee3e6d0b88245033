import { createHmac } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { Kysely } from 'kysely';
import { parse } from 'yaml';
import type { Clock } from '../../../core/agent/define-agent.ts';
import { OpsgateError } from '../../../core/errors/index.ts';
import type { Store } from '../../../core/store/index.ts';
import { HelmErrors } from '../errors.ts';
import type { HelmClustersDatabase, HelmClustersTable } from './cluster-migration.ts';

export interface HelmCluster {
  readonly name: string;
  /**
   * The kubeconfig context helm and kubectl use (`--kube-context` / `--context`). Absent: their
   * default, which in a pod without a kubeconfig is the in-cluster service account.
   */
  readonly kubeContext?: string;
  /** A kubeconfig file on the server; default: the server's own ($KUBECONFIG or ~/.kube/config). */
  readonly kubeconfig?: string;
  readonly environment: string;
  /** Namespaces the agent may act in; `*` allows every namespace. */
  readonly namespaces: readonly string[];
  readonly createdAt: string;
}

export interface AddClusterInput {
  readonly name: string;
  readonly kubeContext?: string;
  readonly kubeconfig?: string;
  readonly environment: string;
  readonly namespaces: readonly string[];
}

const NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const NAMESPACE = /^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?|\*)$/;
const ENVIRONMENT = /^[a-z][a-z0-9-]{0,31}$/;
// A kube context name is free text in kubeconfig; refuse only what could be read as another flag or argument.
const CONTEXT = /^[^\s-][^\s]{0,252}$/;

function toCluster(row: Omit<HelmClustersTable, 'id'> & { id: number }): HelmCluster {
  return {
    name: row.name,
    ...(row.kube_context ? { kubeContext: row.kube_context } : {}),
    ...(row.kubeconfig ? { kubeconfig: row.kubeconfig } : {}),
    environment: row.environment,
    namespaces: JSON.parse(row.namespaces) as string[],
    createdAt: row.created_at,
  };
}

/** Checks a registration; every refusal says which field and what it must look like. */
export function checkClusterInput(input: AddClusterInput): void {
  const invalid = (detail: string) => HelmErrors.HELM_CLUSTER_INPUT_INVALID({ detail });
  if (!NAME.test(input.name)) throw invalid(`the name "${input.name}" must be 1-63 lower-case letters, digits or "-".`);
  if (input.kubeContext !== undefined && !CONTEXT.test(input.kubeContext))
    throw invalid(`the kube context "${input.kubeContext}" must be non-empty, without spaces, not starting with "-".`);
  if (input.kubeconfig !== undefined && !input.kubeconfig.startsWith('/'))
    throw invalid(`the kubeconfig "${input.kubeconfig}" must be an absolute path on the server.`);
  if (!ENVIRONMENT.test(input.environment))
    throw invalid(`the environment "${input.environment}" must be a lower-case label such as production, staging or dev.`);
  if (input.namespaces.length === 0) throw invalid('at least one namespace is needed (or "*" for all).');
  const bad = input.namespaces.find((namespace) => !NAMESPACE.test(namespace));
  if (bad !== undefined) throw invalid(`the namespace "${bad}" is not a Kubernetes namespace name (or "*").`);
}

const KUBECONFIG_MAX_BYTES = 1024 * 1024;

/**
 * The kubeconfig must be one (a YAML file with `kind: Config`): helm and kubectl quote parts of a
 * file they cannot read in their errors, and those reach the model and the audit, so a path to any
 * other file on the server would leak it. The refusal never quotes the file.
 */
function checkKubeconfigFile(path: string): void {
  const invalid = (why: string) => HelmErrors.HELM_CLUSTER_INPUT_INVALID({ detail: `the kubeconfig ${path} ${why}.` });
  let text: string;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw invalid('is not a regular file');
    if (stat.size > KUBECONFIG_MAX_BYTES) throw invalid('is larger than 1 MiB, which no kubeconfig is');
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (OpsgateError.isInstance(error)) throw error;
    throw invalid(`cannot be read by the opsgate server (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let document: unknown;
  try {
    document = parse(text);
  } catch {
    document = undefined;
  }
  if (!document || typeof document !== 'object' || (document as { kind?: unknown }).kind !== 'Config')
    throw invalid('is not a kubeconfig (a YAML file with "kind: Config")');
}

/** Target clusters of the helm agent, in the opsgate store. No credentials: a context name and a kubeconfig path. */
export class ClusterRegistry {
  readonly #db: Kysely<HelmClustersDatabase>;
  readonly #clock: Clock;

  constructor(store: Store, clock: Clock = { now: () => new Date() }) {
    this.#db = store.db.withTables<HelmClustersDatabase>() as unknown as Kysely<HelmClustersDatabase>;
    this.#clock = clock;
  }

  async add(input: AddClusterInput): Promise<HelmCluster> {
    checkClusterInput(input);
    if (input.kubeconfig !== undefined) checkKubeconfigFile(input.kubeconfig);
    if (await this.find(input.name)) throw HelmErrors.HELM_CLUSTER_EXISTS({ cluster: input.name });
    await this.#db
      .insertInto('helm_clusters')
      .values({
        name: input.name,
        kube_context: input.kubeContext ?? null,
        kubeconfig: input.kubeconfig ?? null,
        environment: input.environment,
        namespaces: JSON.stringify([...new Set(input.namespaces)].sort()),
        created_at: this.#clock.now().toISOString(),
      })
      .execute();
    return (await this.find(input.name))!;
  }

  async find(name: string): Promise<HelmCluster | undefined> {
    const row = await this.#db.selectFrom('helm_clusters').selectAll().where('name', '=', name).executeTakeFirst();
    return row ? toCluster(row) : undefined;
  }

  async list(): Promise<HelmCluster[]> {
    return (await this.#db.selectFrom('helm_clusters').selectAll().orderBy('name').execute()).map(toCluster);
  }

  async remove(name: string): Promise<void> {
    const result = await this.#db.deleteFrom('helm_clusters').where('name', '=', name).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw HelmErrors.HELM_CLUSTER_UNKNOWN({ cluster: name, detail: 'there is nothing to remove' });
  }
}

/**
 * The cluster a call targets: the named one, or the only registered one when none is named.
 * Throws HELM_CLUSTER_UNKNOWN (unknown name, or several registered and none named) and
 * HELM_NAMESPACE_NOT_ALLOWED. With no cluster registered there is no target (the agent's own backend).
 */
export function resolveCluster(
  clusters: readonly HelmCluster[],
  requested: string | undefined,
  namespace: string | undefined,
): HelmCluster | undefined {
  const names = clusters.map((c) => c.name).join(', ');
  if (clusters.length === 0) {
    if (requested === undefined) return undefined;
    throw HelmErrors.HELM_CLUSTER_UNKNOWN({
      cluster: requested,
      detail: 'no cluster is registered; omit "cluster" to use the default one',
    });
  }
  let cluster: HelmCluster | undefined;
  if (requested === undefined) {
    if (clusters.length > 1)
      throw HelmErrors.HELM_CLUSTER_UNKNOWN({ cluster: '', detail: `several clusters are registered (${names}); name one in "cluster"` });
    cluster = clusters[0];
  } else {
    cluster = clusters.find((c) => c.name === requested);
    if (!cluster) throw HelmErrors.HELM_CLUSTER_UNKNOWN({ cluster: requested, detail: `the registered clusters are ${names}` });
  }
  if (namespace !== undefined && !cluster!.namespaces.includes('*') && !cluster!.namespaces.includes(namespace)) {
    throw HelmErrors.HELM_NAMESPACE_NOT_ALLOWED({ namespace, cluster: cluster!.name, allowed: cluster!.namespaces.join(', ') });
  }
  return cluster;
}

/**
 * What stands behind a cluster's name (its context, kubeconfig path and environment), as a keyed
 * digest. Plans carry it, so an approval given for `prod-eu` does not run after `prod-eu` was
 * re-registered to point elsewhere. Keyed (the agent's redaction key, shared by replicas) so the
 * plan, which the model and the browser see, cannot be used to confirm a guessed context or path.
 */
export function registrationDigest(cluster: HelmCluster, key: string): string {
  const registration = JSON.stringify([cluster.name, cluster.kubeContext ?? null, cluster.kubeconfig ?? null, cluster.environment]);
  return `hmac-sha256:${createHmac('sha256', key).update(registration).digest('hex').slice(0, 32)}`;
}
