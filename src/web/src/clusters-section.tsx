import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, errorText, request } from './api.ts';

interface ClusterView {
  readonly name: string;
  readonly kubeContext?: string;
  readonly kubeconfig?: string;
  readonly environment: string;
  readonly namespaces: readonly string[];
}

const clustersApi = {
  list: () => request<{ clusters: ClusterView[] }>('GET', '/api/helm/clusters').then((a) => a.clusters),
  add: (input: { name: string; kubeContext?: string; kubeconfig?: string; environment: string; namespaces: string[] }) =>
    request('POST', '/api/helm/clusters', input),
  remove: (name: string) => request('DELETE', `/api/helm/clusters/${encodeURIComponent(name)}`),
};

const EMPTY = { name: '', kubeContext: '', kubeconfig: '', environment: 'staging', namespaces: '' };

/**
 * Admin → Helm clusters: the targets of the helm agent (kube context, optional kubeconfig path,
 * environment label, namespace allow-list). Absent when the server runs no helm agent.
 */
export function ClustersSection() {
  const [clusters, setClusters] = useState<ClusterView[] | undefined | 'absent'>();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>();
  const [form, setForm] = useState(EMPTY);
  const reload = useCallback(async () => {
    // No helm agent on this server: the routes do not exist, and neither does the section.
    if (!(await api.agents()).some((agent) => agent.name === 'helm')) setClusters('absent');
    else setClusters(await clustersApi.list());
  }, []);
  useEffect(() => {
    reload().catch((error: unknown) => setMessage({ ok: false, text: errorText(error) }));
  }, [reload]);
  const run = async (work: () => Promise<string>) => {
    try {
      setMessage({ ok: true, text: await work() });
      await reload();
    } catch (error) {
      setMessage({ ok: false, text: errorText(error) });
    }
  };
  if (clusters === 'absent') return null;
  return (
    <section class="card" aria-labelledby="clusters-title" data-testid="admin-clusters">
      <h2 id="clusters-title">Helm clusters</h2>
      <p class="muted">
        The helm agent acts only on these clusters and only in their namespaces. opsgate stores a kube context name and a kubeconfig path on
        the server, never credentials. Policies read the environment (a change to a production cluster needs someone other than its
        requester).
      </p>
      {message && (
        <p class={message.ok ? 'ok' : 'error'} role={message.ok ? 'status' : 'alert'} data-testid="clusters-message">
          {message.text}
        </p>
      )}
      {clusters === undefined ? (
        <p class="muted">Loading…</p>
      ) : clusters.length === 0 ? (
        <p class="muted">No clusters registered: the helm agent uses its configured backend and current context.</p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th>Name</th>
                <th>Environment</th>
                <th>Context</th>
                <th>Namespaces</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {clusters.map((cluster) => (
                <tr key={cluster.name} data-testid={`cluster-${cluster.name}`}>
                  <td>{cluster.name}</td>
                  <td class={`plan-target env-${cluster.environment}`}>{cluster.environment}</td>
                  <td>
                    {cluster.kubeContext ? (
                      <code>{cluster.kubeContext}</code>
                    ) : (
                      <span class="muted">{cluster.kubeconfig ? 'current context' : 'in-cluster (server default)'}</span>
                    )}
                    {cluster.kubeconfig && <span class="muted"> ({cluster.kubeconfig})</span>}
                  </td>
                  <td>{cluster.namespaces.join(', ')}</td>
                  <td>
                    <button
                      type="button"
                      onClick={() =>
                        confirm(`Remove the cluster ${cluster.name}?`) &&
                        void run(async () => {
                          await clustersApi.remove(cluster.name);
                          return `Removed the cluster ${cluster.name}.`;
                        })
                      }
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form
        class="stack"
        data-testid="add-cluster"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => {
            const name = form.name.trim();
            await clustersApi.add({
              name,
              ...(form.kubeContext.trim() ? { kubeContext: form.kubeContext.trim() } : {}),
              ...(form.kubeconfig.trim() ? { kubeconfig: form.kubeconfig.trim() } : {}),
              environment: form.environment.trim(),
              namespaces: form.namespaces
                .split(',')
                .map((n) => n.trim())
                .filter(Boolean),
            });
            setForm(EMPTY);
            return `Registered the cluster ${name}.`;
          });
        }}
      >
        <h3>Register a cluster</h3>
        <div class="filters">
          <label>
            Name
            <input required value={form.name} onInput={(e) => setForm({ ...form, name: e.currentTarget.value })} />
          </label>
          <label>
            Kube context (empty: in-cluster)
            <input value={form.kubeContext} onInput={(e) => setForm({ ...form, kubeContext: e.currentTarget.value })} />
          </label>
          <label>
            Kubeconfig path (optional)
            <input value={form.kubeconfig} onInput={(e) => setForm({ ...form, kubeconfig: e.currentTarget.value })} />
          </label>
          <label>
            Environment
            <input required value={form.environment} onInput={(e) => setForm({ ...form, environment: e.currentTarget.value })} />
          </label>
          <label>
            Namespaces (comma-separated, * for all)
            <input required value={form.namespaces} onInput={(e) => setForm({ ...form, namespaces: e.currentTarget.value })} />
          </label>
        </div>
        <div class="actions">
          <button type="submit" class="primary">
            Register cluster
          </button>
        </div>
      </form>
    </section>
  );
}
