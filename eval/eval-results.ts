import { existsSync, readFileSync } from 'node:fs';

/** What `npm run eval` writes to `eval/results/<model>.json`. */
export interface EvalReport<Row = Record<string, string | number>, Result = { readonly agent: string }> {
  readonly model: string;
  readonly summary: readonly Row[];
  readonly results: readonly Result[];
}

/**
 * The report after a run of some agents: their rows replace the ones stored, the other agents' rows
 * stay (so `npm run eval dns` does not wipe the committed figures of the others), in `agentOrder`.
 * A stored report of another model is replaced whole.
 */
export function mergeReports<Row extends { readonly agent: string | number }, Result extends { readonly agent: string }>(
  stored: EvalReport<Row, Result> | undefined,
  run: EvalReport<Row, Result>,
  agentOrder: readonly string[],
): EvalReport<Row, Result> {
  if (!stored || stored.model !== run.model) return run;
  const ran = new Set(run.results.map((r) => r.agent));
  const rank = (agent: string | number) => {
    const at = agentOrder.indexOf(String(agent));
    return at < 0 ? agentOrder.length : at;
  };
  const byOrder = (a: { readonly agent: string | number }, b: { readonly agent: string | number }) => rank(a.agent) - rank(b.agent);
  return {
    model: run.model,
    summary: [...stored.summary.filter((row) => !ran.has(String(row.agent))), ...run.summary].sort(byOrder),
    results: [...stored.results.filter((result) => !ran.has(result.agent)), ...run.results].sort(byOrder),
  };
}

/** The report stored at `file`, or undefined when there is none or it cannot be read as one. */
export function readReport<Row, Result>(file: string): EvalReport<Row, Result> | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as EvalReport<Row, Result>;
  } catch {
    return undefined;
  }
}
