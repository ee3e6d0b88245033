import { useCallback, useEffect, useState } from 'preact/hooks';
import { errorText, request } from './api.ts';
import { DiffView } from './diff-view.tsx';

/** A changed MCP gateway tool definition, as the server's review route gives it. */
interface ToolChangeView {
  readonly upstream: string;
  readonly tool: string;
  readonly changedAt: string;
  readonly changedHash: string;
  readonly diff: string;
  readonly markers: readonly string[];
}

const toolChangesApi = {
  list: () => request<{ gateway: boolean; changes: ToolChangeView[] }>('GET', '/api/gateway/tool-changes'),
  accept: (change: ToolChangeView) =>
    request('POST', '/api/gateway/tool-changes/accept', { upstream: change.upstream, tool: change.tool, changedHash: change.changedHash }),
};

/**
 * Admin → MCP tool changes (F3): a gateway upstream changed a tool's definition since it was
 * accepted, so the gateway holds the tool back. The admin reads the diff (description, schemas,
 * annotations; escapes shown as \uXXXX) and accepts exactly that definition. Absent when this
 * server runs no gateway.
 */
export function ToolChangesSection() {
  const [changes, setChanges] = useState<ToolChangeView[] | undefined | 'absent'>();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>();
  const reload = useCallback(async () => {
    const answer = await toolChangesApi.list();
    // This server runs no gateway: nothing to review, and no section.
    setChanges(answer.gateway ? answer.changes : 'absent');
  }, []);
  useEffect(() => {
    reload().catch((error: unknown) => setMessage({ ok: false, text: errorText(error) }));
  }, [reload]);
  if (changes === 'absent') return null;
  const accept = async (change: ToolChangeView) => {
    try {
      await toolChangesApi.accept(change);
      setMessage({ ok: true, text: `Accepted the new definition of ${change.upstream}/${change.tool}; the gateway offers it again.` });
      await reload();
    } catch (error) {
      setMessage({ ok: false, text: errorText(error) });
    }
  };
  return (
    <section class="card" aria-labelledby="tool-changes-title" data-testid="admin-tool-changes">
      <h2 id="tool-changes-title">MCP tool changes</h2>
      <p class="muted">
        An upstream MCP server changed these tools since they were accepted, so the gateway neither offers nor calls them. A changed
        description is what a model reads: accept only a change you understand.
      </p>
      {message && (
        <p class={message.ok ? 'ok' : 'error'} role={message.ok ? 'status' : 'alert'} data-testid="tool-changes-message">
          {message.text}
        </p>
      )}
      {changes === undefined ? (
        <p class="muted">Loading…</p>
      ) : changes.length === 0 ? (
        <p class="muted">No changed tool waits for review.</p>
      ) : (
        changes.map((change) => (
          <article key={`${change.upstream}/${change.tool}`} class="stack" data-testid={`tool-change-${change.upstream}-${change.tool}`}>
            <h3>
              {change.upstream}/{change.tool} <span class="muted">changed {new Date(change.changedAt).toLocaleString()}</span>
            </h3>
            {change.markers.length > 0 && (
              <p class="error" data-testid="tool-change-markers">
                Prompt-injection markers in the new text: {change.markers.join(', ')}
              </p>
            )}
            <DiffView text={change.diff} title="Accepted → changed definition" />
            <div class="actions">
              <button
                type="button"
                class="primary"
                onClick={() => confirm(`Accept the new definition of ${change.upstream}/${change.tool}?`) && void accept(change)}
              >
                Accept this definition
              </button>
            </div>
          </article>
        ))
      )}
    </section>
  );
}
