import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolCallInvocation } from '../../../core/agent/define-agent.ts';
import { defineTool } from '../../../core/tools/index.ts';
import { createTestToolContext } from '../../../testing/tool-context.ts';
import { HelmErrors } from '../errors.ts';
import { HelmAgentStateMiddleware } from './state-middleware.ts';

const tool = (name: string, mutability: 'read-only' | 'mutable') =>
  defineTool({ name, description: name, input: z.object({}).passthrough(), mutability, execute: async () => ({}) });

describe('HelmAgentStateMiddleware', () => {
  it('fills chart_metadata from helm_get_chart_info and answers the same discovery call from the cache', async () => {
    const context = createTestToolContext({ phase: 'discovery', state: { scenario_type: 'INSTALL' } });
    const middleware = new HelmAgentStateMiddleware();
    let runs = 0;
    const call: ToolCallInvocation = {
      tool: tool('helm_get_chart_info', 'read-only'),
      input: { chart: 'demo/webapp', version: '1.0.0' },
      context,
    };
    const next = async () => {
      runs++;
      return {
        repository: 'demo',
        chart: { name: 'webapp', version: '1.0.0', appVersion: '1.25.3', url: 'webapp-1.0.0.tgz', digest: 'abc' },
      };
    };
    await middleware.wrap(call, next);
    expect(context.state.chart_metadata).toEqual({
      name: 'webapp',
      version: '1.0.0',
      appVersion: '1.25.3',
      repository: 'demo',
      url: 'webapp-1.0.0.tgz',
      digest: 'abc',
    });
    expect(context.phaseChanges).toEqual([{ phase: 'values_confirmation', reason: 'chart and release known' }]);
    const again = await middleware.wrap({ ...call, input: { chart: 'webapp', version: '1.0.0' } }, next);
    expect(runs).toBe(1);
    expect(again).toMatchObject({ cached: true, chart: { name: 'webapp' } });
  });

  it('sets scenario_type from discovery: not found → INSTALL, found → UPGRADE; plan → approval phase', async () => {
    const context = createTestToolContext({ phase: 'discovery' });
    const middleware = new HelmAgentStateMiddleware();
    const status = tool('helm_get_release_status', 'read-only');
    await expect(
      middleware.wrap({ tool: status, input: { release: 'web', intent: 'install' }, context }, async () =>
        Promise.reject(HelmErrors.HELM_RELEASE_NOT_FOUND({ release: 'web', namespace: 'default' })),
      ),
    ).rejects.toMatchObject({ code: 'HELM_RELEASE_NOT_FOUND' });
    expect(context.state.scenario_type).toBe('INSTALL');
    const planning = createTestToolContext({ phase: 'values_confirmation', state: {} });
    await middleware.wrap({ tool: tool('helm_get_installation_plan', 'read-only'), input: {}, context: planning }, async () => ({
      plan: { planHash: 'sha256:x' },
    }));
    expect(planning.state.execution_plan).toEqual({ planHash: 'sha256:x' });
    expect(planning.phaseChanges.map((p) => p.phase)).toEqual(['planning', 'approval']);
  });
});
