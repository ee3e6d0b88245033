import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createCedarPolicy, loadPolicyDirectory, type PolicyCall } from '../core/policy/index.ts';
import { gatewayPolicyEnvironment, treatmentOf, upstreamAgentName } from './upstream-agent.ts';

// What the gateway hands the policy for an upstream tool: its treatment (offered? mutable? how
// risky? and the reason shown to the admin) and the Cedar environment its calls are decided in.

const tool = (name: string, annotations?: Tool['annotations']): Tool => ({
  name,
  inputSchema: { type: 'object' },
  ...(annotations ? { annotations } : {}),
});

describe('the gateway policy mapping: how an upstream tool is treated', () => {
  it('a tool an admin denied is withheld, as a critical change, whatever the upstream says', () => {
    expect(treatmentOf(tool('drop_all', { readOnlyHint: true }), { policy: 'deny' }, true)).toEqual({
      offered: false,
      mutability: 'mutable',
      risk: 'critical',
      why: 'denied by an admin',
    });
  });

  it.each(['rm -rf', 'ünïcode', 'a/b', '', 'x'.repeat(129)])('a tool named %j is withheld, even when an admin pinned it', (name) => {
    const withheld = {
      offered: false,
      mutability: 'mutable',
      risk: 'critical',
      why: 'its name has characters other than letters, digits, _ . -',
    };
    expect(treatmentOf(tool(name, { readOnlyHint: true }), undefined, true)).toEqual(withheld);
    expect(treatmentOf(tool(name), { policy: 'run' }, true)).toEqual(withheld);
  });

  it('offers a tool with a plain name and says why it is treated as it is', () => {
    expect(treatmentOf(tool('read_file.v2-x'), { policy: 'run' })).toEqual({
      offered: true,
      mutability: 'read-only',
      risk: 'low',
      why: 'pinned "run" by an admin',
    });
    expect(treatmentOf(tool('write_file'), { policy: 'ask', risk: 'medium' }, true)).toEqual({
      offered: true,
      mutability: 'mutable',
      risk: 'medium',
      why: 'pinned "ask" by an admin',
    });
    expect(treatmentOf(tool('read_file', { readOnlyHint: true }), undefined, true)).toEqual({
      offered: true,
      mutability: 'read-only',
      risk: 'low',
      why: 'the trusted upstream marks it read-only',
    });
    expect(treatmentOf(tool('touch', { destructiveHint: false }), undefined, true)).toEqual({
      offered: true,
      mutability: 'mutable',
      risk: 'medium',
      why: 'the trusted upstream marks it a non-destructive change',
    });
    expect(treatmentOf(tool('remove', { destructiveHint: true }), undefined, true)).toEqual({
      offered: true,
      mutability: 'mutable',
      risk: 'high',
      why: 'the trusted upstream marks it (or leaves it) destructive',
    });
    expect(treatmentOf(tool('remove'), undefined, true).why).toBe('the trusted upstream marks it (or leaves it) destructive');
  });

  it('a non-destructive hint from an untrusted upstream does not lower the risk', () => {
    expect(treatmentOf(tool('touch', { destructiveHint: false }), undefined, false)).toEqual({
      offered: true,
      mutability: 'mutable',
      risk: 'high',
      why: 'the upstream is not marked trusted, so its annotations are not believed',
    });
  });
});

describe('the gateway policy mapping: the Cedar environment of a gateway call', () => {
  const policy = createCedarPolicy(loadPolicyDirectory());
  const mallory = { username: 'mallory', roles: ['user'] };
  const alice = { username: 'alice', roles: ['approver'] };
  const write = (requesterMayApprove: boolean): PolicyCall => ({
    tool: 'write_file',
    agent: upstreamAgentName('files'),
    mutable: true,
    risk: 'low',
    args: { path: '/tmp/x' },
    target: { name: 'files/write_file', environment: gatewayPolicyEnvironment(requesterMayApprove) },
  });
  const approve = (approver: typeof alice, requesterMayApprove: boolean) =>
    policy.mayApprove({
      approver,
      requester: mallory,
      call: write(requesterMayApprove),
      approvalsSoFar: [],
      at: new Date('2026-11-27T05:00:00Z'),
    });

  it('names the environments policies are written against: "gateway", or "gateway-requester-may-approve" where an admin allowed it', () => {
    expect(gatewayPolicyEnvironment(false)).toBe('gateway');
    expect(gatewayPolicyEnvironment(true)).toBe('gateway-requester-may-approve');
  });

  it('a requester may not approve their own low-risk gateway write unless an admin let requesters approve', () => {
    expect(approve(mallory, false)).toMatchObject({ allowed: false, policyId: 'sod-gateway-writes' });
    expect(approve(mallory, true)).toMatchObject({ allowed: true });
    expect(approve(alice, false)).toMatchObject({ allowed: true });
  });
});
