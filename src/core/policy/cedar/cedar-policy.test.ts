import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCedarPolicy, DEFAULT_POLICY_DIR, loadPolicyDirectory, type PolicyCall } from './index.ts';

const at = new Date('2026-11-22T10:00:00Z');
const john = { username: 'john_doe', roles: ['user'], teams: ['engineering'] };
const alice = { username: 'alice', roles: ['approver'] };
const carol = { username: 'carol', roles: ['approver'] };
const bob = { username: 'bob', roles: ['user'] };
const grant = (access: string): PolicyCall => ({
  tool: 'grant_access_to_user',
  agent: 'access',
  mutable: true,
  risk: 'medium',
  args: { user_id: 1, username: 'john_doe', access_name: access },
});
const uninstall: PolicyCall = {
  tool: 'helm_uninstall',
  agent: 'helm',
  mutable: true,
  risk: 'critical',
  args: { namespace: 'shop', release: 'web' },
};

const dirs: string[] = [];
function policyDir(extra: Record<string, string>, withDefault = true): string {
  const dir = mkdtempSync(join(tmpdir(), 'opsgate-policy-'));
  dirs.push(dir);
  if (withDefault) cpSync(DEFAULT_POLICY_DIR, dir, { recursive: true });
  for (const [file, text] of Object.entries(extra)) writeFileSync(join(dir, file), text);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the default Cedar policy', () => {
  const policy = createCedarPolicy(loadPolicyDirectory());

  it('runs read-only calls at once and asks a person for state changes, naming the policy', () => {
    const read = policy.decideCall({
      user: john,
      call: { tool: 'list_accesses', agent: 'access', mutable: false, risk: 'low', args: {} },
      at,
    });
    expect(read).toMatchObject({ action: 'run', policyId: 'read-only-runs', requiredApprovals: 0 });
    expect(policy.decideCall({ user: john, call: grant('READ_DOCUMENTS'), at })).toMatchObject({
      action: 'ask',
      policyId: 'state-changes-need-approval',
      requiredApprovals: 1,
    });
  });

  it('lets the troubleshoot Agent Mode rule approve only with Agent Mode and Auto-approve on, and never a high-risk command', () => {
    const call: PolicyCall = {
      tool: 'suggest_ssh_command',
      agent: 'troubleshoot',
      mutable: true,
      risk: 'medium',
      args: { host_id: 3, command: 'df -h' },
    };
    const rule = 'agent-mode-auto-approve';
    expect(
      policy.decideCall({ user: john, call, autoApproveRule: rule, sessionOptions: { agentMode: true, autoApprove: true }, at }),
    ).toMatchObject({
      action: 'auto',
      rule,
      policyId: 'troubleshoot-agent-mode-auto-approve',
    });
    for (const risk of ['high', 'critical'] as const)
      expect(
        policy.decideCall({
          user: john,
          call: { ...call, risk },
          autoApproveRule: rule,
          sessionOptions: { agentMode: true, autoApprove: true },
          at,
        }),
      ).toMatchObject({ action: 'ask', policyId: 'state-changes-need-approval' });
    expect(policy.decideCall({ user: john, call, autoApproveRule: rule, sessionOptions: { agentMode: true }, at })).toMatchObject({
      action: 'ask',
    });
    expect(
      policy.decideCall({
        user: john,
        call: { ...call, agent: 'helm' },
        autoApproveRule: rule,
        sessionOptions: { agentMode: true, autoApprove: true },
        at,
      }).action,
    ).toBe('ask');
  });

  it('refuses self-approval of sensitive accesses and high or critical calls, and names who can approve', () => {
    const candidates = [john, alice, carol, bob];
    const own = policy.mayApprove({ approver: john, requester: john, call: grant('DB_WRITE_PROD'), approvalsSoFar: [], candidates, at });
    expect(own).toMatchObject({ allowed: false, policyId: 'sod-no-self-approval-sensitive-access', eligibleApprovers: ['alice', 'carol'] });
    expect(own.reason).toContain('write');
    expect(policy.mayApprove({ approver: alice, requester: john, call: grant('DB_WRITE_PROD'), approvalsSoFar: [], at })).toMatchObject({
      allowed: true,
      policyId: 'approvers-approve',
    });
    expect(policy.mayApprove({ approver: john, requester: john, call: uninstall, approvalsSoFar: [], at })).toMatchObject({
      allowed: false,
      policyId: 'sod-no-self-approval-high-risk',
    });
    expect(policy.mayApprove({ approver: john, requester: john, call: grant('READ_DOCUMENTS'), approvalsSoFar: [], at })).toMatchObject({
      allowed: true,
      policyId: 'requester-approves-own-call',
    });
    expect(policy.mayApprove({ approver: bob, requester: john, call: grant('READ_DOCUMENTS'), approvalsSoFar: [], at }).allowed).toBe(
      false,
    );
    expect(policy.mayApprove({ approver: alice, requester: john, call: uninstall, approvalsSoFar: ['alice'], at })).toMatchObject({
      allowed: false,
      policyId: 'sod-distinct-approvers',
    });
  });

  it('refuses self-approval of a change to a production target, whatever its risk, and lets another approver approve it', () => {
    const upgrade = (environment: string): PolicyCall => ({
      tool: 'helm_upgrade_release',
      agent: 'helm',
      mutable: true,
      risk: 'medium',
      args: { namespace: 'shop', release: 'web', cluster: 'eu-1' },
      target: { name: 'eu-1', environment },
    });
    expect(policy.mayApprove({ approver: john, requester: john, call: upgrade('production'), approvalsSoFar: [], at })).toMatchObject({
      allowed: false,
      policyId: 'sod-no-self-approval-production',
    });
    expect(policy.mayApprove({ approver: alice, requester: john, call: upgrade('production'), approvalsSoFar: [], at })).toMatchObject({
      allowed: true,
      policyId: 'approvers-approve',
    });
    expect(policy.mayApprove({ approver: john, requester: john, call: upgrade('staging'), approvalsSoFar: [], at })).toMatchObject({
      allowed: true,
      policyId: 'requester-approves-own-call',
    });
    const { target: _target, ...untargeted } = upgrade('production');
    expect(policy.mayApprove({ approver: john, requester: john, call: untargeted, approvalsSoFar: [], at }).allowed).toBe(true);
  });
});

