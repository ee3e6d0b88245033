import { useEffect, useState } from 'preact/hooks';
import type { SessionUsage } from '../../core/runtime/session-usage.ts';
import { request } from './api.ts';

const tokens = new Intl.NumberFormat('en-US');

function dollars(cost: number | null): string {
  if (cost === null) return 'cost unknown (no price for this model; set OPSGATE_MODEL_PRICE)';
  return cost < 0.01 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
}

/**
 * What the session's model steps used: tokens and cost in all, and per turn on request. Reloaded
 * whenever `refreshKey` changes (a new message); hidden while no model step used any token (the
 * offline interpreter).
 */
export function UsageSummary({ sessionId, refreshKey }: { sessionId: string; refreshKey: number }) {
  const [usage, setUsage] = useState<SessionUsage | undefined>();
  useEffect(() => {
    let current = true;
    request<SessionUsage>('GET', `/api/sessions/${encodeURIComponent(sessionId)}/usage`).then(
      (answer) => current && setUsage(answer),
      () => current && setUsage(undefined),
    );
    return () => {
      current = false;
    };
  }, [sessionId, refreshKey]);
  if (!usage || usage.total.inputTokens + usage.total.outputTokens === 0) return null;
  const { total } = usage;
  return (
    <details class="usage-summary muted" data-testid="usage-summary">
      <summary>
        Model usage: {tokens.format(total.inputTokens)} input + {tokens.format(total.outputTokens)} output tokens in {total.steps} step
        {total.steps === 1 ? '' : 's'} · {dollars(total.costUsd)}
      </summary>
      <table>
        <thead>
          <tr>
            <th>Turn</th>
            <th>Steps</th>
            <th>Input tokens</th>
            <th>Output tokens</th>
            <th>Cost</th>
          </tr>
        </thead>
        <tbody>
          {usage.turns.map((turn) => (
            <tr key={turn.turn}>
              <td>{turn.turn}</td>
              <td>{turn.steps}</td>
              <td>{tokens.format(turn.inputTokens)}</td>
              <td>{tokens.format(turn.outputTokens)}</td>
              <td>{dollars(turn.costUsd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>Models: {usage.models.join(', ')}</p>
    </details>
  );
}
