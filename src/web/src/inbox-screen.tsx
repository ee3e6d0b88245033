import { useEffect, useState } from 'preact/hooks';
import { approvalHeadline, approvalNeedsConfirmation } from '../../core/runtime/approval-title.ts';
import { ApiError, api, type Me } from './api.ts';
import { ApprovalSummary } from './approval-summary.tsx';
import { type DecidedApprovalView, inboxApi, type PendingApprovalView } from './inbox-api.ts';
import { inboxChanged, refreshInbox, useInbox } from './inbox-store.ts';
import { OfflineBanner } from './offline-banner.tsx';
import { previewNote } from './preview-view.tsx';
import { RejectForm } from './reject-form.tsx';
import { askedAndExpiry } from './relative-time.ts';

/** Codes that mean the request no longer waits: decided, withdrawn or re-planned elsewhere. */
const GONE = new Set(['APPROVAL_NOT_FOUND', 'CALL_ALREADY_DECIDED', 'NO_PENDING_INTERRUPT', 'DECISION_MISMATCH']);
const GONE_MESSAGE =
  'This request no longer waits: someone decided or withdrew it, or it was re-planned, while the page showed it. The list below is up to date.';

function decisionError(e: unknown): string {
  if (e instanceof ApiError) return GONE.has(e.code) ? GONE_MESSAGE : e.message;
  return String(e);
}

/** The outcome in words: a withdrawal is not a rejection. */
function outcomeOf(d: DecidedApprovalView): string {
  return (d.decision as { type?: string } | undefined)?.type === 'withdraw' ? 'withdrawn' : d.status;
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
  const [feedback, setFeedback] = useState('');
  const [showRuleSteps, setShowRuleSteps] = useState(false);
  const pending = inbox.pending && [...inbox.pending].sort((a, b) => Number(b.mayApprove) - Number(a.mayApprove));
  const pendingKey = (inbox.pending ?? []).map((item) => item.interrupt.callId).join(',');
  // The history changes when what waits changes (a call left the list because it was decided).
  useEffect(() => {
    inboxApi.history().then(
      (history) => setDecided(history.decided),
      () => undefined,
    );
  }, [pendingKey]);
  // "Cannot reach the server" is about a moment that has passed once the server answers again.
  useEffect(() => setError(''), [inbox.reconnects]);
  const act = async (work: () => Promise<unknown>, done: string) => {
    setBusy(true);
    setError('');
    setFeedback('');
    try {
      await work();
      setFeedback(done);
    } catch (e) {
      setError(decisionError(e));
    } finally {
      setBusy(false);
      inboxChanged();
      await refreshInbox();
    }
  };
  // Steps a rule approved (the sandbox's staging) are machine work; people look for people's decisions.
  const history = showRuleSteps ? decided : decided.filter((d) => !d.approvedBy?.startsWith('rule:'));
  return (
    <section class="inbox" aria-labelledby="inbox-title">
      <OfflineBanner connected={!inbox.offline} />
      <h2 id="inbox-title">Approvals</h2>
      {feedback && (
        <p class="notice" role="status" data-testid="inbox-feedback">
          {feedback}
        </p>
      )}
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
      <label class="inline">
        <input
          type="checkbox"
          data-testid="history-rule-steps"
          checked={showRuleSteps}
          onChange={(e) => setShowRuleSteps(e.currentTarget.checked)}
        />{' '}
        Also show steps a rule approved
      </label>
      {history.length === 0 ? (
        <p class="muted" data-testid="inbox-history-empty">
          Nothing decided yet{showRuleSteps ? '' : ' by a person'}.
        </p>
      ) : (
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
              {history.map((d) => (
                <tr key={d.callId}>
                  <td>{new Date(d.decidedAt).toLocaleString()}</td>
                  <td>
                    <a href={`#/sessions/${d.sessionId}`}>{d.tool.replace(/_/g, ' ')}</a>
                  </td>
                  <td>{d.risk}</td>
                  <td>{outcomeOf(d)}</td>
                  <td>{d.requestedBy}</td>
                  <td>{decidedBy(d)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

type ItemMode = 'view' | 'confirm' | 'reject';

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
  onAct: (work: () => Promise<unknown>, done: string) => Promise<void>;
}) {
  const [mode, setMode] = useState<ItemMode>('view');
  const [stale, setStale] = useState<string | undefined>();
  const { interrupt } = item;
  const headline = approvalHeadline(interrupt);
  const note = previewNote(interrupt.preview);
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
  // Back to Approve / Reject afterwards: a failed attempt starts again from the top, confirmation included.
  const approve = () =>
    onAct(
      () => inboxApi.approve(interrupt.callId),
      `Approved: ${interrupt.requestedBy}'s “${headline}”. It runs now; they see the result.`,
    ).then(() => setMode('view'));
  return (
    <li class="panel" data-testid="inbox-item" data-call-id={interrupt.callId} data-risk={interrupt.risk}>
      <h3 data-testid="inbox-title">
        {interrupt.requestedBy} asks: {headline} <span class={`risk ${interrupt.risk}`}>{interrupt.risk}</span>
      </h3>
      <p class="muted">
        <span data-testid="inbox-when">{askedAndExpiry(interrupt.requestedAt, interrupt.expiresAt)}</span>
        {' · '}
        <a href={`#/sessions/${item.sessionId}`}>open the session</a>
      </p>
      {note && (
        <p class="notice" role="note" data-testid="plan-note">
          {note}
        </p>
      )}
      <ApprovalSummary interrupt={interrupt} />
      <details class="raw">
        <summary>Policy</summary>
        <p>
          <code data-testid="inbox-policy">{interrupt.policyId}</code> · session “{item.title || item.agent}”
        </p>
      </details>
      {stale && (
        <p class="stale" role="alert" data-testid="inbox-stale">
          {stale} <a href={`#/sessions/${item.sessionId}`}>Open the session to re-plan it.</a>
        </p>
      )}
      {stale ? null : item.mayApprove ? (
        <div class="decision-bar">
          {mode === 'view' && (
            <div class="actions">
              <button
                type="button"
                class="primary"
                data-testid="inbox-approve"
                disabled={busy}
                onClick={() => (approvalNeedsConfirmation(interrupt.risk) ? setMode('confirm') : approve())}
              >
                Approve
              </button>
              <button type="button" class="danger" data-testid="inbox-reject" disabled={busy} onClick={() => setMode('reject')}>
                Reject…
              </button>
            </div>
          )}
          {mode === 'confirm' && (
            <div class="actions" role="alertdialog" aria-label={`Confirm a ${interrupt.risk}-risk approval`}>
              <span class="confirm-text" data-testid="inbox-confirm-text">
                {interrupt.risk === 'critical' ? 'Critical' : 'High'} risk: approve “{headline}” for real?
              </span>
              <button type="button" class="danger" data-testid="inbox-confirm-approve" disabled={busy} onClick={approve}>
                Yes, approve
              </button>
              <button type="button" onClick={() => setMode('view')}>
                Cancel
              </button>
            </div>
          )}
          {mode === 'reject' && (
            <RejectForm
              busy={busy}
              testIdPrefix="inbox-"
              onReject={(reason) =>
                void onAct(
                  () => inboxApi.reject(interrupt.callId, reason ?? ''),
                  `Rejected: ${interrupt.requestedBy}'s “${headline}”. They are told who rejected it and why.`,
                )
              }
              onCancel={() => setMode('view')}
            />
          )}
        </div>
      ) : (
        <p class="muted" data-testid="inbox-waiting">
          Waiting for an approver: {others.join(', ') || 'nobody under the current policy'}
        </p>
      )}
    </li>
  );
}
