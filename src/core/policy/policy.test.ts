import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../tools/index.ts';
import { approvalHash } from './approval-binding.ts';
import { type CallPolicy, createCedarPolicy, DEFAULT_POLICY_DIR, loadPolicyDirectory } from './cedar/index.ts';
import { decidePolicy, type PolicyInput } from './policy.ts';
import { approvalStillBinds } from './verify-approval.ts';

const read = defineTool({ name: 'r', description: 'r', input: z.object({}), mutability: 'read-only', execute: async () => 0 });
const write = defineTool({ name: 'w', description: 'w', input: z.object({}), mutability: 'mutable', execute: async () => 0 });
const policy = createCedarPolicy(loadPolicyDirectory());
const base = { policy, user: { username: 'john_doe', roles: ['user'] }, agent: 'troubleshoot', at: new Date('2026-11-22T10:00:00Z') };
const decide = (input: Omit<PolicyInput, keyof typeof base>) => decidePolicy({ ...base, ...input });
const rule = {
  name: 'agent-mode-auto-approve',
  applies: (call: { sessionOptions: Readonly<Record<string, unknown>> }) =>
    call.sessionOptions.autoApprove === true && call.sessionOptions.agentMode === true,
};

describe('decidePolicy', () => {
  it('blocks whatever the validator blocks, even read-only tools and auto-approve sessions', () => {
    const verdict = { verdict: 'block' as const, reason: 'rm -rf /', rule: 'linux.rm-root' };
    expect(
      decide({ tool: read, input: {}, verdict, autoApproveRules: [rule], sessionOptions: { agentMode: true, autoApprove: true } }),
    ).toMatchObject({ action: 'block', policyId: 'validator:linux.rm-root', reason: 'rm -rf /' });
    expect(
      decide({ tool: write, input: {}, verdict, autoApproveRules: [rule], sessionOptions: { agentMode: true, autoApprove: true } }).action,
    ).toBe('block');
  });
  it('runs read-only tools', () => {
    expect(decide({ tool: read, input: {}, autoApproveRules: [], sessionOptions: {} })).toEqual({
      action: 'run',
      policyId: 'read-only-runs',
    });
  });
  it('asks for mutable tools unless a named rule applies, and names the rule', () => {
    expect(
      decide({ tool: write, input: {}, verdict: { verdict: 'allow', reason: 'ok' }, autoApproveRules: [rule], sessionOptions: {} }),
    ).toMatchObject({ action: 'ask', policyId: 'state-changes-need-approval', requiredApprovals: 1 });
    expect(decide({ tool: write, input: {}, autoApproveRules: [rule], sessionOptions: { agentMode: true, autoApprove: true } })).toEqual({
      action: 'auto',
      rule: 'agent-mode-auto-approve',
      policyId: 'troubleshoot-agent-mode-auto-approve',
    });
  });
});

