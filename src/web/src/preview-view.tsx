import type { ApprovalPreview } from '../../core/tools/index.ts';
import { DiffView } from './diff-view.tsx';
import { readableFields } from './readable-fields.ts';
import { asChangePreview, RowChangesView } from './row-changes.tsx';

function findDiff(details: unknown): string | undefined {
  if (typeof details === 'string' && /^(---|\+\+\+|@@)/m.test(details)) return details;
  if (details && typeof details === 'object') {
    for (const key of ['diff', 'valuesDiff', 'unifiedDiff', 'patch']) {
      const value = (details as Record<string, unknown>)[key];
      if (typeof value === 'string' && value.trim()) return value;
    }
  }
  return undefined;
}

interface HelmPlanView {
  readonly manifestDiff?: string;
  readonly valueChanges?: ReadonlyArray<{ path: string; from?: unknown; to?: unknown; before?: unknown; after?: unknown }>;
  readonly resources?: Readonly<Record<'create' | 'change' | 'delete' | 'unchanged', readonly string[]>>;
  readonly risks?: readonly string[];
  /** The registered cluster the plan targets (absent with none registered). */
  readonly cluster?: { readonly name: string; readonly environment: string };
}

function helmPlanOf(details: unknown): { plan: HelmPlanView; note?: string } | undefined {
  if (!details || typeof details !== 'object') return undefined;
  const record = details as { plan?: unknown; note?: unknown };
  if (!record.plan || typeof record.plan !== 'object') return undefined;
  return { plan: record.plan as HelmPlanView, ...(typeof record.note === 'string' ? { note: record.note } : {}) };
}

/**
 * The backend's note on a plan ("SIMULATION: …"). Not part of the preview: the session page says it
 * once in its banner, and an inbox card, which has no banner, says it once above the preview.
 */
export function previewNote(preview: ApprovalPreview | undefined): string | undefined {
  return preview ? helmPlanOf(preview.details)?.note : undefined;
}

function HelmPlan({ plan }: { plan: HelmPlanView }) {
  const resources = plan.resources;
  return (
    <div class="helm-plan" data-testid="helm-plan">
      {plan.cluster && (
        <p class={`plan-target env-${plan.cluster.environment}`} data-testid="plan-cluster">
          Cluster <strong>{plan.cluster.name}</strong> ({plan.cluster.environment})
        </p>
      )}
      {resources && (
        <ul class="resource-summary">
          {(['create', 'change', 'delete'] as const).map((kind) =>
            resources[kind]?.length ? (
              <li key={kind} class={kind}>
                {kind === 'create' ? 'creates' : kind === 'change' ? 'changes' : 'deletes'}: {resources[kind].join(', ')}
              </li>
            ) : null,
          )}
        </ul>
      )}
      {plan.risks && plan.risks.length > 0 && (
        <ul class="risks">
          {plan.risks.map((risk) => (
            <li key={risk}>⚠ {risk}</li>
          ))}
        </ul>
      )}
      {plan.manifestDiff ? <DiffView text={plan.manifestDiff} title="Manifest" /> : <p class="muted">The manifest does not change.</p>}
    </div>
  );
}

/** `user@host $ command` when the preview names where it runs, else `$ command`. */
function commandLine(details: Record<string, unknown>, command: string): string {
  const host = typeof details.host === 'string' ? details.host : undefined;
  const user = typeof details.username === 'string' ? `${details.username}@` : '';
  return host ? `${user}${host} $ ${command}` : `$ ${command}`;
}

/** What the agent shows with an approval, for people: a diff, before/after tables, the command; raw JSON behind a toggle. */
/** Label–value pairs a person reads (the arguments or details of a call without a richer view). */
export function FactList({ fields }: { fields: ReadonlyArray<readonly [string, string]> }) {
  return (
    <dl class="facts" data-testid="preview-fields">
      {fields.map(([label, value]) => (
        <>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </>
      ))}
    </dl>
  );
}

export function PreviewView({
  preview,
  foldRaw = false,
}: {
  preview: ApprovalPreview /** Keep raw details folded even when nothing else is readable. */;
  foldRaw?: boolean;
}) {
  const details = preview.details;
  const helm = helmPlanOf(details);
  const changes = asChangePreview(details);
  const diff = helm || changes ? undefined : findDiff(details);
  const command = details && typeof details === 'object' ? (details as Record<string, unknown>).command : undefined;
  const fields = helm || changes || diff || typeof command === 'string' ? undefined : readableFields(details);
  const readable = Boolean(helm || changes || diff || typeof command === 'string' || fields);
  return (
    <div class="preview" data-testid="preview">
      {preview.summary && (
        <p class="preview-summary" data-testid="preview-summary">
          {preview.summary}
        </p>
      )}
      {typeof command === 'string' && <pre class="command">{commandLine(details as Record<string, unknown>, command)}</pre>}
      {helm && <HelmPlan plan={helm.plan} />}
      {changes && <RowChangesView preview={changes} />}
      {diff && <DiffView text={diff} />}
      {fields && <FactList fields={fields} />}
      {details !== undefined && (
        <details class="raw" open={!readable && !foldRaw}>
          <summary>{readable ? 'Raw details (JSON)' : 'Details'}</summary>
          <pre>{typeof details === 'string' ? details : JSON.stringify(details, null, 2)}</pre>
        </details>
      )}
    </div>
  );
}
