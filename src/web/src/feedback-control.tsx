import { useState } from 'preact/hooks';
import { ApiError, api } from './api.ts';

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
      setError(e instanceof ApiError ? e.message : String(e));
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
        👍
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
        👎
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