describe('decidePolicy with a policy directory of its own', () => {
  it('names the validator when it blocks without a rule, and the Cedar policy when a forbid blocks', () => {
    expect(
      decide({ tool: write, input: {}, verdict: { verdict: 'block', reason: 'no' }, autoApproveRules: [], sessionOptions: {} }),
    ).toMatchObject({
      action: 'block',
      policyId: 'validator',
    });
    const dir = mkdtempSync(join(tmpdir(), 'opsgate-policy-'));
    cpSync(DEFAULT_POLICY_DIR, dir, { recursive: true });
    writeFileSync(
      join(dir, 'frozen.cedar'),
      '@id("change-freeze")\n@reason("changes are frozen")\nforbid (principal, action == Opsgate::Action::"call", resource)\nwhen { context.mutable && context.riskLevel >= 2 };\n',
    );
    try {
      const frozen = createCedarPolicy(loadPolicyDirectory(dir));
      expect(
        decidePolicy({ ...base, policy: frozen, tool: write, input: {}, risk: 'high', autoApproveRules: [], sessionOptions: {} }),
      ).toEqual({
        action: 'block',
        policyId: 'change-freeze',
        reason: 'changes are frozen',
      });
      expect(decidePolicy({ ...base, policy: frozen, tool: write, input: {}, autoApproveRules: [], sessionOptions: {} }).action).toBe(
        'ask',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('decidePolicy passes on what the Cedar policy reads', () => {
  it('the door a call came through and the risk scored from its arguments', () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsgate-policy-'));
    cpSync(DEFAULT_POLICY_DIR, dir, { recursive: true });
    writeFileSync(
      join(dir, 'no-gateway-writes.cedar'),
      '@id("no-gateway-writes")\n@reason("no writes through the gateway")\nforbid (principal, action == Opsgate::Action::"call", resource)\nwhen { context.mutable && context.channel == "gateway" };\n',
    );
    try {
      const own = createCedarPolicy(loadPolicyDirectory(dir));
      const call = { ...base, policy: own, tool: write, input: {}, autoApproveRules: [], sessionOptions: {} };
      expect(decidePolicy({ ...call, channel: 'gateway' })).toMatchObject({ action: 'block', policyId: 'no-gateway-writes' });
      expect(decidePolicy({ ...call, channel: 'web' }).action).toBe('ask');
      expect(decidePolicy(call).action).toBe('ask');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the system the tool names as its target, and its environment', () => {
    const deploy = defineTool({
      name: 'deploy',
      description: 'deploy',
      input: z.object({ cluster: z.string() }),
      mutability: 'mutable',
      policyTarget: (input) => (input.cluster === 'none' ? undefined : { name: input.cluster, environment: 'production' }),
      execute: async () => 0,
    });
    const dir = mkdtempSync(join(tmpdir(), 'opsgate-policy-'));
    cpSync(DEFAULT_POLICY_DIR, dir, { recursive: true });
    writeFileSync(
      join(dir, 'eu-prod-two.cedar'),
      '@id("eu-production-needs-two")\npermit (principal, action == Opsgate::Action::"requireSecondApprover", resource)\nwhen { context.environment == "production" && context.target == "eu-1" };\n',
    );
    try {
      const own = createCedarPolicy(loadPolicyDirectory(dir));
      const call = (cluster: string) =>
        decidePolicy({ ...base, policy: own, tool: deploy, input: { cluster }, autoApproveRules: [], sessionOptions: {} });
      expect(call('eu-1')).toEqual({
        action: 'ask',
        policyId: 'eu-production-needs-two',
        reason: 'Policy eu-production-needs-two asks two distinct people to approve deploy.',
        requiredApprovals: 2,
      });
      expect(call('us-1')).toMatchObject({ action: 'ask', requiredApprovals: 1 });
      expect(call('none')).toMatchObject({ action: 'ask', requiredApprovals: 1 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the policy as the rule when an auto-approval names no agent rule', () => {
    const autoWithoutRule: CallPolicy = {
      dir: '',
      decideCall: () => ({ action: 'auto', policyId: 'approve-everything', reason: '', requiredApprovals: 0 }),
      mayApprove: () => ({ allowed: false, policyId: '', reason: '', eligibleApprovers: [] }),
    };
    expect(decidePolicy({ ...base, policy: autoWithoutRule, tool: write, input: {}, autoApproveRules: [], sessionOptions: {} })).toEqual({
      action: 'auto',
      policyId: 'approve-everything',
      rule: 'approve-everything',
    });
  });
});

describe('approvalHash', () => {
  it('is stable for equal arguments in any key order and changes with any argument, call, tool or binding', () => {
    const base = approvalHash('c1', 'grant', { a: 1, b: [1, 2] });
    expect(approvalHash('c1', 'grant', { b: [1, 2], a: 1 })).toBe(base);
    expect(approvalHash('c1', 'grant', { a: 2, b: [1, 2] })).not.toBe(base);
    expect(approvalHash('c2', 'grant', { a: 1, b: [1, 2] })).not.toBe(base);
    expect(approvalHash('c1', 'revoke', { a: 1, b: [1, 2] })).not.toBe(base);
    expect(approvalHash('c1', 'grant', { a: 1, b: [1, 2] }, 'plan-hash')).not.toBe(base);
  });

  it('keeps its durable format: sha256 of ["opsgate-approval-v1", call, tool, sha256 of the canonical arguments, binding]', () => {
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    const argsDigest = sha256('{"amount":30,"to":"bob"}');
    expect(approvalHash('call-1', 'transfer', { to: 'bob', amount: 30 })).toBe(
      sha256(`["opsgate-approval-v1","call-1","transfer","${argsDigest}",""]`),
    );
    expect(approvalHash('call-1', 'transfer', { to: 'bob', amount: 30 }, 'plan-digest')).toBe(
      sha256(`["opsgate-approval-v1","call-1","transfer","${argsDigest}","plan-digest"]`),
    );
  });
});

describe('approvalStillBinds', () => {
  const check = { callId: 'call-1', tool: 'transfer', args: { to: 'bob', amount: 30 }, bindingDigest: 'plan-1' };
  const hash = approvalHash(check.callId, check.tool, check.args, check.bindingDigest);

  it('holds only when the stored proposal, the approval shown and the call as it is now all hash alike', () => {
    expect(approvalStillBinds({ ...check, storedHash: hash, shownHash: hash })).toBe(true);
    expect(approvalStillBinds({ ...check, storedHash: hash, shownHash: 'a hash the person never saw' })).toBe(false);
    expect(approvalStillBinds({ ...check, storedHash: 'a stored hash of other arguments', shownHash: hash })).toBe(false);
    expect(approvalStillBinds({ ...check, bindingDigest: 'plan-2', storedHash: hash, shownHash: hash })).toBe(false);
  });
});
