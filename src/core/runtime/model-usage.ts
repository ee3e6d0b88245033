import type { LanguageModelV4, LanguageModelV4Usage } from '@ai-sdk/provider';
import { costOf, priceOf } from '../model/index.ts';
import { insertRows } from '../store/index.ts';
import type { Db } from './session-repository.ts';
import type { SessionUsage } from './session-usage.ts';
import type { ToolCallEnvironment } from './tool-call-environment.ts';
import type { WorkingSession } from './working-session.ts';

const USAGE_COLUMNS = ['session_id', 'turn', 'provider', 'model', 'input_tokens', 'output_tokens', 'cost_usd', 'created_at'] as const;

/**
 * Stores a model step's tokens and cost with the step itself (the session's unit of work), and
 * tells the metrics once it is committed. The turn is the count of the person's messages so far.
 */
export function recordModelUsage(
  env: ToolCallEnvironment,
  session: WorkingSession,
  model: LanguageModelV4,
  usage: LanguageModelV4Usage,
): void {
  const inputTokens = usage.inputTokens.total ?? 0;
  const outputTokens = usage.outputTokens.total ?? 0;
  const costUsd = costOf(priceOf(model), inputTokens, outputTokens);
  const turn = session.messages.filter((m) => m.message.role === 'user').length;
  const row = {
    session_id: session.id,
    turn,
    provider: model.provider,
    model: model.modelId,
    input_tokens: inputTokens,
    output_tokens: outputTokens,
    cost_usd: costUsd,
    created_at: env.now().toISOString(),
  };
  session.uow.share('model_usage', row, (trx, rows) => insertRows(trx, 'model_usage', USAGE_COLUMNS, rows));
  session.uow.afterCommit(() => env.observer?.modelUsage?.(model.provider, model.modelId, inputTokens, outputTokens, costUsd));
}

/** The usage of one session, per turn, oldest first. */
export async function readSessionUsage(db: Db, sessionId: string): Promise<SessionUsage> {
  const rows = await db.selectFrom('model_usage').selectAll().where('session_id', '=', sessionId).orderBy('id').execute();
  const turns = new Map<number, { turn: number; steps: number; inputTokens: number; outputTokens: number; costUsd: number | null }>();
  const addCost = (a: number | null, b: number | null) => (a === null || b === null ? null : a + b);
  for (const row of rows) {
    const entry = turns.get(row.turn) ?? { turn: row.turn, steps: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
    entry.steps += 1;
    entry.inputTokens += row.input_tokens;
    entry.outputTokens += row.output_tokens;
    entry.costUsd = addCost(entry.costUsd, row.cost_usd);
    turns.set(row.turn, entry);
  }
  const list = [...turns.values()];
  return {
    turns: list,
    total: {
      steps: rows.length,
      inputTokens: list.reduce((sum, t) => sum + t.inputTokens, 0),
      outputTokens: list.reduce((sum, t) => sum + t.outputTokens, 0),
      costUsd: list.reduce<number | null>((sum, t) => addCost(sum, t.costUsd), 0),
    },
    models: [...new Set(rows.map((row) => `${row.provider}:${row.model}`))],
  };
}
