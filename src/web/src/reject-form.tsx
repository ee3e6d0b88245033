import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * Reject with a reason, the same in the session's approval panel and on an inbox card: the box
 * takes focus when it opens, the reason is trimmed, and an empty one is sent as none.
 * `testIdPrefix` keeps each surface's test ids apart (`reject-reason`, `inbox-reject-reason`).
 */
export function RejectForm({
  busy,
  testIdPrefix = '',
  onReject,
  onCancel,
}: {
  busy: boolean;
  testIdPrefix?: string;
  onReject: (reason: string | undefined) => void;
  onCancel: () => void;
}) {
  const [reason, setReason] = useState('');
  const reasonBox = useRef<HTMLTextAreaElement>(null);
  useEffect(() => reasonBox.current?.focus(), []);
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault();
        onReject(reason.trim() || undefined);
      }}
    >
      <label>
        Why reject? (the requester, the agent and the audit log read this)
        <textarea
          ref={reasonBox}
          data-testid={`${testIdPrefix}reject-reason`}
          rows={2}
          value={reason}
          onInput={(e) => setReason(e.currentTarget.value)}
        />
      </label>
      <div class="actions">
        <button type="submit" class="danger" data-testid={`${testIdPrefix}reject-submit`} disabled={busy}>
          Reject
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
