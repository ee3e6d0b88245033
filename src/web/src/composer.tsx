import { useState } from 'preact/hooks';

const draftKey = (sessionId: string) => `opsgate.draft.${sessionId}`;

function readDraft(sessionId: string): string {
  try {
    return localStorage.getItem(draftKey(sessionId)) ?? '';
  } catch {
    return '';
  }
}

function writeDraft(sessionId: string, text: string): void {
  try {
    if (text) localStorage.setItem(draftKey(sessionId), text);
    else localStorage.removeItem(draftKey(sessionId));
  } catch {
    // Storage may be disabled (private mode); the draft then lives only in this page.
  }
}

/**
 * The message box. Text stays until the server accepted it: a failed send (offline, server down)
 * keeps it, and a draft survives a reload (kept per session in localStorage).
 */
export function Composer({
  sessionId,
  disabled,
  placeholder,
  onSend,
}: {
  sessionId: string;
  disabled: boolean;
  /** Says what typing does while the session waits for a decision. */
  placeholder?: string | undefined;
  /** Resolves true when the message was accepted. */
  onSend: (text: string) => Promise<boolean>;
}) {
  const [text, setText] = useState(() => readDraft(sessionId));
  // Stored as it is typed, not in an effect: a reload right after typing must not lose it.
  const update = (next: string) => {
    setText(next);
    writeDraft(sessionId, next);
  };
  return (
    <form
      class="composer"
      onSubmit={async (event) => {
        event.preventDefault();
        const message = text.trim();
        if (!message || disabled) return;
        if (await onSend(message)) {
          setText((current) => {
            const next = current.trim() === message ? '' : current;
            writeDraft(sessionId, next);
            return next;
          });
        }
      }}
    >
      <label class="sr-only" for="message">
        Message
      </label>
      <textarea
        id="message"
        rows={2}
        value={text}
        placeholder={placeholder ?? 'Ask the agent… (Enter to send, Shift+Enter for a new line)'}
        onInput={(e) => update(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey) {
            e.preventDefault();
            e.currentTarget.form?.requestSubmit();
          }
        }}
      />
      <button type="submit" class="primary" disabled={disabled || !text.trim()}>
        Send
      </button>
    </form>
  );
}
