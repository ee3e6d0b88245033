import type { HelmMcpClient } from '../mcp/mcp-client.ts';
import { type ClusterRegistry, type HelmCluster, resolveCluster } from './cluster-registry.ts';

/** What a call targets, for Cedar: the cluster's name and environment label. */
export interface ClusterTarget {
  readonly name: string;
  readonly environment: string;
}

/** The MCP client a call goes to, and the registered cluster behind it (absent: the default backend). */
export interface HelmTarget {
  readonly client: HelmMcpClient;
  readonly cluster?: HelmCluster;
}

/** Opens the Helm MCP client for one registered cluster (its own backend and HelmService). */
export type OpenClusterClient = (cluster: HelmCluster) => Promise<HelmMcpClient>;

function clientKey(cluster: HelmCluster): string {
  return JSON.stringify([cluster.name, cluster.kubeContext ?? '', cluster.kubeconfig ?? '', cluster.environment]);
}

/**
 * Routes each tool call to its cluster. The registry is read on every call, so a cluster added or
 * removed by an admin (CLI or REST) counts at once; with none registered every call goes to the
 * agent's default backend, as before clusters existed.
 */
export class HelmTargets {
  readonly #registry: ClusterRegistry;
  readonly #fallback: HelmMcpClient;
  readonly #open: OpenClusterClient;
  readonly #clients = new Map<string, Promise<HelmMcpClient>>();
  /** The clusters as last read; `policyTarget` is synchronous (the policy asks without awaiting). */
  #known: readonly HelmCluster[] = [];

  constructor(registry: ClusterRegistry, fallback: HelmMcpClient, open: OpenClusterClient) {
    this.#registry = registry;
    this.#fallback = fallback;
    this.#open = open;
  }

  /** Reads the registry once at start-up so the policy knows the clusters before the first call. */
  async refresh(): Promise<readonly HelmCluster[]> {
    this.#known = await this.#registry.list();
    return this.#known;
  }

  /** The target of a call; HELM_CLUSTER_UNKNOWN / HELM_NAMESPACE_NOT_ALLOWED when it may not go there. */
  async resolve(cluster: string | undefined, namespace: string | undefined): Promise<HelmTarget> {
    const chosen = resolveCluster(await this.refresh(), cluster, namespace);
    if (!chosen) return { client: this.#fallback };
    const key = clientKey(chosen);
    let client = this.#clients.get(key);
    if (!client) {
      client = this.#open(chosen);
      this.#clients.set(key, client);
      // A failed open is not kept: the next call tries again.
      client.catch(() => this.#clients.delete(key));
    }
    return { client: await client, cluster: chosen };
  }

  /**
   * The cluster a call names (or the only one) with its environment, from the last read of the
   * registry; undefined when no cluster is registered or the name is unknown (the call is refused
   * by `resolve` then).
   */
  policyTarget(cluster: string | undefined): ClusterTarget | undefined {
    const chosen =
      cluster === undefined ? (this.#known.length === 1 ? this.#known[0] : undefined) : this.#known.find((c) => c.name === cluster);
    return chosen ? { name: chosen.name, environment: chosen.environment } : undefined;
  }

  /**
   * What the model is told about the targets (names, environments, namespaces; never a context
   * or kubeconfig path): undefined with none registered.
   */
  describe(): string | undefined {
    if (this.#known.length === 0) return undefined;
    const lines = this.#known.map((c) => `- ${c.name} (${c.environment}; namespaces ${c.namespaces.join(', ')})`);
    const choice =
      this.#known.length === 1
        ? 'It is the default target; "cluster" may be omitted.'
        : 'Pass "cluster" on every tool call; ask the user which cluster when the request does not say.';
    return ['Registered clusters (the only targets; other namespaces are refused):', ...lines, choice].join('\n');
  }

  async close(): Promise<void> {
    const clients = await Promise.allSettled(this.#clients.values());
    this.#clients.clear();
    for (const client of clients) if (client.status === 'fulfilled') await client.value.close();
    await this.#fallback.close();
  }
}
