import { useState } from 'preact/hooks';
import type { ApprovalInterrupt, ContinueInterrupt, QuestionInterrupt } from '../../core/runtime/types.ts';
import type { Decision, Me } from './api.ts';
import { PreviewView } from './preview-view.tsx';

function expiresIn(expiresAt: string | undefined): string {
  if (!expiresAt) return 'does not expire';
  const minutes = Math.round((new Date(expiresAt).getTime() - Date.now()) / 60_000);
  if (minutes <= 0) return `expired at ${new Date(expiresAt).toLocaleString()}`;
  return `expires ${new Date(expiresAt).toLocaleString()} (in ${minutes >= 120 ? `${Math.round(minutes / 60)} h` : `${minutes} min`})`;
}

/** Approve / Reject with reason / Modify the exact arguments of a pending mutable call. */
export function ApprovalPanel({
  interrupt,
  me,
  busy,
  onDecide,
}: {
  interrupt: ApprovalInterrupt;
  me: Me;
  busy: boolean;
  onDecide: (d: Decision) => void;
}) {
  const [mode, setMode] = useState<'view' | 'reject' | 'modify'>('view');
  const [reason, setReason] = useState('');
  const [edited, setEdited] = useState(() => JSON.stringify(interrupt.args, null, 2));
  const [editError, setEditError] = useState('');
  const ownCall = interrupt.requestedBy === me.username;
  const blocked = interrupt.verdict?.verdict === 'block';
  const approveDisabled = busy || blocked || (interrupt.fourEyes && ownCall);
  return (
    <section class="panel approval" aria-labelledby="approval-title" data-testid="approval-panel">
      <h3 id="approval-title">
        Approval needed: <code>{interrupt.tool}</code> <span class={`risk ${interrupt.risk}`}>{interrupt.risk} risk</span>
      </h3>
      {interrupt.riskReason && (
        <p class="muted" data-testid="risk-reason">
          Risk: {interrupt.riskReason}
        </p>
      )}
      {interrupt.text && <p>{interrupt.text}</p>}
      <dl class="facts">
        <dt>Asked by</dt>
        <dd>
          {interrupt.requestedBy} at {new Date(interrupt.requestedAt).toLocaleString()}
        </dd>
        <dt>Expiry</dt>
        <dd>{expiresIn(interrupt.expiresAt)}</dd>
        {interrupt.verdict && (
          <>
            <dt>Validator</dt>
            <dd class={`verdict ${interrupt.verdict.verdict}`} data-testid="verdict">
              {interrupt.verdict.verdict === 'allow' ? '✓ allowed' : '✗ blocked'}: {interrupt.verdict.reason}
              {interrupt.verdict.rule && <span class="muted"> (rule {interrupt.verdict.rule})</span>}
            </dd>
          </>
        )}
        {interrupt.fourEyes && (
          <>
            <dt>Four eyes</dt>
            <dd>{ownCall ? 'You asked for this call: another approver must decide it.' : 'The requester cannot approve this call.'}</dd>
          </>
        )}
      </dl>
      {interrupt.preview && <PreviewView preview={interrupt.preview} />}
      <h4>Exact arguments</h4>
      <pre class="args" data-testid="approval-args">
        {JSON.stringify(interrupt.args, null, 2)}
      </pre>
      {mode === 'reject' && (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            onDecide({ type: 'reject', callId: interrupt.callId, ...(reason.trim() ? { reason: reason.trim() } : {}) });
          }}
        >
          <label>
            Why reject? (the agent reads this)
            <textarea data-testid="reject-reason" rows={2} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
          </label>
          <div class="actions">
            <button type="submit" class="danger" disabled={busy}>
              Reject
            </button>
            <button type="button" onClick={() => setMode('view')}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {mode === 'modify' && (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            try {
              const args = JSON.parse(edited) as unknown;
              if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new Error('the arguments must be a JSON object');
              setEditError('');
              onDecide({ type: 'modify', callId: interrupt.callId, args: args as Record<string, unknown> });
              setMode('view');
            } catch (error) {
              setEditError(`Not valid: ${error instanceof Error ? error.message : String(error)}`);
            }
          }}
        >
          <label>
            Edit the arguments (JSON). They are validated again on the server; if valid, the changed call runs as approved by you.
            <textarea class="code" data-testid="modify-args" rows={8} value={edited} onInput={(e) => setEdited(e.currentTarget.value)} />
          </label>
          {editError && (
            <p class="error" role="alert">
              {editError}
            </p>
          )}
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              Submit changed arguments
            </button>
            <button type="button" onClick={() => setMode('view')}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {mode === 'view' && (
        <div class="actions">
          <button
            type="button"
            class="primary"
            data-testid="approve"
            disabled={approveDisabled}
            onClick={() => onDecide({ type: 'approve', callId: interrupt.callId })}
          >
            Approve
          </button>
          <button type="button" class="danger" data-testid="reject" disabled={busy} onClick={() => setMode('reject')}>
            Reject…
          </button>
          <button type="button" data-testid="modify" disabled={busy} onClick={() => setMode('modify')}>
            Modify…
          </button>
        </div>
      )}
    </section>
  );
}

