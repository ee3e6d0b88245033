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

function rowsPhrase(rows: number | null): string {
  if (rows === null) return 'all its rows (the count could not be read)';
  return rows === 1 ? 'its 1 row' : `its ${rows} rows`;
}

/**
 * What a commit does, in words a person checks before approving: "drops order_items and its 8
 * rows; deletes 3 rows". Zero counts are left out: "0 inserted" next to a dropped table read as
 * "harmless" (issue 31, item 8).
 */
export function impactSummary(impact: ChangeImpact): string {
  const parts = impact.droppedTables.map((d) => `drops ${d.table} and ${rowsPhrase(d.rows)}`);
  if (impact.otherSchemaChanges.length > 0) parts.push(`changes the schema: ${impact.otherSchemaChanges.join(', ')}`);
  if (impact.inserted > 0) parts.push(`inserts ${plural(impact.inserted, 'row')}`);
  if (impact.updated > 0) parts.push(`updates ${plural(impact.updated, 'row')}`);
  if (impact.deleted > 0) parts.push(`deletes ${plural(impact.deleted, 'row')}`);
  if (impact.unlisted > 0) parts.push(`${plural(impact.unlisted, 'statement')} whose rows cannot be listed`);
  return parts.length > 0 ? parts.join('; ') : 'changes no rows';
}

const HEADLINE_LIMIT = 120;

/**
 * The request in one line for a lock screen or an inbox title: the statements, each with the rows
 * it touches ("DROP TABLE order_items (8 rows)").
 */
export function commitHeadline(preview: ChangePreview, impact: ChangeImpact): string {
  const lines = preview.statements.map((statement) => {
    const sql = statement.sql.trim().replace(/;$/, '').replace(/\s+/g, ' ');
    const words = sql.toLowerCase().split(/[\s"'`;]+/);
    const dropped =
      words[0] === 'drop' && words[1] === 'table' ? impact.droppedTables.find((d) => words.includes(d.table.toLowerCase())) : undefined;
    const rows = dropped ? dropped.rows : statement.changes > 0 ? statement.changes : undefined;
    return rows === undefined ? sql : `${sql} (${rows === null ? 'rows unknown' : plural(rows, 'row')})`;
  });
  const text = lines.join('; ');
  return text.length > HEADLINE_LIMIT ? `${text.slice(0, HEADLINE_LIMIT - 1)}…` : text;
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
