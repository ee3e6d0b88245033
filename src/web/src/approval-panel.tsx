import { useEffect, useRef, useState } from 'preact/hooks';
import { approvalHeadline, approvalNeedsConfirmation } from '../../core/runtime/approval-title.ts';
import type { ApprovalInterrupt } from '../../core/runtime/types.ts';
import type { Decision, Me } from './api.ts';
import { ApprovalSummary } from './approval-summary.tsx';
import { flatArguments, withArgument } from './argument-changes.ts';
import { RejectForm } from './reject-form.tsx';
import { RichText } from './rich-text.tsx';

function expiresIn(expiresAt: string | undefined): string {
  if (!expiresAt) return 'does not expire';
  const minutes = Math.round((new Date(expiresAt).getTime() - Date.now()) / 60_000);
  if (minutes <= 0) return `expired at ${new Date(expiresAt).toLocaleString()}`;
  return `expires ${new Date(expiresAt).toLocaleString()} (in ${minutes >= 120 ? `${Math.round(minutes / 60)} h` : `${minutes} min`})`;
}

/** Error codes of a decision that mean the approval can no longer run as shown: the agent must plan again. */
export const STALE_APPROVAL_CODES: ReadonlySet<string> = new Set(['APPROVAL_BINDING_MISMATCH', 'APPROVAL_EXPIRED']);

type Mode = 'view' | 'reject' | 'modify' | 'confirm';

/**
 * Approve / Reject with reason / Modify the exact arguments of a pending mutable call. The panel
 * scrolls into view and takes focus when it appears; `a` approves and `r` rejects while it has
 * focus (high and critical risk ask once more, as the inbox, Slack and the CLI do); the action bar stays in view while the preview scrolls.
 * Render it with `key={callId}` so that a new approval starts with an empty form.
 */
