import { describe, expect, it } from 'vitest';
import { mergeReports } from './eval-results.ts';

const row = (agent: string, passed: number) => ({ agent, passed });
const result = (agent: string, ids: string[]) => ({ agent, scenarios: ids });

describe('eval results per agent', () => {
  const stored = {
    model: 'offline',
    summary: [row('access', 21), row('helm', 20), row('sandbox', 20)],
    results: [result('access', ['access-01']), result('helm', ['helm-01']), result('sandbox', ['sandbox-01'])],
  };

  it('a run of one agent replaces its rows and keeps the other agents’ rows, in the registered order', () => {
    const merged = mergeReports(stored, { model: 'offline', summary: [row('helm', 19)], results: [result('helm', ['helm-02'])] }, [
      'access',
      'helm',
      'sandbox',
    ]);
    expect(merged.summary).toEqual([row('access', 21), row('helm', 19), row('sandbox', 20)]);
    expect(merged.results.map((r) => r.scenarios)).toEqual([['access-01'], ['helm-02'], ['sandbox-01']]);
  });

  it('a new agent joins at its place; a report of another model is replaced whole', () => {
    const dns = { model: 'offline', summary: [row('dns', 20)], results: [result('dns', ['dns-01'])] };
    expect(mergeReports(stored, dns, ['access', 'dns', 'helm', 'sandbox']).summary.map((r) => r.agent)).toEqual([
      'access',
      'dns',
      'helm',
      'sandbox',
    ]);
    const other = { ...dns, model: 'openai-gpt' };
    expect(mergeReports(stored, other, ['access'])).toBe(other);
  });
});
