import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCedarPolicy, loadPolicyDirectory, type PolicyCall, policySchema } from './index.ts';

// The adapter between opsgate's questions and Cedar, on small policy sets written here: which
// Cedar action answers which question, the reason said when a policy carries no @reason, and the
// defaults a request without a door or an auto-approve rule is asked with.
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function policyOf(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'opsgate-cedar-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'policy.cedar'), text);
  return createCedarPolicy(loadPolicyDirectory(dir));
}

const user = { username: 'john_doe', roles: ['user'] };
const at = new Date('2026-11-27T05:00:00Z');
const call = (tool: string): PolicyCall => ({ tool, agent: 'troubleshoot', mutable: true, risk: 'low', args: {} });

describe('the Cedar adapter', () => {
  const policy = policyOf(`
@id("calls") permit (principal, action == Opsgate::Action::"call", resource) when { context.tool != "frozen" };
@id("b-runs") permit (principal, action == Opsgate::Action::"run", resource) when { context.tool == "read" };
@id("a-runs") permit (principal, action == Opsgate::Action::"run", resource) when { context.tool == "read" };
@id("asks") permit (principal, action == Opsgate::Action::"ask", resource) when { context.tool != "nowhere" };
@id("nightly") permit (principal, action == Opsgate::Action::"autoApprove", resource) when { context.tool == "restart" };
@id("two") permit (principal, action == Opsgate::Action::"requireSecondApprover", resource) when { context.tool == "drop" };
`);
  const decide = (tool: string, autoApproveRule?: string) =>
    policy.decideCall({ user, call: call(tool), at, ...(autoApproveRule ? { autoApproveRule } : {}) });

  it('says why, in its own words, when the deciding policy has no @reason', () => {
    expect(decide('frozen')).toEqual({
      action: 'block',
      policyId: 'no-matching-policy',
      reason: 'No policy allows frozen here.',
      requiredApprovals: 0,
    });
    expect(decide('read')).toEqual({
      action: 'run',
      policyId: 'a-runs',
      reason: 'Policy a-runs lets read run at once.',
      requiredApprovals: 0,
    });
    expect(decide('restart', 'nightly-restarts')).toEqual({
      action: 'auto',
      policyId: 'nightly',
      rule: 'nightly-restarts',
      reason: 'Policy nightly lets rule nightly-restarts approve restart.',
      requiredApprovals: 0,
    });
    expect(decide('nowhere')).toEqual({
      action: 'block',
      policyId: 'no-matching-policy',
      reason: 'No policy lets nowhere run or wait for approval.',
      requiredApprovals: 0,
    });
    expect(decide('drop')).toEqual({
      action: 'ask',
      policyId: 'two',
      reason: 'Policy two asks two distinct people to approve drop.',
      requiredApprovals: 2,
    });
    expect(decide('write')).toEqual({
      action: 'ask',
      policyId: 'asks',
      reason: 'Policy asks asks a person to approve write.',
      requiredApprovals: 1,
    });
  });

  it('asks the auto-approve question only for a call that names an auto-approve rule', () => {
    expect(decide('restart')).toMatchObject({ action: 'ask', policyId: 'asks' });
  });

  it('asks a call without a door or an auto-approve rule with empty ones', () => {
    const strict = policyOf(`
@id("calls") permit (principal, action == Opsgate::Action::"call", resource);
@id("doorless") permit (principal, action == Opsgate::Action::"run", resource) when { context.channel == "" && context.autoApproveRule == "" && context.target == "" && context.environment == "" };
`);
    expect(strict.decideCall({ user, call: call('read'), at })).toMatchObject({ action: 'run', policyId: 'doorless' });
    expect(strict.decideCall({ user, call: call('read'), at, channel: 'web' })).toMatchObject({ action: 'block' });
  });

  it('fails with a typed error naming the policy, the question and the tool when a policy cannot be evaluated', () => {
    const overflowing = policyOf(`
@id("calls") permit (principal, action == Opsgate::Action::"call", resource);
@id("overflow") permit (principal, action == Opsgate::Action::"run", resource) when { context.hour + 9223372036854775807 > 0 };
@id("overflow-too") permit (principal, action == Opsgate::Action::"run", resource) when { context.weekday + 9223372036854775807 > 0 };
`);
    expect(() => overflowing.decideCall({ user, call: call('read'), at })).toThrow(
      expect.objectContaining({
        code: 'POLICY_EVALUATION_FAILED',
        fields: {
          action: 'run',
          tool: 'read',
          // Both policies, in the order Cedar reports them (not a fixed one).
          detail: expect.stringMatching(
            /^(overflow|overflow-too): integer overflow [^;]+; (overflow|overflow-too): integer overflow [^;]+$/,
          ),
        },
      }),
    );
  });

  it('refuses to decide a call whose risk is not one of its four levels, rather than guessing', () => {
    const odd = { ...call('write'), risk: 'severe' } as unknown as PolicyCall;
    expect(() => policy.decideCall({ user, call: odd, at })).toThrow(
      expect.objectContaining({
        code: 'POLICY_EVALUATION_FAILED',
        fields: {
          action: 'call',
          tool: 'write',
          detail: 'while parsing context, expected the record to have an attribute `riskLevel`, but it does not',
        },
      }),
    );
  });

  it('refuses a policy set Cedar cannot parse, naming the directory and the problem', () => {
    const broken = {
      dir: '/etc/opsgate/policy',
      schema: policySchema(),
      policies: new Map([['p', { id: 'p', file: 'p.cedar', effect: 'permit' as const, text: 'permit (principal, action' }]]),
    };
    expect(() => createCedarPolicy(broken)).toThrow(/^The Cedar policy in \/etc\/opsgate\/policy is invalid: .+\. Fix it and check it/);
  });

  it('names every policy Cedar cannot parse, one after another', () => {
    const broken = (id: string) => ({ id, file: `${id}.cedar`, effect: 'permit' as const, text: 'permit (principal, action' });
    const set = {
      dir: '/etc/opsgate/policy',
      schema: policySchema(),
      policies: new Map([
        ['p', broken('p')],
        ['q', broken('q')],
      ]),
    };
    expect(() => createCedarPolicy(set)).toThrow(
      expect.objectContaining({
        code: 'POLICY_INVALID',
        fields: {
          dir: '/etc/opsgate/policy',
          // Both, in the order Cedar reports them (not a fixed one).
          detail: expect.stringMatching(
            /^failed to parse policy with id `[pq]` from string: unexpected end of input; failed to parse policy with id `[pq]` from string: unexpected end of input$/,
          ),
        },
      }),
    );
  });
});
