import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { OpsgateError } from '../../../core/errors/index.ts';
import { sqlFailed } from '../errors.ts';
import type { JsonValue, QueryResult, SqlParam } from './engine.ts';
import { type ReadBudget, ReadMeter } from './read-budget.ts';
import { SqlAuthorizer } from './sql-guard.ts';
import { toJsonValue, toParams } from './sqlite-values.ts';

/**
 * The child process that runs read-path statements for one SQLite file, so that a runaway read
 * (an endless `WITH RECURSIVE`, a huge join) can be stopped by killing the process: node:sqlite has
 * no interrupt, and a worker thread cannot be terminated while SQLite runs native code.
 * Started by `BudgetedReader` with the database path and the row and byte budgets as arguments.
 */
export interface ReadRequest {
  readonly id: number;
  readonly sql: string;
  readonly params: readonly SqlParam[];
}

export type ReadReply =
  | { readonly id: number; readonly result: QueryResult }
  | { readonly id: number; readonly error: { code: string; message: string; fields: Record<string, unknown> } }
  // Sent once the file is open: a read's time budget starts when it is sent to a ready process.
  | { readonly ready: true };

function read(
  db: DatabaseSync,
  guard: SqlAuthorizer,
  cache: Map<string, StatementSync>,
  request: ReadRequest,
  budget: Pick<ReadBudget, 'maxRows' | 'maxBytes'>,
): QueryResult {
  let statement = cache.get(request.sql);
  if (!statement) {
    statement = guard.prepare(db, request.sql);
    if (cache.size >= 256) cache.delete(cache.keys().next().value!);
    cache.set(request.sql, statement);
  }
  const prepared = statement;
  const columns = prepared.columns().map((column) => column.name);
  const params = toParams(request.params);
  return guard.run(() => {
    if (columns.length === 0) {
      prepared.run(...params);
      return { columns, rows: [], rowCount: 0 };
    }
    const rows: Array<Record<string, JsonValue>> = [];
    const meter = new ReadMeter(budget);
    for (const row of prepared.iterate(...params) as Iterable<Record<string, unknown>>) {
      const converted: Record<string, JsonValue> = {};
      for (const key of columns) converted[key] = toJsonValue(row[key]);
      meter.count(converted);
      rows.push(converted);
    }
    return { columns, rows, rowCount: rows.length };
  });
}

function serve(path: string, budget: Pick<ReadBudget, 'maxRows' | 'maxBytes'>): void {
  const db = new DatabaseSync(path, { readOnly: true, allowExtension: false });
  db.enableDefensive(true);
  const guard = new SqlAuthorizer('read');
  guard.install(db);
  const cache = new Map<string, StatementSync>();
  process.on('message', (request: ReadRequest) => {
    let reply: ReadReply;
    try {
      reply = { id: request.id, result: read(db, guard, cache, request, budget) };
    } catch (error) {
      const typed = OpsgateError.isInstance(error) ? error : sqlFailed(error);
      reply = { id: request.id, error: { code: typed.code, message: typed.message, fields: { ...typed.fields } } };
    }
    process.send?.(reply);
  });
  process.send?.({ ready: true } satisfies ReadReply);
  process.on('disconnect', () => {
    db.close();
    process.exit(0);
  });
}

serve(process.argv[2]!, { maxRows: Number(process.argv[3]), maxBytes: Number(process.argv[4]) });
