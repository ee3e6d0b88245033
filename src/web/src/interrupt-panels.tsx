import { useState } from 'preact/hooks';
import type { ContinueInterrupt, QuestionInterrupt } from '../../core/runtime/types.ts';
import type { Decision } from './api.ts';
import { PreviewView } from './preview-view.tsx';
import { RichText } from './rich-text.tsx';

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
      <div class="question-text">
        <RichText text={interrupt.question} />
      </div>
      {interrupt.context !== undefined && interrupt.context !== null && (
        <PreviewView preview={{ kind: 'context', summary: '', details: interrupt.context }} foldRaw />
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
