import { useState } from 'preact/hooks';
import { api, errorText } from './api.ts';

/** A thumb drawn as SVG, so it shows without an emoji font. */
function Thumb({ down = false }: { down?: boolean }) {
  return (
    <svg width="16" height="16" viewBox="0 0 24 24" aria-hidden="true" style={down ? { transform: 'rotate(180deg)' } : undefined}>
      <path
        fill="currentColor"
        d="M2 21h4V9H2v12zm20-11c0-1.1-.9-2-2-2h-6.3l1-4.6v-.3c0-.4-.2-.8-.4-1.1L13.2 1 6.6 7.6C6.2 8 6 8.5 6 9v10c0 1.1.9 2 2 2h9c.8 0 1.5-.5 1.8-1.2l3-7.1c.1-.2.2-.5.2-.7v-2z"
      />
    </svg>
  );
}

/** Thumbs up/down with an optional comment, for the session or one step (AR-10). */
export function FeedbackControl({
  sessionId,
  target,
  label,
  compact = false,
}: {
  sessionId: string;
  target?: string;
  label: string;
  compact?: boolean;
}) {
  const [rating, setRating] = useState<1 | -1 | undefined>();
  const [comment, setComment] = useState('');
  const [state, setState] = useState<'idle' | 'commenting' | 'sent' | 'error'>('idle');
  const [error, setError] = useState('');
  const submit = async (value: 1 | -1, text: string) => {
    try {
      await api.feedback(sessionId, { rating: value, ...(target ? { target } : {}), ...(text.trim() ? { comment: text.trim() } : {}) });
      setState('sent');
    } catch (e) {
      setState('error');
      setError(errorText(e));
    }
  };
  if (state === 'sent') return <span class="feedback sent muted">Thanks for the feedback.</span>;
  return (
    <div class={compact ? 'feedback compact' : 'feedback'} data-testid="feedback">
      <span class="muted">{label}</span>
      <button
        type="button"
        class={rating === 1 ? 'thumb on' : 'thumb'}
        aria-label="Thumbs up"
        aria-pressed={rating === 1}
        onClick={() => {
          setRating(1);
          setState('commenting');
        }}
      >
        <Thumb />
      </button>
      <button
        type="button"
        class={rating === -1 ? 'thumb on' : 'thumb'}
        aria-label="Thumbs down"
        aria-pressed={rating === -1}
        onClick={() => {
          setRating(-1);
          setState('commenting');
        }}
      >
        <Thumb down />
      </button>
      {state === 'commenting' && rating !== undefined && (
        <form
          class="feedback-comment"
          onSubmit={(e) => {
            e.preventDefault();
            void submit(rating, comment);
          }}
        >
          <input
            aria-label="Comment (optional)"
            placeholder="Comment (optional)"
            value={comment}
            onInput={(e) => setComment(e.currentTarget.value)}
          />
          <button type="submit">Send feedback</button>
        </form>
      )}
      {state === 'error' && <span class="error">{error}</span>}
    </div>
  );
}
