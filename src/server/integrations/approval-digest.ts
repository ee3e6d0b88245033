import { type ApprovalInterrupt, approvalHeadline, approvalTitle } from '../../core/runtime/index.ts';

/**
 * The readable preview of an approval as plain text for chat messages: what the web panel shows
 * (the preview's summary, the command with its host, the statements and changed rows, the
 * manifest or values diff, the risk and why), shortened to fit a message. Never raw JSON.
 */
export interface ApprovalDigest {
  /** "john_doe asks: DROP TABLE order_items (8 rows) · critical": what is asked, not which tool. */
  readonly title: string;
  /** What is asked alone ("DROP TABLE order_items (8 rows)"). */
  readonly headline: string;
  readonly risk: string;
  readonly riskReason: string;
  readonly summary?: string;
  /** `user@host $ command` for SSH. */
  readonly command?: string;
  /** Statements and changed rows, one per line. */
  readonly changes?: string;
  /** A unified diff, cut to its first lines. */
  readonly diff?: string;
  /** The remaining arguments as label/value pairs when nothing above applies. */
  readonly facts: ReadonlyArray<readonly [string, string]>;
  readonly requestedBy: string;
  readonly eligibleApprovers: readonly string[];
}

const DIFF_LINES = 40;
const TEXT_LIMIT = 2500;

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function cut(text: string, limit = TEXT_LIMIT): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

function scalar(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (['string', 'number', 'boolean'].includes(typeof value)) return String(value);
  if (Array.isArray(value) && value.every((v) => ['string', 'number', 'boolean'].includes(typeof v))) return value.join(', ');
  return undefined;
}

function diffOf(details: Record<string, unknown>): string | undefined {
  const plan = record(details.plan);
  for (const value of [plan.manifestDiff, details.diff, details.valuesDiff, details.unifiedDiff]) {
    if (typeof value === 'string' && value.trim()) {
      const lines = value.split('\n');
      return lines.length > DIFF_LINES
        ? `${lines.slice(0, DIFF_LINES).join('\n')}\n… ${lines.length - DIFF_LINES} more lines in opsgate`
        : value;
    }
  }
  return undefined;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function changesOf(details: Record<string, unknown>): string | undefined {
  if (!Array.isArray(details.statements) || !Array.isArray(details.rows)) return undefined;
  const lines: string[] = [];
  const dropped = (Array.isArray(record(details.impact).droppedTables) ? (record(details.impact).droppedTables as unknown[]) : []).map(
    record,
  );
  for (const statement of details.statements.map(record)) {
    const changed = Number(statement.changes ?? 0);
    // A DDL statement changes no rows by count; its effect is said below, never as "0 row(s)".
    lines.push(changed > 0 ? `${String(statement.sql)}  (${plural(changed, 'row')})` : String(statement.sql));
  }
  for (const table of dropped)
    lines.push(`drops ${String(table.table)} and ${typeof table.rows === 'number' ? `its ${plural(table.rows, 'row')}` : 'all its rows'}`);
  const droppedNames = new Set(dropped.map((table) => `table ${String(table.table)}`));
  for (const schema of (Array.isArray(details.schema) ? details.schema : []).map(record))
    if (!(schema.operation === 'drop' && droppedNames.has(String(schema.name))))
      lines.push(`${String(schema.operation)} ${String(schema.name)}`);
  for (const row of details.rows.slice(0, 10).map(record)) {
    const before = record(row.before);
    const after = record(row.after);
    const changed = Object.keys({ ...before, ...after })
      .filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]))
      .map((key) => `${key}: ${scalar(before[key]) ?? '—'} → ${scalar(after[key]) ?? '—'}`);
    lines.push(`${String(row.operation)} ${String(row.table)}: ${changed.join(', ')}`);
  }
  if (details.rows.length > 10) lines.push(`… ${details.rows.length - 10} more row(s) in opsgate`);
  return lines.join('\n');
}

export function approvalDigest(interrupt: ApprovalInterrupt): ApprovalDigest {
  const details = record(interrupt.preview?.details);
  const host = typeof details.host === 'string' ? details.host : undefined;
  const command =
    typeof details.command === 'string'
      ? `${host ? `${typeof details.username === 'string' ? `${details.username}@` : ''}${host} $ ` : '$ '}${details.command}`
      : undefined;
  const changes = changesOf(details);
  const diff = diffOf(details);
  const facts =
    command || changes || diff
      ? []
      : Object.entries(interrupt.args)
          .map(([key, value]) => [key.replace(/_/g, ' '), scalar(value)] as const)
          .filter((pair): pair is readonly [string, string] => pair[1] !== undefined)
          .map(([key, value]) => [key, cut(value, 300)] as const);
  return {
    title: approvalTitle(interrupt),
    headline: approvalHeadline(interrupt),
    risk: interrupt.risk,
    riskReason: interrupt.riskReason.replace(/`/g, ''),
    ...(interrupt.preview?.summary ? { summary: cut(interrupt.preview.summary) } : {}),
    ...(command ? { command: cut(command) } : {}),
    ...(changes ? { changes: cut(changes) } : {}),
    ...(diff ? { diff: cut(diff) } : {}),
    facts,
    requestedBy: interrupt.requestedBy,
    eligibleApprovers: interrupt.eligibleApprovers,
  };
}

/** The link that opens the session in opsgate. */
export function sessionLink(publicUrl: string, sessionId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/#/sessions/${encodeURIComponent(sessionId)}`;
}
