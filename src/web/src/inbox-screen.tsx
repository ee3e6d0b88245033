import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, type Me } from './api.ts';
import { type DecidedApprovalView, inboxApi, type PendingApprovalView } from './inbox-api.ts';

/** The approver's inbox: what waits (mine to decide first), then the decided history. */
export function InboxScreen({ me }: { me: Me }) {
  const [pending, setPending] = useState<PendingApprovalView[] | undefined>();
  const [decided, setDecided] = useState<DecidedApprovalView[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const load = async () => {
    const [open, history] = await Promise.all([inboxApi.pending(), inboxApi.history()]);
    setPending([...open.pending].sort((a, b) => Number(b.mayApprove) - Number(a.mayApprove)));
    setDecided(history.decided);
  };
  useEffect(() => {
    load().catch((e: unknown) => setError(e instanceof ApiError ? e.message : String(e)));
  }, []);
  const act = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError('');
    try {
      await work();
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
      dispatchEvent(new Event('opsgate:inbox-changed'));
      await load().catch(() => {});
    }
  };
  return (
    <section class="inbox" aria-labelledby="inbox-title">
      <h2 id="inbox-title">Approvals</h2>
      {error && (
        <p class="error" role="alert" data-testid="inbox-error">
          {error}
        </p>
      )}
      {pending === undefined ? (
        <p class="muted">Loading…</p>
      ) : pending.length === 0 ? (
        <p class="muted" data-testid="inbox-empty">
          Nothing waits for approval.
        </p>
      ) : (
        <ul class="inbox-list">
          {pending.map((item) => (
            <PendingItem key={item.interrupt.callId} item={item} me={me} busy={busy} onAct={act} />
          ))}
        </ul>
      )}
      <h3>History</h3>
      <table class="inbox-history" data-testid="inbox-history">
        <thead>
          <tr>
            <th>Decided</th>
            <th>Tool</th>
            <th>Risk</th>
            <th>Outcome</th>
            <th>Asked by</th>
            <th>Approved by</th>
          </tr>
        </thead>
        <tbody>
          {decided.map((d) => (
            <tr key={d.callId}>
              <td>{new Date(d.decidedAt).toLocaleString()}</td>
              <td>
                <a href={`#/sessions/${d.sessionId}`}>{d.tool}</a>
              </td>
              <td>{d.risk}</td>
              <td>{d.status}</td>
              <td>{d.requestedBy}</td>
              <td>{d.approvedBy ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function PendingItem({
  item,
  me,
  busy,
  onAct,
}: {
  item: PendingApprovalView;
  me: Me;
  busy: boolean;
  onAct: (work: () => Promise<unknown>) => Promise<void>;
}) {
  const [reason, setReason] = useState('');
  const [stale, setStale] = useState<string | undefined>();
  const { interrupt } = item;
  const others = interrupt.eligibleApprovers.filter((name) => name !== me.username);
  // As in the session's panel: an approval that can no longer run (e.g. after a restart) says so
  // before anyone clicks, and is re-planned in its session rather than approved here.
  useEffect(() => {
    let current = true;
    api.approvalReadiness(item.sessionId, interrupt.callId).then(
      (readiness) => current && setStale(readiness.runnable ? undefined : readiness.message),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [item.sessionId, interrupt.callId]);
  return (
    <li class="panel" data-testid="inbox-item" data-call-id={interrupt.callId}>
      <h3>
        <code>{interrupt.tool}</code> <span class={`risk ${interrupt.risk}`}>{interrupt.risk} risk</span>
      </h3>
      <p>
        Asked by <strong>{interrupt.requestedBy}</strong> in <a href={`#/sessions/${item.sessionId}`}>{item.title || item.agent}</a>
        {' · '}policy <code data-testid="inbox-policy">{interrupt.policyId}</code>
      </p>
      <pre class="args">{JSON.stringify(interrupt.args, null, 2)}</pre>
      {stale && (
        <p class="stale" role="alert" data-testid="inbox-stale">
          {stale} <a href={`#/sessions/${item.sessionId}`}>Open the session to re-plan it.</a>
        </p>
      )}
      {stale ? null : item.mayApprove ? (
        <div class="actions">
          <button type="button" class="primary" disabled={busy} onClick={() => onAct(() => inboxApi.approve(interrupt.callId))}>
            Approve
          </button>
          <label class="sr-only" for={`reason-${interrupt.callId}`}>
            Reason
          </label>
          <input
            id={`reason-${interrupt.callId}`}
            placeholder="Reason for rejecting"
            value={reason}
            onInput={(e) => setReason(e.currentTarget.value)}
          />
          <button type="button" disabled={busy} onClick={() => onAct(() => inboxApi.reject(interrupt.callId, reason))}>
            Reject
          </button>
        </div>
      ) : (
        <p class="muted" data-testid="inbox-waiting">
          Waiting for an approver: {others.join(', ') || 'nobody under the current policy'}
        </p>
      )}
    </li>
  );
}