describe('a policy directory', () => {
  it('can require two distinct approvers for critical calls', () => {
    const dir = policyDir({
      'two-approvers.cedar':
        '@id("two-approvers-for-critical")\npermit (principal, action == Opsgate::Action::"requireSecondApprover", resource)\nwhen { context.riskLevel >= 3 };\n',
    });
    const policy = createCedarPolicy(loadPolicyDirectory(dir));
    expect(policy.decideCall({ user: john, call: uninstall, at })).toMatchObject({
      action: 'ask',
      policyId: 'two-approvers-for-critical',
      requiredApprovals: 2,
    });
    expect(policy.decideCall({ user: john, call: grant('READ_DOCUMENTS'), at }).requiredApprovals).toBe(1);
  });

  it('answers exactly per person when a policy names a user or reads a username (no shared stand-in answers)', () => {
    const dir = policyDir({
      'bob-runs.cedar':
        '@id("bob-runs-uninstalls")\npermit (principal == Opsgate::User::"bob", action == Opsgate::Action::"run", resource)\nwhen { context.tool == "helm_uninstall" };\n',
      'svc-approve.cedar':
        '@id("no-service-accounts-approve")\nforbid (principal, action == Opsgate::Action::"approve", resource)\nwhen { principal.username like "svc-*" };\n',
    });
    const policy = createCedarPolicy(loadPolicyDirectory(dir));
    const bob = { username: 'bob', roles: ['user'], teams: ['engineering'] };
    // Same roles and teams: with stand-ins john would get bob's cached answer.
    expect(policy.decideCall({ user: bob, call: uninstall, at }).action).toBe('run');
    expect(policy.decideCall({ user: john, call: uninstall, at }).action).toBe('ask');
    const service = { username: 'svc-deploy', roles: ['approver'] };
    const carol = { username: 'carol', roles: ['approver'] };
    const call = grant('READ_DOCUMENTS');
    expect(policy.mayApprove({ approver: carol, requester: john, call, approvalsSoFar: [], at }).allowed).toBe(true);
    expect(policy.mayApprove({ approver: service, requester: john, call, approvalsSoFar: [], at }).allowed).toBe(false);
  });

  it('shares answers between people with the same roles and teams under the default policy, still telling the requester apart', () => {
    const policy = createCedarPolicy(loadPolicyDirectory());
    const mary = { username: 'mary', roles: ['user'], teams: ['engineering'] };
    const call: PolicyCall = {
      tool: 'grant_access_to_user',
      agent: 'access',
      mutable: true,
      risk: 'high',
      args: { access_name: 'DB_WRITE_PROD' },
    };
    const alice = { username: 'alice', roles: ['approver'] };
    for (const requester of [john, mary]) {
      expect(policy.mayApprove({ approver: requester, requester, call, approvalsSoFar: [], at }).allowed).toBe(false);
      expect(policy.mayApprove({ approver: alice, requester, call, approvalsSoFar: [], at }).allowed).toBe(true);
      expect(policy.mayApprove({ approver: alice, requester, call, approvalsSoFar: ['alice'], at }).allowed).toBe(false);
      expect(
        policy.mayApprove({ approver: alice, requester, call, approvalsSoFar: [], candidates: [requester, alice, mary], at })
          .eligibleApprovers,
      ).toEqual(['alice']);
    }
  });

  it('lets a policy read the target and its environment from the context', () => {
    const dir = policyDir({
      'prod-two.cedar': `@id("prod-needs-two")
permit (principal, action == Opsgate::Action::"requireSecondApprover", resource)
when { context.mutable && context.environment == "production" && context.target like "eu-*" };`,
    });
    const policy = createCedarPolicy(loadPolicyDirectory(dir));
    const call = (environment: string): PolicyCall => ({
      tool: 'helm_install_chart',
      agent: 'helm',
      mutable: true,
      risk: 'medium',
      args: { namespace: 'shop', release: 'web' },
      target: { name: 'eu-1', environment },
    });
    expect(policy.decideCall({ user: john, call: call('production'), at })).toMatchObject({ action: 'ask', requiredApprovals: 2 });
    expect(policy.decideCall({ user: john, call: call('dev'), at })).toMatchObject({ action: 'ask', requiredApprovals: 1 });
  });

  it('can block calls with a forbid, named in the decision', () => {
    const dir = policyDir({
      'no-weekend-uninstall.cedar':
        '@id("no-uninstall-on-sundays")\n@reason("no uninstalls on Sundays")\nforbid (principal, action == Opsgate::Action::"call", resource)\nwhen { context.tool == "helm_uninstall" && context.weekday == 7 };\n',
    });
    const policy = createCedarPolicy(loadPolicyDirectory(dir));
    const sunday = new Date('2026-11-22T10:00:00Z');
    expect(policy.decideCall({ user: john, call: uninstall, at: sunday })).toEqual({
      action: 'block',
      policyId: 'no-uninstall-on-sundays',
      reason: 'no uninstalls on Sundays',
      requiredApprovals: 0,
    });
    expect(policy.decideCall({ user: john, call: uninstall, at: new Date('2026-11-23T10:00:00Z') }).action).toBe('ask');
  });

  it('fails with a typed error naming the problem: syntax, schema, missing @id, duplicate @id, empty', () => {
    const syntax = policyDir({ 'bad.cedar': '@id("x") permit (principal, action, resource' }, false);
    expect(() => loadPolicyDirectory(syntax)).toThrow(
      expect.objectContaining({ code: 'POLICY_INVALID', message: expect.stringContaining('bad.cedar') }),
    );
    const schema = policyDir(
      { 'typo.cedar': '@id("typo") permit (principal, action == Opsgate::Action::"run", resource) when { context.riskLevl > 1 };' },
      false,
    );
    expect(() => loadPolicyDirectory(schema)).toThrow(
      expect.objectContaining({ code: 'POLICY_INVALID', message: expect.stringContaining('policy "typo"') }),
    );
    const anonymous = policyDir({ 'a.cedar': 'permit (principal, action, resource);' }, false);
    expect(() => loadPolicyDirectory(anonymous)).toThrow(
      expect.objectContaining({ code: 'POLICY_INVALID', message: expect.stringContaining('@id') }),
    );
    const twice = policyDir({ 'z.cedar': '@id("read-only-runs") permit (principal, action == Opsgate::Action::"run", resource);' });
    expect(() => loadPolicyDirectory(twice)).toThrow(
      expect.objectContaining({ code: 'POLICY_INVALID', message: expect.stringContaining('used twice') }),
    );
    expect(() => loadPolicyDirectory(policyDir({}, false))).toThrow(expect.objectContaining({ code: 'POLICY_DIR_NOT_FOUND' }));
  });
});
