import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createCedarPolicy, DEFAULT_POLICY_DIR, loadPolicyDirectory, type PolicyCall, type PolicySet } from './index.ts';

// While no policy tells one person from another, the adapter asks Cedar with stand-ins for people,
// so everyone with the same roles and teams shares one cached answer (with a different user in every
// session the cache would otherwise never hit; a Cedar request costs about half a millisecond).
// These tests count the requests that reach Cedar: the answers themselves are the same either way
// (cedar-policy.anonymity.test.ts proves the sharing never hands someone another person's answer).
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function countingPolicy(set: PolicySet) {
  const asked = { requests: 0 };
  const policy = createCedarPolicy(set, {
    preparsePolicySet: cedar.preparsePolicySet,
    preparseSchema: cedar.preparseSchema,
    statefulIsAuthorized: (call) => {
      asked.requests += 1;
      return cedar.statefulIsAuthorized(call);
    },
  });
  /** How many requests `work` sent to Cedar. */
  const requestsFor = (work: () => unknown): number => {
    const before = asked.requests;
    work();
    return asked.requests - before;
  };
  return { policy, requestsFor };
}

function defaultPolicyWith(file: string, text: string): PolicySet {
  const dir = mkdtempSync(join(tmpdir(), 'opsgate-cedar-cache-'));
  dirs.push(dir);
  cpSync(DEFAULT_POLICY_DIR, dir, { recursive: true });
  writeFileSync(join(dir, file), text);
  return loadPolicyDirectory(dir);
}

const at = new Date('2026-11-23T05:00:00Z');
const john = { username: 'john_doe', roles: ['user'] };
const bob = { username: 'bob', roles: ['user'] };
const dana = { username: 'dana', roles: ['user'], teams: ['payments'] };
const carol = { username: 'carol', roles: ['approver'] };
const mallory = { username: 'mallory', roles: ['approver'] };
const restart: PolicyCall = {
  tool: 'suggest_ssh_command',
  agent: 'troubleshoot',
  mutable: true,
  risk: 'low',
  args: { host_id: 3, command: 'systemctl restart nginx' },
};

describe('one Cedar answer for everyone with the same roles and teams', () => {
  it('a call asked by a second person with the same roles costs no Cedar request under the default policy', () => {
    const { policy, requestsFor } = countingPolicy(loadPolicyDirectory());
    expect(requestsFor(() => policy.decideCall({ user: john, call: restart, at }))).toBeGreaterThan(0);
    expect(requestsFor(() => policy.decideCall({ user: bob, call: restart, at }))).toBe(0);
    // Another role or a team may be answered differently, so it is asked.
    expect(requestsFor(() => policy.decideCall({ user: carol, call: restart, at }))).toBeGreaterThan(0);
    expect(requestsFor(() => policy.decideCall({ user: dana, call: restart, at }))).toBeGreaterThan(0);
  });

  it('approvers with the same roles share one answer until someone has approved, then each is asked by name', () => {
    const { policy, requestsFor } = countingPolicy(loadPolicyDirectory());
    const approve = (approver: typeof carol, approvalsSoFar: string[]) =>
      requestsFor(() => expect(policy.mayApprove({ approver, requester: john, call: restart, approvalsSoFar, at }).allowed).toBe(true));
    expect(approve(carol, [])).toBe(1);
    expect(approve(mallory, [])).toBe(0);
    // Once alice approved, "is this a second approval by the same person?" needs real names.
    expect(approve(carol, ['alice'])).toBe(1);
    expect(approve(mallory, ['alice'])).toBe(1);
  });

  it('a policy written without spaces, or with more, is read the same as the default one', () => {
    const { policy, requestsFor } = countingPolicy(
      defaultPolicyWith(
        'distinct.cedar',
        [
          '@id("distinct-approvers-again")',
          'forbid (principal, action==Opsgate::Action::"approve", resource)',
          'when { context.approvalsSoFar.contains( principal.username ) };',
        ].join('\n'),
      ),
    );
    expect(requestsFor(() => policy.decideCall({ user: john, call: restart, at }))).toBeGreaterThan(0);
    expect(requestsFor(() => policy.decideCall({ user: bob, call: restart, at }))).toBe(0);
    const approve = (approver: typeof carol) =>
      requestsFor(() => policy.mayApprove({ approver, requester: john, call: restart, approvalsSoFar: [], at }));
    expect(approve(carol)).toBe(1);
    expect(approve(mallory)).toBe(0);
  });
});

describe('the answer cache’s own cost', () => {
  it('a decision serialises its request once, whichever actions it asks about (issue 32)', () => {
    const policy = createCedarPolicy(loadPolicyDirectory());
    const decide = () => policy.decideCall({ user: john, call: restart, at });
    decide();
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      const decision = decide();
      // call, run, ask and requireSecondApprover: four questions about one request.
      expect(decision.action).toBe('ask');
      const requests = stringify.mock.calls.filter(([value]) => Array.isArray(value));
      expect(requests).toHaveLength(1);
    } finally {
      stringify.mockRestore();
    }
  });
});