export function ApprovalPanel({
  interrupt,
  me,
  busy,
  stale,
  stoppable = false,
  onDecide,
}: {
  interrupt: ApprovalInterrupt;
  me: Me;
  busy: boolean;
  /** Why this approval can no longer run, as the server said it (before the click, or after one failed). */
  stale?: string;
  /** The call is one step of a runbook: a Stop button ends the runbook, not just this step. */
  stoppable?: boolean;
  onDecide: (d: Decision) => void;
}) {
  const [mode, setMode] = useState<Mode>('view');
  const [edited, setEdited] = useState(() => JSON.stringify(interrupt.args, null, 2));
  const [editError, setEditError] = useState('');
  const [values, setValues] = useState<Record<string, unknown>>(() => structuredClone(interrupt.args) as Record<string, unknown>);
  const [editingJson, setEditingJson] = useState(false);
  const panel = useRef<HTMLElement>(null);
  const ownCall = interrupt.requestedBy === me.username;
  const blocked = interrupt.verdict?.verdict === 'block';
  const eligible = interrupt.eligibleApprovers ?? [];
  const mayApprove = eligible.includes(me.username);
  const approveDisabled = busy || blocked || (ownCall && !mayApprove) || stale !== undefined;
  const confirmFirst = approvalNeedsConfirmation(interrupt.risk);
  // The requester of a call he may not approve: he withdraws or changes it; approving is someone else's.
  const waitingForOthers = ownCall && !mayApprove;

  useEffect(() => {
    panel.current?.scrollIntoView({ block: 'start', behavior: 'smooth' });
    panel.current?.focus({ preventScroll: true });
  }, []);

  const approve = () => {
    if (approveDisabled) return;
    if (confirmFirst && mode !== 'confirm') setMode('confirm');
    else onDecide({ type: 'approve', callId: interrupt.callId });
  };
  const replan = () => onDecide({ type: 'replan', callId: interrupt.callId });

  return (
    <section
      class="panel approval"
      aria-labelledby="approval-title"
      data-testid="approval-panel"
      data-call-id={interrupt.callId}
      data-risk={interrupt.risk}
      tabIndex={-1}
      ref={panel}
      onKeyDown={(event) => {
        const target = event.target as HTMLElement;
        if (target.tagName === 'TEXTAREA' || target.tagName === 'INPUT' || event.ctrlKey || event.metaKey || event.altKey) return;
        if (event.key === 'a' && mode !== 'reject' && mode !== 'modify') {
          event.preventDefault();
          approve();
        } else if (event.key === 'r' && mode !== 'modify') {
          event.preventDefault();
          setMode('reject');
        }
      }}
    >
      <h3 id="approval-title" data-testid="approval-title">
        {interrupt.requestedBy} asks: {approvalHeadline(interrupt)} <span class={`risk ${interrupt.risk}`}>{interrupt.risk}</span>
      </h3>
      {/* What the agent said to the requester ("Would you like me to grant it?") is for him, not for the approver. */}
      {interrupt.text && ownCall && !waitingForOthers && (
        <div class="agent-text">
          <RichText text={interrupt.text} />
        </div>
      )}
      {waitingForOthers && (
        <div class="notice" role="note" data-testid="waiting-for-others">
          <p>
            <strong>Waiting for {eligible.join(' or ') || 'an approver (nobody may approve it under the current policy)'}.</strong>{' '}
            {eligible.length > 0 && 'They see it in their Approvals inbox.'} You cannot approve your own {interrupt.risk}-risk request.
          </p>
          <p>To change it, withdraw it, or just type what you need instead below: sending a new message withdraws this request first.</p>
        </div>
      )}
      {stale && (
        <div class="stale" role="alert" data-testid="approval-stale">
          <p>
            <strong data-testid="approval-stale-reason">{stale}</strong>
          </p>
          <p>
            {waitingForOthers
              ? `Nothing has run. Re-plan asks the agent to plan it again from the current state, and ${eligible.join(' or ') || 'an approver'} then decides on what it shows. Or withdraw it and ask again in your own words.`
              : 'Nothing has run. Re-plan voids this request and asks the agent to plan again from the current state; you then approve what it shows.'}
          </p>
        </div>
      )}
      <dl class="facts">
        <dt>Asked by</dt>
        <dd>
          {interrupt.requestedBy} at {new Date(interrupt.requestedAt).toLocaleString()}
        </dd>
        <dt>Expiry</dt>
        <dd>{expiresIn(interrupt.expiresAt)}</dd>
        {blocked && (
          <>
            <dt>Blocked</dt>
            <dd class="verdict block" data-testid="verdict">
              ✗ {interrupt.verdict?.reason}
            </dd>
          </>
        )}
        <dt>Who can approve</dt>
        <dd data-testid="eligible-approvers">
          {ownCall && !mayApprove
            ? `Waiting for an approver: ${eligible.join(', ') || 'nobody under the current policy'}`
            : eligible.join(', ') || 'nobody under the current policy'}
        </dd>
        {(interrupt.requiredApprovals ?? 1) > 1 && (
          <>
            <dt>Approvers needed</dt>
            <dd data-testid="approvals-needed">
              {interrupt.requiredApprovals}; approved so far: {(interrupt.approvals ?? []).join(', ') || 'nobody'}
            </dd>
          </>
        )}
      </dl>
      <ApprovalSummary interrupt={interrupt} />
      {/* Rule ids and policy names are for whoever opens the details, not the first read. */}
      <details class="raw" data-testid="approval-details">
        <summary>Policy and checks</summary>
        <dl class="facts">
          <dt>Policy</dt>
          <dd data-testid="approval-policy">{interrupt.policyId}</dd>
          {interrupt.verdict && !blocked && (
            <>
              <dt>Validator</dt>
              <dd class="verdict allow" data-testid="verdict">
                ✓ allowed: {interrupt.verdict.reason}
                {interrupt.verdict.rule && <span class="muted"> (rule {interrupt.verdict.rule})</span>}
              </dd>
            </>
          )}
        </dl>
      </details>
      {mode === 'modify' && (
        <form
          class="stack"
          data-testid="modify-form"
          onSubmit={(e) => {
            e.preventDefault();
            try {
              const args = editingJson ? (JSON.parse(edited) as unknown) : values;
              if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new Error('the arguments must be a JSON object');
              setEditError('');
              onDecide({ type: 'modify', callId: interrupt.callId, args: args as Record<string, unknown> });
              setMode('view');
            } catch (error) {
              setEditError(`Not valid: ${error instanceof Error ? error.message : String(error)}`);
            }
          }}
        >
          <p>
            Change the values below. The changed request is checked again, and planned again where it needs a plan; if you may not approve
            it alone, it waits for another approver.
          </p>
          {editingJson ? (
            <label>
              Arguments (JSON)
              <textarea class="code" data-testid="modify-args" rows={8} value={edited} onInput={(e) => setEdited(e.currentTarget.value)} />
            </label>
          ) : (
            <dl class="facts" data-testid="modify-values">
              {[...flatArguments(interrupt.args)]
                .filter(([, value]) => value === null || ['string', 'number', 'boolean'].includes(typeof value))
                .map(([path]) => (
                  <label key={path} class="field">
                    {path.replace(/^values\./, '')}
                    <input
                      data-testid={`modify-${path}`}
                      value={String(flatArguments(values).get(path) ?? '')}
                      onInput={(e) => setValues(withArgument(values, path, e.currentTarget.value))}
                    />
                  </label>
                ))}
            </dl>
          )}
          <button
            type="button"
            class="link"
            onClick={() => {
              setEdited(JSON.stringify(values, null, 2));
              setEditingJson(!editingJson);
            }}
          >
            {editingJson ? 'Back to the values form' : 'Edit the exact arguments (JSON)'}
          </button>
          {editError && (
            <p class="error" role="alert">
              {editError}
            </p>
          )}
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              Submit the change
            </button>
            <button type="button" onClick={() => setMode('view')}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <div class="decision-bar" data-testid="decision-bar">
        {mode === 'reject' && (
          <RejectForm
            busy={busy}
            onReject={(reason) => onDecide({ type: 'reject', callId: interrupt.callId, ...(reason ? { reason } : {}) })}
            onCancel={() => setMode('view')}
          />
        )}
        {mode === 'confirm' && (
          <div class="actions" role="alertdialog" aria-label={`Confirm a ${interrupt.risk}-risk approval`}>
            <span class="confirm-text" data-testid="confirm-text">
              {interrupt.risk === 'critical' ? 'Critical' : 'High'} risk: approve “{approvalHeadline(interrupt)}” for real?
            </span>
            <button type="button" class="danger" data-testid="confirm-approve" disabled={busy} onClick={approve}>
              Yes, approve
            </button>
            <button type="button" onClick={() => setMode('view')}>
              Cancel
            </button>
          </div>
        )}
        {mode === 'view' && waitingForOthers && (
          <div class="actions">
            {stale && (
              <button type="button" class="primary" data-testid="replan" disabled={busy} onClick={replan}>
                Re-plan
              </button>
            )}
            <button
              type="button"
              data-testid="withdraw"
              disabled={busy}
              onClick={() => onDecide({ type: 'withdraw', callId: interrupt.callId })}
            >
              Withdraw request
            </button>
          </div>
        )}
        {mode === 'view' && !waitingForOthers && (
          <div class="actions">
            {stale ? (
              <button type="button" class="primary" data-testid="replan" disabled={busy} onClick={replan}>
                Re-plan
              </button>
            ) : (
              <button type="button" class="primary" data-testid="approve" disabled={approveDisabled} onClick={approve}>
                Approve <kbd>a</kbd>
              </button>
            )}
            <button type="button" class="danger" data-testid="reject" disabled={busy} onClick={() => setMode('reject')}>
              Reject… <kbd>r</kbd>
            </button>
            <button type="button" data-testid="modify" disabled={busy || stale !== undefined} onClick={() => setMode('modify')}>
              Modify…
            </button>
            {stoppable && (
              <button
                type="button"
                class="danger"
                data-testid="stop-runbook"
                disabled={busy}
                onClick={() => onDecide({ type: 'reject', callId: interrupt.callId, reason: 'stop: the person ended the runbook' })}
              >
                Stop runbook
              </button>
            )}
          </div>
        )}
      </div>
    </section>
  );
}