/** The agent asks (AR-13): Yes / No / Skip / Custom. */
export function QuestionPanel({
  interrupt,
  busy,
  onDecide,
}: {
  interrupt: QuestionInterrupt;
  busy: boolean;
  onDecide: (d: Decision) => void;
}) {
  const [custom, setCustom] = useState('');
  const offered = new Set(interrupt.options.map((o) => o.toLowerCase()));
  const standard = (['yes', 'no', 'skip'] as const).filter((o) => offered.size === 0 || offered.has(o));
  const allowCustom = offered.size === 0 || offered.has('custom');
  return (
    <section class="panel question" aria-labelledby="question-title" data-testid="question-panel">
      <h3 id="question-title">The agent asks</h3>
      <p class="question-text">{interrupt.question}</p>
      {interrupt.context !== undefined && interrupt.context !== null && (
        <PreviewView preview={{ kind: 'context', summary: '', details: interrupt.context }} />
      )}
      <div class="actions">
        {standard.map((option) => (
          <button
            type="button"
            key={option}
            data-testid={`answer-${option}`}
            class={option === 'yes' ? 'primary' : ''}
            disabled={busy}
            onClick={() => onDecide({ type: 'answer', callId: interrupt.callId, answer: option })}
          >
            {option[0]!.toUpperCase() + option.slice(1)}
          </button>
        ))}
      </div>
      {allowCustom && (
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (custom.trim()) onDecide({ type: 'answer', callId: interrupt.callId, answer: { custom: custom.trim() } });
          }}
        >
          <label class="grow">
            <span class="sr-only">Custom answer</span>
            <input
              data-testid="answer-custom"
              placeholder="Or type your own answer"
              value={custom}
              onInput={(e) => setCustom(e.currentTarget.value)}
            />
          </label>
          <button type="submit" disabled={busy || !custom.trim()}>
            Answer
          </button>
        </form>
      )}
    </section>
  );
}

/** A command passed its soft timeout (AR-12): read what it printed so far and go on. */
export function ContinuePanel({
  interrupt,
  busy,
  onDecide,
}: {
  interrupt: ContinueInterrupt;
  busy: boolean;
  onDecide: (d: Decision) => void;
}) {
  return (
    <section class="panel continue" data-testid="continue-panel">
      <h3>
        <code>{interrupt.tool}</code> is still running
      </h3>
      <p>{interrupt.message}</p>
      <button type="button" class="primary" disabled={busy} onClick={() => onDecide({ type: 'continue', callId: interrupt.callId })}>
        Read Output &amp; Continue
      </button>
    </section>
  );
}
