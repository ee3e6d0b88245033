import { describe, expect, it } from 'vitest';
import type { Risk } from '../../tools/index.ts';
import { createCedarPolicy, loadPolicyDirectory, type PolicyCall } from './index.ts';

// Each default rule pinned at its boundary, on a call no other rule forbids, so that moving one
// rule's threshold (e.g. `riskLevel >= 2` to `>= 3`) turns exactly these cases red. The calls are
// a troubleshoot command and a sandbox commit: neither sensitive nor aimed at production.

const policy = createCedarPolicy(loadPolicyDirectory());
const at = new Date('2026-11-26T10:00:00Z');
const john = { username: 'john_doe', roles: ['user'], teams: ['engineering'] };
const alice = { username: 'alice', roles: ['approver'] };
const dora = { username: 'dora', roles: ['admin'] };
const bob = { username: 'bob', roles: ['user'] };
const RISKS: readonly Risk[] = ['low', 'medium', 'high', 'critical'];
const CHANNELS = ['web', 'rest', 'cli', 'chat', 'mcp', 'gateway', 'slack', 'teams'] as const;

const command = (risk: Risk): PolicyCall => ({
  tool: 'suggest_ssh_command',
  agent: 'troubleshoot',
  mutable: true,
  risk,
  args: { host_id: 3, command: 'systemctl restart nginx' },
});
const commit = (risk: Risk): PolicyCall => ({
  tool: 'commit_transaction',
  agent: 'sandbox',
  mutable: true,
  risk,
  args: { transaction_id: 'tx-1' },
});
const grant = (access: string): PolicyCall => ({
  tool: 'grant_access_to_user',
  agent: 'access',
  mutable: true,
  risk: 'medium',
  args: { user_id: 1, username: 'john_doe', access_name: access },
});

describe('sod-no-self-approval-high-risk at its boundary', () => {
  describe.each(CHANNELS)('through %s', (channel) => {
    it.each([
      ['low', true],
      ['medium', true],
      ['high', false],
      ['critical', false],
    ] as const)('a requester approving his own %s-risk command: allowed %s', (risk, allowed) => {
      for (const call of [command(risk), commit(risk)]) {
        const verdict = policy.mayApprove({ approver: john, requester: john, call, approvalsSoFar: [], channel, at });
        expect(verdict).toMatchObject(
          allowed
            ? { allowed: true, policyId: 'requester-approves-own-call' }
            : { allowed: false, policyId: 'sod-no-self-approval-high-risk' },
        );
      }
    });
  });

  it.each(RISKS)('an approver other than the requester may approve a %s-risk command', (risk) => {
    expect(policy.mayApprove({ approver: alice, requester: john, call: command(risk), approvalsSoFar: [], at })).toMatchObject({
      allowed: true,
      policyId: 'approvers-approve',
    });
    expect(policy.mayApprove({ approver: dora, requester: john, call: command(risk), approvalsSoFar: [], at })).toMatchObject({
      allowed: true,
      policyId: 'admins-approve',
    });
  });

  it('names the people who may approve a high-risk call in place of its requester', () => {
    const verdict = policy.mayApprove({
      approver: john,
      requester: john,
      call: command('high'),
      approvalsSoFar: [],
      candidates: [john, alice, dora, bob],
      at,
    });
    expect(verdict.eligibleApprovers).toEqual(['alice', 'dora']);
  });

  it('does not let a plain user approve someone else, at any risk', () => {
    for (const risk of RISKS)
      expect(policy.mayApprove({ approver: bob, requester: john, call: command(risk), approvalsSoFar: [], at }).allowed).toBe(false);
  });
});

