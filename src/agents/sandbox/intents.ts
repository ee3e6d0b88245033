import type { InterpreterAction, InterpreterRules, InterpreterTurn } from '../../core/model/interpreter-rules.ts';

const HELP = [
  'tables                 list the tables and their row counts',
  'describe TABLE         show the columns of a table',
  'explain SQL            show the query plan of a read',
  'SQL                    run it: a read answers at once; a write runs in a transaction,',
  '                       shows the changes and asks you to commit (approve) or roll back (reject)',
  'commit | rollback      end the open transaction',
];

function hasCode(output: unknown, code: string): boolean {
  return JSON.stringify(output ?? null).includes(code);
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Renders rows as a plain text table (at most 50 rows). */
function renderRows(rows: ReadonlyArray<Record<string, unknown>>, columns?: readonly string[]): string {
  if (rows.length === 0) return '(no rows)';
  const names = columns?.length ? [...columns] : Object.keys(rows[0]!);
  const shown = rows.slice(0, 50).map((row) => names.map((name) => cell(row[name])));
  const widths = names.map((name, index) => Math.min(40, Math.max(name.length, ...shown.map((row) => row[index]!.length))));
  const line = (values: string[]) => values.map((value, index) => value.slice(0, 40).padEnd(widths[index]!)).join(' | ');
  const out = [line(names), widths.map((width) => '-'.repeat(width)).join('-+-'), ...shown.map(line)];
  if (rows.length > 50) out.push(`… ${rows.length - 50} more row(s)`);
  return out.join('\n');
}

function describeOutput(toolName: string, output: unknown): string {
  const value = output as Record<string, any>;
  if (toolName === 'inspect_state' && Array.isArray(value?.tables)) {
    return renderRows(
      value.tables.map((table: Record<string, unknown>) => ({ rows: '', ...table })),
      ['name', 'type', 'rows'],
    );
  }
  if (toolName === 'inspect_state' && Array.isArray(value?.columns)) return renderRows(value.columns);
  if (Array.isArray(value?.rows)) return `${renderRows(value.rows, value.columns)}\n(${value.rowCount ?? value.rows.length} row(s))`;
  return JSON.stringify(output);
}

function errorText(output: unknown): string {
  const value = output as { message?: string; error?: string | { message?: string } } | string;
  if (typeof value === 'string') return value;
  // Tool errors read as `{ error: "sentence", code }`: the sentence is for the person, never the JSON.
  if (typeof value?.error === 'string') return value.error;
  return value?.error?.message ?? value?.message ?? JSON.stringify(output);
}

function firstStep(text: string): InterpreterAction {
  const words = text.trim();
  if (/^(help|\?|\/help)$/i.test(words)) return { text: HELP.join('\n') };
  if (/^tables;?$/i.test(words)) return { toolCalls: [{ toolName: 'inspect_state', input: { what: 'tables' } }] };
  const describe = /^describe\s+("?)([\w$.]+)\1;?$/i.exec(words);
  if (describe) return { toolCalls: [{ toolName: 'inspect_state', input: { what: 'describe', table: describe[2]! } }] };
  const explain = /^explain\s+(?!query\s+plan\b)([\s\S]+)$/i.exec(words);
  if (explain) return { toolCalls: [{ toolName: 'run_profiler', input: { sql: explain[1]! } }] };
  if (/^commit;?$/i.test(words))
    return { toolCalls: [{ toolName: 'commit_transaction', input: {} }], text: 'Committing needs your approval.' };
  if (/^(rollback|abort);?$/i.test(words)) return { toolCalls: [{ toolName: 'rollback_transaction', input: {} }] };
  // Statements that plainly write are staged at once, so a person never sees a refused read first.
  if (/^(insert|update|delete|replace|create|drop|alter)\b/i.test(words)) {
    return {
      toolCalls: [{ toolName: 'execute_write', input: { sql: words } }],
      text: 'This statement writes; staging it in a transaction.',
    };
  }
  // Anything else is SQL. The database decides whether it is a read: a write is refused on the
  // read path and then staged in a transaction.
  return { toolCalls: [{ toolName: 'execute_query', input: { sql: words } }] };
}

/**
 * The person asked to re-plan a commit that can no longer run (its transaction was lost): stage
 * this turn's writes again in a new transaction, so the commit is proposed with a fresh preview.
 */
function replan(turn: InterpreterTurn): InterpreterAction {
  const writes: string[] = [];
  for (const step of turn.steps.slice(0, -1).reverse()) {
    if (step.toolName === 'commit_transaction' || step.toolName === 'rollback_transaction') break;
    const sql = (step.input as { sql?: unknown } | null)?.sql;
    if (step.toolName === 'execute_write' && !step.isError && typeof sql === 'string') writes.unshift(sql);
  }
  if (writes.length === 0)
    return { text: 'Nothing was committed: the transaction was lost. Send the statements again to stage them in a new transaction.' };
  return {
    toolCalls: writes.map((sql) => ({ toolName: 'execute_write', input: { sql } })),
    text: `Nothing was committed: the transaction was lost. Staging the same ${writes.length === 1 ? 'statement' : `${writes.length} statements`} again in a new transaction, so you review the changes as they are now.`,
  };
}

/** The sandbox agent's offline command language. */
export const sandboxInterpreter: InterpreterRules = {
  help: HELP,
  next(turn: InterpreterTurn): InterpreterAction | undefined {
    const last = turn.steps.at(-1);
    if (!last) return firstStep(turn.userText);
    const input = last.input as { sql?: string };
    switch (last.toolName) {
      case 'execute_query':
        if (last.isError && hasCode(last.output, 'WRITE_OUTSIDE_TRANSACTION') && input.sql) {
          return {
            toolCalls: [{ toolName: 'execute_write', input: { sql: input.sql } }],
            text: 'This statement writes; staging it in a transaction.',
          };
        }
        return { text: last.isError ? `Refused: ${errorText(last.output)}` : describeOutput(last.toolName, last.output) };
      case 'execute_write': {
        if (last.isError) return { text: `The write failed: ${errorText(last.output)}` };
        const preview = (last.output as { preview?: { summary?: string } }).preview;
        return {
          toolCalls: [{ toolName: 'commit_transaction', input: {} }],
          text: `Pending changes: ${preview?.summary ?? 'see the preview'}. Approve to commit, reject to roll back.`,
        };
      }
      case 'commit_transaction':
        if (last.isError && hasCode(last.output, 'APPROVAL_STALE')) return replan(turn);
        if (last.isError) return { toolCalls: [{ toolName: 'rollback_transaction', input: {} }], text: 'Not committed; rolling back.' };
        return { text: `Committed: ${(last.output as { summary?: string }).summary ?? ''}`.trim() };
      case 'rollback_transaction':
        if (last.isError) return { text: `Rollback failed: ${errorText(last.output)}` };
        return {
          text: (last.output as { rolledBack?: boolean }).rolledBack
            ? 'Rolled back; nothing was changed.'
            : 'There was no open transaction.',
        };
      default:
        return { text: last.isError ? `Error: ${errorText(last.output)}` : describeOutput(last.toolName, last.output) };
    }
  },
};
