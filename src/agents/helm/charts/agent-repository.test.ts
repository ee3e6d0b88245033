import { describe, expect, it } from 'vitest';
import { openAgentRepository } from './agent-repository.ts';
import { DEMO_REPOSITORY_DIR } from './chart-repository.ts';

describe('opsgate chart repository per backend (issue 30 N5)', () => {
  it('the simulator has the demo charts by default', async () => {
    expect((await openAgentRepository('simulator', undefined)).search('webapp').map((c) => c.name)).toEqual(['demo/webapp']);
  });

  it('a real cluster has no demo repository unless one is configured', async () => {
    const none = await openAgentRepository('cli', undefined);
    expect(none.empty).toBe(true);
    expect(none.search('webapp')).toEqual([]);
    expect((await openAgentRepository('cli', DEMO_REPOSITORY_DIR)).empty).toBe(false);
  });
});
