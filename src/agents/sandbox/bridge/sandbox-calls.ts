import { z } from 'zod';
import type { SandboxEngine } from '../engines/engine.ts';
import { SandboxErrors } from '../errors.ts';

/** The names of the sandbox's MCP tools. */
const SANDBOX_TOOL_NAMES = ['execute_query', 'inspect_state', 'run_profiler'] as const;
export type SandboxToolName = (typeof SANDBOX_TOOL_NAMES)[number];

const param = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const executeQueryInput = {
  sql: z.string().min(1).max(100_000).describe('Exactly one SQL statement. BEGIN / COMMIT / ROLLBACK control the transaction.'),
  params: z.array(param).max(1000).optional().describe('Positional parameters for ? placeholders.'),
  transaction_id: z.string().max(100).optional().describe('Run the statement inside this open transaction (from BEGIN).'),
  control: z
    .enum(['begin', 'commit', 'rollback'])
    .optional()
    .describe(
      'Set with sql BEGIN / COMMIT / ROLLBACK to drive the transaction. Without it, such text goes to the database, which refuses it.',
    ),
};

export const inspectStateInput = {
  what: z
    .enum(['tables', 'describe', 'changes'])
    .describe('tables: list tables; describe: columns of a table; changes: the pending changes of a transaction.'),
  table: z.string().max(200).optional(),
  transaction_id: z.string().max(100).optional(),
};

export const runProfilerInput = {
  sql: z.string().min(1).max(100_000).describe('One read statement to explain (EXPLAIN QUERY PLAN).'),
  params: z.array(param).max(1000).optional(),
};

const ExecuteQuery = z.object(executeQueryInput).strict();
const InspectState = z.object(inspectStateInput).strict();
const RunProfiler = z.object(runProfilerInput).strict();

const CONTROL =
  /^\s*(?:(begin)(?:\s+(?:deferred|immediate|exclusive))?(?:\s+transaction)?|(commit|end)(?:\s+transaction)?|(rollback)(?:\s+transaction)?)\s*;?\s*$/i;

async function control(engine: SandboxEngine, action: 'begin' | 'commit' | 'rollback', sql: string, transactionId: string | undefined) {
  const words = CONTROL.exec(sql);
  const named = words?.[1] ? 'begin' : words?.[3] ? 'rollback' : words?.[2] ? 'commit' : undefined;
  if (named !== action)
    throw SandboxErrors.SQL_NOT_ALLOWED({ path: 'control', reason: `control "${action}" needs the SQL text ${action.toUpperCase()}` });
  if (action === 'begin') return { transaction_id: await engine.begin() };
  if (transactionId === undefined) throw SandboxErrors.TRANSACTION_NOT_FOUND({ transactionId: '(none given)' });
  if (action === 'commit') await engine.commit(transactionId);
  else await engine.rollback(transactionId);
  return { transaction_id: transactionId, ended: action === 'commit' ? 'committed' : 'rolled back' };
}

/**
 * Routes one tool call to the engine. BEGIN / COMMIT / ROLLBACK drive the transaction only with
 * the matching `control` flag (which the transaction handle sets); every other text goes to the
 * database, whose authorizer refuses transaction control, so `COMMIT; DROP …` or a bare `COMMIT`
 * inside the transaction cannot end it.
 */
export async function callSandbox(engine: SandboxEngine, name: string, args: unknown): Promise<unknown> {
  switch (name) {
    case 'execute_query': {
      const input = ExecuteQuery.parse(args);
      if (input.control !== undefined) return control(engine, input.control, input.sql, input.transaction_id);
      if (input.transaction_id !== undefined) return engine.execute(input.transaction_id, input.sql, input.params ?? []);
      return engine.query(input.sql, input.params ?? []);
    }
    case 'inspect_state': {
      const input = InspectState.parse(args);
      if (input.what === 'tables') return { tables: await engine.tables() };
      if (input.what === 'describe') return { table: input.table, columns: await engine.describe(input.table ?? '') };
      return engine.preview(input.transaction_id ?? engine.openTransaction() ?? '');
    }
    case 'run_profiler': {
      const input = RunProfiler.parse(args);
      return engine.explain(input.sql, input.params ?? []);
    }
    default:
      throw new Error(`unknown sandbox tool ${name}`);
  }
}
