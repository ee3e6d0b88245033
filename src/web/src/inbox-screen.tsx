import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, type Me } from './api.ts';
import { ApprovalSummary } from './approval-summary.tsx';
import { type DecidedApprovalView, inboxApi, type PendingApprovalView } from './inbox-api.ts';
import { inboxChanged, refreshInbox, useInbox } from './inbox-store.ts';

/** Codes that mean the request no longer waits: decided, withdrawn or re-planned elsewhere. */
const GONE = new Set(['APPROVAL_NOT_FOUND', 'CALL_ALREADY_DECIDED', 'NO_PENDING_INTERRUPT', 'DECISION_MISMATCH']);
const GONE_MESSAGE =
  'This request no longer waits: someone decided or withdrew it, or it was re-planned, while the page showed it. The list below is up to date.';

function decisionError(e: unknown): string {
  if (e instanceof ApiError) return GONE.has(e.code) ? GONE_MESSAGE : e.message;
  return String(e);
}

/** Who decided, in words: "alice", "rule sandbox-…", or who withdrew it. */
function decidedBy(d: DecidedApprovalView): string {
  const decision = (d.decision ?? {}) as { type?: string; by?: string };
  if (decision.type === 'withdraw') return `withdrawn by ${decision.by ?? d.requestedBy}`;
  if (d.approvedBy) return d.approvedBy.replace(/^rule:/, 'rule ').replace(/^user:/, '');
  return decision.by ?? '—';
}

/** The approver's inbox: what waits (mine to decide first), then the decided history. Live: the badge and the list read one answer. */
export function InboxScreen({ me }: { me: Me }) {
  const inbox = useInbox();
  const [decided, setDecided] = useState<DecidedApprovalView[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const pending = inbox.pending && [...inbox.pending].sort((a, b) => Number(b.mayApprove) - Number(a.mayApprove));
  const pendingKey = (inbox.pending ?? []).map((item) => item.interrupt.callId).join(',');
  // The history changes when what waits changes (a call left the list because it was decided).
  useEffect(() => {
    inboxApi.history().then(
      (history) => setDecided(history.decided),
      () => undefined,
    );
  }, [pendingKey]);
  const act = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError('');
    try {
      await work();
    } catch (e) {
      setError(decisionError(e));
    } finally {
      setBusy(false);
      inboxChanged();
      await refreshInbox();
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
            <PendingItem key={item.interrupt.callId} item={item} me={me} busy={busy} reconnects={inbox.reconnects} onAct={act} />
          ))}
        </ul>
      )}
      <h3>History</h3>
      <div class="table-scroll">
        <table class="inbox-history" data-testid="inbox-history">
          <thead>
            <tr>
              <th>Decided</th>
              <th>Tool</th>
              <th>Risk</th>
              <th>Outcome</th>
              <th>Asked by</th>
              <th>Decided by</th>
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
                <td>{decidedBy(d)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function PendingItem({
  item,
  me,
  busy,
  reconnects,
  onAct,
}: {
  item: PendingApprovalView;
  me: Me;
  busy: boolean;
  reconnects: number;
  onAct: (work: () => Promise<unknown>) => Promise<void>;
}) {
  const [reason, setReason] = useState('');
  const [stale, setStale] = useState<string | undefined>();
  const { interrupt } = item;
  const others = interrupt.eligibleApprovers.filter((name) => name !== me.username);
  // As in the session's panel: an approval that can no longer run (e.g. after a restart) says so
  // before anyone clicks, and is re-planned in its session rather than approved here. Asked again
  // after the server was unreachable, because a restart is what voids an open transaction.
  useEffect(() => {
    let current = true;
    api.approvalReadiness(item.sessionId, interrupt.callId).then(
      (readiness) => current && setStale(readiness.runnable ? undefined : readiness.message),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [item.sessionId, interrupt.callId, reconnects]);
  return (
    <li class="panel" data-testid="inbox-item" data-call-id={interrupt.callId}>
      <h3>
        <code>{interrupt.tool}</code> <span class={`risk ${interrupt.risk}`}>{interrupt.risk} risk</span>
      </h3>
      <p>
        Asked by <strong>{interrupt.requestedBy}</strong> in <a href={`#/sessions/${item.sessionId}`}>{item.title || item.agent}</a>
        {' · '}policy <code data-testid="inbox-policy">{interrupt.policyId}</code>
      </p>
      <ApprovalSummary interrupt={interrupt} />
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
