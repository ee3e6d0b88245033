import type { ApprovalPreview } from '../../core/tools/index.ts';

/** A unified diff, line by line, with added and removed lines marked. */
function DiffView({ text }: { text: string }) {
  return (
    <pre class="diff" data-testid="preview-diff">
      {text.split('\n').map((line, index) => (
        <span
          key={index}
          class={
            line.startsWith('+') && !line.startsWith('+++')
              ? 'add'
              : line.startsWith('-') && !line.startsWith('---')
                ? 'del'
                : line.startsWith('@@')
                  ? 'hunk'
                  : ''
          }
        >
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

function findDiff(details: unknown): string | undefined {
  if (typeof details === 'string' && /^(---|\+\+\+|@@|[-+ ])/m.test(details)) return details;
  if (details && typeof details === 'object') {
    for (const key of ['diff', 'valuesDiff', 'unifiedDiff', 'patch']) {
      const value = (details as Record<string, unknown>)[key];
      if (typeof value === 'string') return value;
    }
  }
  return undefined;
}

/** What the agent shows with an approval: a values diff, row changes, the command, a plan. */
export function PreviewView({ preview }: { preview: ApprovalPreview }) {
  const diff = findDiff(preview.details);
  const command = preview.details && typeof preview.details === 'object' ? (preview.details as Record<string, unknown>).command : undefined;
  return (
    <div class="preview" data-testid="preview">
      {preview.summary && (
        <p>
          <strong>{preview.kind}:</strong> {preview.summary}
        </p>
      )}
      {typeof command === 'string' && <pre class="command">$ {command}</pre>}
      {diff && <DiffView text={diff} />}
      {preview.details !== undefined && (
        <details open={!diff && typeof command !== 'string'}>
          <summary>Details</summary>
          <pre>{typeof preview.details === 'string' ? preview.details : JSON.stringify(preview.details, null, 2)}</pre>
        </details>
      )}
    </div>
  );
}
