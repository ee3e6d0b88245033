import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCedarPolicy, DEFAULT_POLICY_DIR, loadPolicyDirectory, type PolicyCall } from './index.ts';

// The adapter asks Cedar with stand-ins for people (one cached answer for everyone with the same
// roles and teams) only while no policy tells one person from another. Each case here adds one
// policy that does, in one of the ways a policy can, to the default set, and asks about two people
// with the same roles and teams: each must get the answer meant for them.
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function policyWith(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'opsgate-cedar-anonymity-'));
  dirs.push(dir);
  cpSync(DEFAULT_POLICY_DIR, dir, { recursive: true });
  writeFileSync(join(dir, 'person.cedar'), text);
  return createCedarPolicy(loadPolicyDirectory(dir));
}

const at = new Date('2026-11-23T05:00:00Z');
const john = { username: 'john_doe', roles: ['user'] };
const svc = { username: 'svc-deploy', roles: ['user'] };
const bob = { username: 'bob', roles: ['user'] };
const carol = { username: 'carol', roles: ['approver'] };
const mallory = { username: 'mallory', roles: ['approver'] };
const restart: PolicyCall = {
  tool: 'suggest_ssh_command',
  agent: 'troubleshoot',
  mutable: true,
  risk: 'low',
  args: { host_id: 3, command: 'systemctl restart nginx' },
};

describe('answers per person when a policy tells people apart', () => {
  it('a call rule that reads the username', () => {
    const policy = policyWith(
      '@id("service-accounts-run") permit (principal, action == Opsgate::Action::"run", resource) when { principal.username like "svc-*" };',
    );
    expect(policy.decideCall({ user: svc, call: restart, at })).toMatchObject({ action: 'run', policyId: 'service-accounts-run' });
    expect(policy.decideCall({ user: john, call: restart, at }).action).toBe('ask');
  });

  it('a rule that names a person for approvals and for running at once', () => {
    const policy = policyWith(
      '@id("bob-trusted") permit (principal == Opsgate::User::"bob", action, resource) when { action == Opsgate::Action::"approve" || action == Opsgate::Action::"run" };',
    );
    expect(policy.decideCall({ user: bob, call: restart, at })).toMatchObject({ action: 'run', policyId: 'bob-trusted' });
    expect(policy.decideCall({ user: john, call: restart, at }).action).toBe('ask');
    expect(policy.mayApprove({ approver: bob, requester: john, call: restart, approvalsSoFar: [], at }).allowed).toBe(true);
    expect(policy.mayApprove({ approver: svc, requester: john, call: restart, approvalsSoFar: [], at }).allowed).toBe(false);
  });

  it('an approval rule that names a person', () => {
    const policy = policyWith(
      '@id("mallory-never-approves") forbid (principal == Opsgate::User::"mallory", action == Opsgate::Action::"approve", resource);',
    );
    const verdict = (approver: typeof carol) =>
      policy.mayApprove({ approver, requester: john, call: restart, approvalsSoFar: [], candidates: [carol, mallory], at });
    expect(verdict(mallory)).toMatchObject({ allowed: false, policyId: 'mallory-never-approves', eligibleApprovers: ['carol'] });
    expect(verdict(carol)).toMatchObject({ allowed: true, eligibleApprovers: ['carol'] });
  });

  it('an approval rule that reads a username other than to keep two approvals distinct', () => {
    const policy = policyWith(
      '@id("no-service-account-approvals") forbid (principal, action == Opsgate::Action::"approve", resource) when { principal.username like "svc-*" };',
    );
    const service = { username: 'svc-approver', roles: ['approver'] };
    expect(policy.mayApprove({ approver: service, requester: john, call: restart, approvalsSoFar: [], at })).toMatchObject({
      allowed: false,
      policyId: 'no-service-account-approvals',
    });
    expect(policy.mayApprove({ approver: carol, requester: john, call: restart, approvalsSoFar: [], at }).allowed).toBe(true);
  });

  it('a second approval by the first approver under the default policy (real names once someone approved)', () => {
    const policy = createCedarPolicy(loadPolicyDirectory());
    expect(policy.mayApprove({ approver: carol, requester: john, call: restart, approvalsSoFar: ['carol'], at })).toMatchObject({
      allowed: false,
      policyId: 'sod-distinct-approvers',
    });
    expect(policy.mayApprove({ approver: mallory, requester: john, call: restart, approvalsSoFar: ['carol'], at }).allowed).toBe(true);
  });
});
