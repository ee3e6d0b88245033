import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../../core/tools/index.ts';
import { createTestToolContext } from '../../../testing/tool-context.ts';
import { HelmApprovalHITLMiddleware } from './approval-hitl-middleware.ts';

const tool = (name: string, mutability: 'read-only' | 'mutable') =>
  defineTool({ name, description: name, input: z.object({}).passthrough(), mutability, execute: async () => ({}) });

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

  it.each([
    ['no approver', { approvedBy: '', argsHash: 'h' }],
    ['no bound arguments', { approvedBy: 'alice', argsHash: '' }],
  ])('refuses an approval with %s: it needs both a person and the arguments they approved', async (_label, approval) => {
    const context = createTestToolContext({ phase: 'approval' });
    let ran = false;
    await expect(
      new HelmApprovalHITLMiddleware().wrap({ tool: tool('helm_install_chart', 'mutable'), input: {}, context, approval }, async () => {
        ran = true;
      }),
    ).rejects.toMatchObject({ code: 'HELM_APPROVAL_REQUIRED' });
    expect(ran).toBe(false);
  });

  it('holds any tool declared mutable, not only the helm operations it knows by name, and says which tool in the error and the audit', async () => {
    const context = createTestToolContext({ phase: 'execution' });
    const middleware = new HelmApprovalHITLMiddleware();
    expect(middleware.name).toBe('HelmApprovalHITLMiddleware');
    const refused = await middleware
      .wrap({ tool: tool('helm_scale_workload', 'mutable'), input: {}, context }, async () => 'ran')
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'HELM_APPROVAL_REQUIRED', message: expect.stringContaining('helm_scale_workload') });
    expect(context.audited).toEqual([
      expect.objectContaining({ type: 'helm_unapproved_call_refused', payload: { tool: 'helm_scale_workload', phase: 'execution' } }),
    ]);
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
