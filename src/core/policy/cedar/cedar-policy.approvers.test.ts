import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCedarPolicy, DEFAULT_POLICY_DIR, loadPolicyDirectory, type PolicyCall } from './index.ts';

// Who may approve, as the adapter asks Cedar: the requester's roles and teams beside the approver's,
// the credentials the requester acted with, the door each person decides through, and the reason
// said when a policy without @reason decides.
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The default policy plus the given files. */
function policyWith(files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'opsgate-cedar-approvers-'));
  dirs.push(dir);
  cpSync(DEFAULT_POLICY_DIR, dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return createCedarPolicy(loadPolicyDirectory(dir));
}

const at = new Date('2026-11-27T05:00:00Z');
const john = { username: 'john_doe', roles: ['user'], teams: ['payments'] };
const mary = { username: 'mary', roles: ['user'], teams: ['engineering'] };
const paula = { username: 'paula', roles: ['approver'], teams: ['payments'] };
const alice = { username: 'alice', roles: ['approver'] };
const dora = { username: 'dora', roles: ['admin'] };
const bob = { username: 'bob', roles: ['user'] };
const command = (risk: PolicyCall['risk']): PolicyCall => ({
  tool: 'suggest_ssh_command',
  agent: 'troubleshoot',
  mutable: true,
  risk,
  args: { host_id: 3, command: 'systemctl restart nginx' },
});

describe('a rule about the requester reads the requester’s own roles and teams', () => {
  const policy = policyWith({
    'teams.cedar': `@id("no-approval-within-payments")
forbid (principal in Opsgate::Team::"payments", action == Opsgate::Action::"approve", resource)
when { context.requester in Opsgate::Team::"payments" };
`,
  });

  it('refuses an approver of the requester’s team and allows the same approver for someone of another team', () => {
    expect(policy.mayApprove({ approver: paula, requester: john, call: command('low'), approvalsSoFar: [], at })).toMatchObject({
      allowed: false,
      policyId: 'no-approval-within-payments',
      reason: 'policy no-approval-within-payments forbids it',
    });
    expect(policy.mayApprove({ approver: paula, requester: mary, call: command('low'), approvalsSoFar: [], at }).allowed).toBe(true);
  });

  it('names as eligible only the candidates outside the requester’s team, after a first approval too', () => {
    const ask = (approvalsSoFar: string[]) =>
      policy.mayApprove({ approver: alice, requester: john, call: command('low'), approvalsSoFar, candidates: [dora, paula, alice], at });
    expect(ask([]).eligibleApprovers).toEqual(['alice', 'dora']);
    expect(ask(['dora']).eligibleApprovers).toEqual(['alice']);
  });
});

describe('the person who issued a credential the requester acted with', () => {
  const policy = createCedarPolicy(loadPolicyDirectory());

  it('may not approve the call, even as an admin, and is not named as an eligible approver', () => {
    const verdict = policy.mayApprove({
      approver: dora,
      requester: john,
      call: command('low'),
      approvalsSoFar: [],
      requesterCredentialIssuers: ['dora'],
      candidates: [dora, alice],
      at,
    });
    expect(verdict).toMatchObject({ allowed: false, policyId: 'no-approval-by-the-requesters-credential-issuer' });
    expect(verdict.reason).toMatch(/you issued a credential the requester acted with/);
    expect(verdict.eligibleApprovers).toEqual(['alice']);
  });

  it('is told apart from other admins: without the issuer named, the same admin may approve', () => {
    expect(policy.mayApprove({ approver: dora, requester: john, call: command('low'), approvalsSoFar: [], at }).allowed).toBe(true);
    expect(
      policy.mayApprove({
        approver: dora,
        requester: john,
        call: command('low'),
        approvalsSoFar: [],
        requesterCredentialIssuers: ['eve'],
        at,
      }).allowed,
    ).toBe(true);
  });
});

describe('the door each person decides through', () => {
  const policy = createCedarPolicy(loadPolicyDirectory());

  it('asks the approver on the inbox (web) when no door is said, and the candidates always there', () => {
    const high = command('high');
    expect(policy.mayApprove({ approver: alice, requester: john, call: high, approvalsSoFar: [], at }).allowed).toBe(true);
    const byElicitation = policy.mayApprove({
      approver: alice,
      requester: john,
      call: high,
      approvalsSoFar: [],
      channel: 'mcp-elicitation',
      candidates: [alice],
      at,
    });
    expect(byElicitation).toMatchObject({ allowed: false, policyId: 'elicitation-below-high-risk-only', eligibleApprovers: ['alice'] });
  });

  it('takes a decision that names no door as one made in the inbox', () => {
    const inboxOnly = policyWith({
      'inbox-only.cedar': `@id("inbox-only") forbid (principal, action == Opsgate::Action::"approve", resource) unless { context.channel == "web" };`,
    });
    const ask = (channel?: string) =>
      inboxOnly.mayApprove({
        approver: alice,
        requester: john,
        call: command('low'),
        approvalsSoFar: [],
        at,
        ...(channel ? { channel } : {}),
      });
    expect(ask().allowed).toBe(true);
    expect(ask('slack')).toMatchObject({ allowed: false, policyId: 'inbox-only' });
  });

  it('asks the candidates with their own credential, whoever issued the approver’s', () => {
    const verdict = policy.mayApprove({
      approver: alice,
      requester: john,
      call: command('low'),
      approvalsSoFar: [],
      credentialIssuedBy: 'dora',
      candidates: [alice],
      at,
    });
    expect(verdict).toMatchObject({ allowed: false, policyId: 'no-approval-with-a-borrowed-credential', eligibleApprovers: ['alice'] });
  });
});

describe('the reason given when a policy without @reason decides an approval', () => {
  const policy = policyWith({
    'bare.cedar': `@id("no-friday-approvals") forbid (principal, action == Opsgate::Action::"approve", resource) when { context.weekday == 5 };`,
  });

  const friday = new Date('2026-11-27T05:00:00Z');
  const monday = new Date('2026-11-23T05:00:00Z');

  it('names the permitting policy, the approver and the tool', () => {
    expect(policy.mayApprove({ approver: alice, requester: john, call: command('low'), approvalsSoFar: [], at: monday })).toEqual({
      allowed: true,
      policyId: 'approvers-approve',
      reason: 'Policy approvers-approve lets alice approve suggest_ssh_command.',
      eligibleApprovers: [],
    });
  });

  it('names the forbidding policy, or says that no policy lets them approve', () => {
    expect(friday.getUTCDay()).toBe(5);
    expect(policy.mayApprove({ approver: alice, requester: john, call: command('low'), approvalsSoFar: [], at: friday })).toMatchObject({
      allowed: false,
      policyId: 'no-friday-approvals',
      reason: 'policy no-friday-approvals forbids it',
    });
    expect(policy.mayApprove({ approver: bob, requester: john, call: command('low'), approvalsSoFar: [], at: monday })).toEqual({
      allowed: false,
      policyId: 'no-matching-policy',
      reason: 'no policy lets them approve it',
      eligibleApprovers: [],
    });
  });
});
