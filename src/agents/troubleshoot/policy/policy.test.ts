import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../../core/tools/index.ts';
import { troubleshootAgent } from '../index.ts';
import { MAX_ITERATIONS, TROUBLESHOOT_INSTRUCTIONS } from '../prompt.ts';
import { AUTO_APPROVE_RULE, agentModeAutoApprove } from './policy.ts';

const tool = defineTool({
  name: 'suggest_ssh_command',
  description: '',
  input: z.object({ command: z.string() }),
  mutability: 'mutable',
  execute: async () => 0,
});
const allowAll = () => ({ verdict: 'allow' as const, reason: 'ok' });
const blockRm = (command: string) => (command.includes('rm -rf') ? { verdict: 'block' as const, reason: 'rm' } : allowAll());

describe('troubleshoot policy and prompt', () => {
  it('AR-03 auto-approve applies only in Agent Mode with Auto-approve checked, and only for commands the validator allows', () => {
    const rule = agentModeAutoApprove(blockRm);
    expect(rule.name).toBe(AUTO_APPROVE_RULE);
    const call = (command: string, sessionOptions: Record<string, unknown>) => rule.applies({ tool, input: { command }, sessionOptions });
    expect(call('uptime', { agentMode: true, autoApprove: true })).toBe(true);
    expect(call('uptime', { agentMode: true })).toBe(false);
    expect(call('uptime', { autoApprove: true })).toBe(false);
    expect(call('uptime', { agentMode: 'yes', autoApprove: true })).toBe(false);
    expect(call('rm -rf /srv', { agentMode: true, autoApprove: true })).toBe(false);
    expect(
      rule.applies({
        tool: { ...tool, name: 'other' },
        input: { command: 'uptime' },
        sessionOptions: { agentMode: true, autoApprove: true },
      }),
    ).toBe(false);
  });

  it('AR-17 the step limit is 20 (max_iterations) and the prompt says so', () => {
    expect(MAX_ITERATIONS).toBe(20);
    expect(TROUBLESHOOT_INSTRUCTIONS).toContain('at most 20 steps');
  });

  it('AR-18 AR-19 the system prompt has the 5-phase protocol and forbids invented tool output', () => {
    const order = ['1. Identify', '2. Verify', '3. Investigate', '4. Plan', '5. Act'].map((phase) =>
      TROUBLESHOOT_INSTRUCTIONS.indexOf(phase),
    );
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(TROUBLESHOOT_INSTRUCTIONS).toContain('YOU MUST CALL TOOLS');
    expect(troubleshootAgent.instructions).toBe(TROUBLESHOOT_INSTRUCTIONS);
    expect(troubleshootAgent.pillars).toEqual(['troubleshoot', 'revive']);
  });

  it('AR-20 AR-21 the prompt asks for runbook links and a [SUGGESTIONS] block', () => {
    expect(TROUBLESHOOT_INSTRUCTIONS).toContain('[Open runbook](docs/runbooks/');
    expect(TROUBLESHOOT_INSTRUCTIONS).toContain('[SUGGESTIONS]');
  });
});
