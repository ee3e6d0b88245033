import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolCallInvocation } from '../../../core/agent/define-agent.ts';
import { defineTool } from '../../../core/tools/index.ts';
import { createTestToolContext } from '../../../testing/tool-context.ts';
import { HelmErrors } from '../errors.ts';
import { HelmApprovalHITLMiddleware } from './approval-hitl-middleware.ts';
import { ErrorRecoveryMiddleware } from './error-recovery-middleware.ts';
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

describe('HelmApprovalHITLMiddleware (safety net)', () => {
  it('refuses a mutable call that arrives without an approval: the tool never runs', async () => {
    const context = createTestToolContext({ phase: 'approval' });
    let ran = false;
    const next = async () => {
      ran = true;
      return {};
    };
    await expect(
      new HelmApprovalHITLMiddleware().wrap({ tool: tool('helm_install_chart', 'mutable'), input: {}, context }, next),
    ).rejects.toMatchObject({ code: 'HELM_APPROVAL_REQUIRED' });
    expect(ran).toBe(false);
    expect(context.audited[0]).toMatchObject({ type: 'helm_unapproved_call_refused' });
    // By name too: a helm operation mislabelled read-only is still held.
    await expect(
      new HelmApprovalHITLMiddleware().wrap({ tool: tool('helm_uninstall_release', 'read-only'), input: {}, context }, next),
    ).rejects.toMatchObject({ code: 'HELM_APPROVAL_REQUIRED' });
    expect(ran).toBe(false);
  });

  it('lets an approved mutable call and any read-only call through', async () => {
    const context = createTestToolContext({ phase: 'approval' });
    const approval = { approvedBy: 'alice', argsHash: 'h' };
    await expect(
      new HelmApprovalHITLMiddleware().wrap(
        { tool: tool('helm_install_chart', 'mutable'), input: {}, context, approval },
        async () => 'ran',
      ),
    ).resolves.toBe('ran');
    await expect(
      new HelmApprovalHITLMiddleware().wrap({ tool: tool('helm_list_releases', 'read-only'), input: {}, context }, async () => 'ran'),
    ).resolves.toBe('ran');
  });
});

describe('ErrorRecoveryMiddleware', () => {
  it('retries a read-only tool on a transient error, 3 attempts with exponential backoff', async () => {
    const retries: Array<{ attempt: number; delayMs: number }> = [];
    const middleware = new ErrorRecoveryMiddleware({ initialDelayMs: 5, maxDelayMs: 100, onRetry: (info) => retries.push(info) });
    let attempts = 0;
    const result = await middleware.wrap(
      { tool: tool('helm_search_charts', 'read-only'), input: {}, context: createTestToolContext() },
      async () => {
        attempts++;
        if (attempts < 3) throw HelmErrors.HELM_CLUSTER_UNREACHABLE({ detail: 'connection refused' });
        return 'ok';
      },
    );
    expect(result).toBe('ok');
    expect(attempts).toBe(3);
    expect(retries.map((r) => r.delayMs)).toEqual([5, 10]);
  });

  it('gives up after 3 attempts, and never retries final errors or mutable tools', async () => {
    const middleware = new ErrorRecoveryMiddleware({ initialDelayMs: 1 });
    let attempts = 0;
    const failing = async () => {
      attempts++;
      throw HelmErrors.HELM_CLUSTER_UNREACHABLE({ detail: 'down' });
    };
    await expect(
      middleware.wrap({ tool: tool('kubernetes_get_cluster_info', 'read-only'), input: {}, context: createTestToolContext() }, failing),
    ).rejects.toMatchObject({ code: 'HELM_CLUSTER_UNREACHABLE' });
    expect(attempts).toBe(3);
    attempts = 0;
    await expect(
      middleware.wrap({ tool: tool('helm_install_chart', 'mutable'), input: {}, context: createTestToolContext() }, failing),
    ).rejects.toThrow();
    expect(attempts).toBe(1);
    attempts = 0;
    await expect(
      middleware.wrap({ tool: tool('helm_get_release_status', 'read-only'), input: {}, context: createTestToolContext() }, async () => {
        attempts++;
        throw HelmErrors.HELM_RELEASE_NOT_FOUND({ release: 'x', namespace: 'y' });
      }),
    ).rejects.toMatchObject({ code: 'HELM_RELEASE_NOT_FOUND' });
    expect(attempts).toBe(1);
  });
});
