import type { ApprovalInterrupt } from '../../core/runtime/types.ts';
import { FactList, PreviewView } from './preview-view.tsx';
import { readableFields } from './readable-fields.ts';
import { RichText } from './rich-text.tsx';

/**
 * What an approver reads before deciding, the same wherever the decision is made (the session's
 * panel, the inbox): why the call has its risk, the readable preview (diff, before/after rows,
 * the command and its host), and the exact arguments behind a toggle.
 */
export function ApprovalSummary({ interrupt }: { interrupt: ApprovalInterrupt }) {
  const fields = interrupt.preview ? undefined : readableFields(interrupt.args);
  return (
    <div class="approval-summary" data-testid="approval-summary">
      {interrupt.riskReason && (
        <p class="muted" data-testid="risk-reason">
          Risk: <RichText text={interrupt.riskReason} inline />
        </p>
      )}
      {interrupt.preview && <PreviewView preview={interrupt.preview} />}
      {fields && <FactList fields={fields} />}
      <details class="raw">
        <summary>Exact arguments (JSON)</summary>
        <pre class="args" data-testid="approval-args">
          {JSON.stringify(interrupt.args, null, 2)}
        </pre>
      </details>
    </div>
  );
}
