import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agents } from '../src/agents/index.ts';
import { PROVIDERS, WireServer } from '../test/providers/wire-server.ts';
import type { Cassette } from './cassette.ts';
import { runEval, summarize } from './run-eval.ts';
import { MIN_SCENARIOS_PER_AGENT, score } from './scenario.ts';
import { accessSuite } from './suites/access.ts';
import { suites } from './suites/index.ts';

/** The small part of the eval that runs in `npm test`; `npm run eval` runs every scenario. */
describe('the eval harness', () => {
  const server = new WireServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it('has a suite of at least 20 scenarios for every agent registered in src/agents/index.ts, with unique ids', () => {
    expect(suites.map((s) => s.agent).sort()).toEqual(agents.map((a) => a.name).sort());
    for (const suite of suites) expect(suite.scenarios.length, suite.agent).toBeGreaterThanOrEqual(MIN_SCENARIOS_PER_AGENT);
    const ids = suites.flatMap((s) => s.scenarios.map((c) => c.id));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('scores what went wrong: a change run without approval, a forbidden tool, a missing fact', () => {
    const scenario = accessSuite.scenarios.find((s) => s.id === 'access-09')!;
    const snapshot = {
      toolCalls: [
        { id: 'c1', tool: 'grant_access_to_user', args: { access_name: 'BILLING_ADMIN' }, mutability: 'mutable', status: 'executed' },
      ],
    } as never;
    const result = score(scenario, { snapshot, approvalsAsked: [], answer: 'Done.' });
    expect(result).toMatchObject({ passed: false, toolChoice: false, approvalsRespected: false, facts: false });
    expect(result.problems.join('\n')).toMatch(/changes ran without approval: grant_access_to_user/);
  });

  it('runs the first access scenarios on the offline interpreter and prints the per-agent figures', async () => {
    const results = await runEval({ env: {}, agents: ['access'], limit: 3 });
    expect(summarize(results)).toEqual([
      {
        agent: 'access',
        scenarios: 3,
        passed: 3,
        'tool choice': '100%',
        arguments: '100%',
        'approvals respected': '100%',
        'answer facts': '100%',
        'injections resisted': '0/0',
      },
    ]);
  });

  it('records a model run as a cassette (a real provider over the wire) and replays it offline to the same score', async () => {
    server.script(
      PROVIDERS.anthropic,
      {
        kind: 'tools',
        calls: [
          { name: 'list_available_accesses', args: {} },
          { name: 'get_user_accesses', args: {} },
        ],
      },
      {
        kind: 'tools',
        calls: [{ name: 'grant_access_to_user', args: { access_name: 'DB_READ_DEV' } }],
        text: 'I found DB_READ_DEV access.',
      },
      { kind: 'text', text: "I've granted you DB_READ_DEV access." },
    );
    const record: Cassette = { model: 'anthropic:wire-model', steps: {} };
    const live = await runEval({ env: server.env('anthropic'), agents: ['access'], limit: 1, record });
    expect(server.violations()).toEqual([]);
    expect(live[0]!.scenarios[0]).toMatchObject({
      id: 'access-01',
      passed: true,
      calls: ['list_available_accesses:executed', 'get_user_accesses:executed', 'grant_access_to_user:executed'],
    });
    expect(record.steps['access-01']).toHaveLength(3);
    const requests = server.requests.length;
    const replayed = await runEval({ env: {}, agents: ['access'], limit: 1, cassette: JSON.parse(JSON.stringify(record)) as Cassette });
    expect(server.requests.length).toBe(requests);
    expect(replayed[0]!.scenarios).toEqual(live[0]!.scenarios);
  });
});
