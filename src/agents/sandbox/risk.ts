import type { ApprovalPreview, RiskAssessment } from '../../core/tools/index.ts';
import type { ChangePreview, TableSummary } from './engines/engine.ts';

/** What a commit would do, in counts a person can check: dropped tables with the rows they hold, row changes, other DDL. */
export interface ChangeImpact {
  readonly droppedTables: ReadonlyArray<{ readonly table: string; readonly rows: number | null }>;
  readonly otherSchemaChanges: readonly string[];
  readonly inserted: number;
  readonly updated: number;
  readonly deleted: number;
  /** Statements whose rows the changeset cannot list (tables without a primary key, PostgreSQL). */
  readonly unlisted: number;
}

const TABLE_PREFIX = /^table\s+/i;

/**
 * The impact of a pending change. A dropped table's rows are not in the changeset (SQLite's
 * session extension records row changes, not DROP), so they are counted from the committed
 * state the bridge reads outside the transaction (`committedTables`).
 */
export function changeImpact(preview: ChangePreview, committedTables: readonly TableSummary[]): ChangeImpact {
  const count = (operation: 'insert' | 'update' | 'delete') => preview.rows.filter((row) => row.operation === operation).length;
  const droppedTables: Array<{ table: string; rows: number | null }> = [];
  const otherSchemaChanges: string[] = [];
  for (const change of preview.schema) {
    if (change.operation === 'drop' && TABLE_PREFIX.test(change.name)) {
      const table = change.name.replace(TABLE_PREFIX, '');
      droppedTables.push({ table, rows: committedTables.find((t) => t.name === table)?.rows ?? null });
    } else {
      otherSchemaChanges.push(`${change.operation} ${change.name}`);
    }
  }
  return {
    droppedTables,
    otherSchemaChanges,
    inserted: count('insert'),
    updated: count('update'),
    deleted: count('delete'),
    unlisted: preview.unlistedChanges,
  };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "drops table orders (8 rows); 0 inserted, 0 updated, 0 deleted row(s)". */
export function impactSummary(impact: ChangeImpact): string {
  const parts = impact.droppedTables.map(
    (d) => `drops table ${d.table} (${d.rows === null ? 'row count unknown' : plural(d.rows, 'row')})`,
  );
  if (impact.otherSchemaChanges.length > 0) parts.push(`schema: ${impact.otherSchemaChanges.join(', ')}`);
  parts.push(`${impact.inserted} inserted, ${impact.updated} updated, ${impact.deleted} deleted row(s)`);
  if (impact.unlisted > 0) parts.push(`${plural(impact.unlisted, 'statement')} whose rows cannot be listed`);
  return parts.join('; ');
}

function impactOf(preview: ApprovalPreview | undefined): ChangeImpact | undefined {
  const impact = (preview?.details as { impact?: ChangeImpact } | undefined)?.impact;
  return impact && Array.isArray(impact.droppedTables) ? impact : undefined;
}

/** Rows changed at or above this count make an update or insert high risk. */
const MANY_ROWS = 100;

/**
 * The risk of committing: dropping a table is critical, other DDL and deletes are high, many
 * changed rows are high, a few inserts or updates medium, nothing pending low.
 */
export function assessCommitRisk(preview: ApprovalPreview | undefined): RiskAssessment {
  const impact = impactOf(preview);
  if (!impact)
    return preview?.bindingDigest === 'none'
      ? { level: 'low', reason: 'commit: there is no open transaction' }
      : { level: 'high', reason: 'commit: the pending change could not be read' };
  const summary = impactSummary(impact);
  const touched = impact.inserted + impact.updated + impact.deleted;
  if (impact.droppedTables.length > 0) return { level: 'critical', reason: `commit ${summary}` };
  if (impact.otherSchemaChanges.length > 0 || impact.deleted > 0 || impact.unlisted > 0 || touched >= MANY_ROWS)
    return { level: 'high', reason: `commit ${summary}` };
  if (touched > 0) return { level: 'medium', reason: `commit ${summary}` };
  return { level: 'low', reason: 'commit: no pending changes' };
}

const DDL = /^\s*(create|drop|alter|truncate)\b/i;

/** Staging runs in an uncommitted transaction: low, saying whether the commit will carry DDL. */
export function assessStagingRisk(sql: string): RiskAssessment {
  const ddl = DDL.exec(sql)?.[1]?.toUpperCase();
  return {
    level: 'low',
    reason: ddl
      ? `stages ${ddl} in an uncommitted transaction; the commit is scored on its real changes`
      : 'stages a change in an uncommitted transaction; nothing is saved until the commit is approved',
  };
}