describe('sod-no-self-approval-sensitive-access at its boundary', () => {
  it.each([
    ['DB_WRITE_DEV', false],
    ['CLUSTER_ADMIN', false],
    ['BILLING_EXPORT', false],
    ['FINANCE_REPORTS', false],
    ['PAYROLL_VIEW', false],
    ['DB_READ_PROD', true],
    ['READ_DOCUMENTS', true],
  ] as const)('a requester confirming his own medium-risk grant of %s: allowed %s', (access, allowed) => {
    const verdict = policy.mayApprove({ approver: john, requester: john, call: grant(access), approvalsSoFar: [], at });
    expect(verdict).toMatchObject(
      allowed
        ? { allowed: true, policyId: 'requester-approves-own-call' }
        : { allowed: false, policyId: 'sod-no-self-approval-sensitive-access' },
    );
  });

  it('leaves revoking a write access to its requester (taking a permission away is not sensitive)', () => {
    const revoke: PolicyCall = { ...grant('DB_WRITE_DEV'), tool: 'revoke_access_from_user' };
    expect(policy.mayApprove({ approver: john, requester: john, call: revoke, approvalsSoFar: [], at })).toMatchObject({
      allowed: true,
      policyId: 'requester-approves-own-call',
    });
  });
});

describe('sod-no-self-approval-production at its boundary', () => {
  const onTarget = (environment: string | undefined): PolicyCall => ({
    ...command('low'),
    ...(environment === undefined ? {} : { target: { name: 'web1', environment } }),
  });
  it.each([
    ['production', false],
    ['staging', true],
    [undefined, true],
  ] as const)('a requester approving his own low-risk change on a %s target: allowed %s', (environment, allowed) => {
    const verdict = policy.mayApprove({ approver: john, requester: john, call: onTarget(environment), approvalsSoFar: [], at });
    expect(verdict).toMatchObject(allowed ? { allowed: true } : { allowed: false, policyId: 'sod-no-self-approval-production' });
  });
});

describe('elicitation-below-high-risk-only at its boundary', () => {
  it.each([
    ['low', true],
    ['medium', true],
    ['high', false],
    ['critical', false],
  ] as const)('an approver answering an MCP elicitation for a %s-risk call: allowed %s', (risk, allowed) => {
    const verdict = policy.mayApprove({
      approver: alice,
      requester: john,
      call: command(risk),
      approvalsSoFar: [],
      channel: 'mcp-elicitation',
      at,
    });
    expect(verdict).toMatchObject(
      allowed ? { allowed: true, policyId: 'approvers-approve' } : { allowed: false, policyId: 'elicitation-below-high-risk-only' },
    );
  });
});

describe('sod-distinct-approvers at its boundary', () => {
  it('refuses a second approval by the first approver and accepts one by someone else', () => {
    const call = command('critical');
    expect(policy.mayApprove({ approver: alice, requester: john, call, approvalsSoFar: ['alice'], at })).toMatchObject({
      allowed: false,
      policyId: 'sod-distinct-approvers',
    });
    expect(policy.mayApprove({ approver: dora, requester: john, call, approvalsSoFar: ['alice'], at })).toMatchObject({
      allowed: true,
    });
  });
});

describe('no-approval-with-a-borrowed-credential at its boundary', () => {
  it('refuses an approver using a token someone else issued, at every risk, and allows the same person with his own', () => {
    for (const risk of RISKS) {
      const call = command(risk);
      expect(
        policy.mayApprove({ approver: alice, requester: john, call, approvalsSoFar: [], credentialIssuedBy: 'dora', at }),
      ).toMatchObject({ allowed: false, policyId: 'no-approval-with-a-borrowed-credential' });
      expect(policy.mayApprove({ approver: alice, requester: john, call, approvalsSoFar: [], at }).allowed).toBe(true);
    }
  });
});

describe('troubleshoot-agent-mode-auto-approve at its boundary', () => {
  const options = { agentMode: true, autoApprove: true };
  it.each([
    ['low', 'auto'],
    ['medium', 'auto'],
    ['high', 'ask'],
    ['critical', 'ask'],
  ] as const)('Agent Mode with Auto-approve on a %s-risk command: %s', (risk, action) => {
    const decision = policy.decideCall({
      user: john,
      call: command(risk),
      autoApproveRule: 'agent-mode-auto-approve',
      sessionOptions: options,
      at,
    });
    expect(decision.action).toBe(action);
  });

  it('never auto-approves when Agent Mode or Auto-approve is off', () => {
    for (const sessionOptions of [
      { agentMode: true, autoApprove: false },
      { agentMode: false, autoApprove: true },
    ])
      expect(
        policy.decideCall({ user: john, call: command('low'), autoApproveRule: 'agent-mode-auto-approve', sessionOptions, at }).action,
      ).toBe('ask');
  });
});
