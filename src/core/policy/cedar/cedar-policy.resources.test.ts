import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCedarPolicy, loadPolicyDirectory, type PolicyCall } from './index.ts';

// What a call acts on, as a policy sees it: the resource entity read from the call's arguments by
// their conventional names. Each kind is pinned by a policy that lets only that exact resource run,
// so a wrong type, id or attribute (or the wrong argument name winning) turns the answer into `ask`.
const dir = mkdtempSync(join(tmpdir(), 'opsgate-cedar-resources-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(
  join(dir, 'resources.cedar'),
  `
@id("calls") permit (principal, action == Opsgate::Action::"call", resource);
@id("asks") permit (principal, action == Opsgate::Action::"ask", resource);
@id("access") permit (principal, action == Opsgate::Action::"run", resource == Opsgate::Access::"READ_DOCS")
when { resource.name == "READ_DOCS" };
@id("release") permit (principal, action == Opsgate::Action::"run", resource == Opsgate::Release::"shop/web")
when { resource.name == "web" && resource.namespace == "shop" };
@id("release-without-namespace") permit (principal, action == Opsgate::Action::"run", resource == Opsgate::Release::"/api")
when { resource.name == "api" && resource.namespace == "" };
@id("namespace") permit (principal, action == Opsgate::Action::"run", resource == Opsgate::Namespace::"shop")
when { resource.name == "shop" };
@id("host") permit (principal, action == Opsgate::Action::"run", resource == Opsgate::Host::"3")
when { resource.id == "3" };
@id("database") permit (principal, action == Opsgate::Action::"run", resource == Opsgate::Database::"orders")
when { resource.name == "orders" };
@id("tool") permit (principal, action == Opsgate::Action::"run", resource == Opsgate::Tool::"helm/helm_status")
when { resource.name == "helm_status" && resource.agent == "helm" };
`,
);
const policy = createCedarPolicy(loadPolicyDirectory(dir));
const user = { username: 'john_doe', roles: ['user'] };
const at = new Date('2026-11-27T05:00:00Z');
const call = (args: Record<string, unknown>, tool = 'helm_status'): PolicyCall => ({
  tool,
  agent: 'helm',
  mutable: true,
  risk: 'low',
  args,
});
const decidedBy = (args: Record<string, unknown>, tool?: string) => {
  const decision = policy.decideCall({ user, call: call(args, tool), at });
  return decision.action === 'run' ? decision.policyId : decision.action;
};

describe('the resource a policy sees, read from the call arguments', () => {
  it.each([
    ['an access by access_name', { access_name: 'READ_DOCS' }, 'access'],
    ['an access by accessName', { accessName: 'READ_DOCS' }, 'access'],
    ['a release in its namespace', { namespace: 'shop', release: 'web' }, 'release'],
    ['a release by release_name', { namespace: 'shop', release_name: 'web' }, 'release'],
    ['a release by releaseName', { namespace: 'shop', releaseName: 'web' }, 'release'],
    ['a release without a namespace', { release: 'api' }, 'release-without-namespace'],
    ['a namespace alone', { namespace: 'shop' }, 'namespace'],
    ['a host by a numeric host_id', { host_id: 3 }, 'host'],
    ['a host by hostId', { hostId: '3' }, 'host'],
    ['a host by host', { host: '3' }, 'host'],
    ['a database by database', { database: 'orders' }, 'database'],
    ['a database by db', { db: 'orders' }, 'database'],
    ['the tool itself when nothing is named', {}, 'tool'],
    [
      'the tool itself when the names are empty or not text',
      { access_name: '', release: '', namespace: '', host: '', database: '', db: true },
      'tool',
    ],
  ])('%s', (_name, args, policyId) => {
    expect(decidedBy(args)).toBe(policyId);
  });

  it('takes the most specific name first: access, then release, namespace, host, database', () => {
    expect(decidedBy({ access_name: 'READ_DOCS', namespace: 'shop', release: 'web', host: '3', database: 'orders' })).toBe('access');
    expect(decidedBy({ namespace: 'shop', release: 'web', host: '3', database: 'orders' })).toBe('release');
    expect(decidedBy({ namespace: 'shop', host: '3', database: 'orders' })).toBe('namespace');
    expect(decidedBy({ host: '3', database: 'orders' })).toBe('host');
    // The first conventional name with a value wins over the later ones.
    expect(decidedBy({ host_id: 3, host: 'other' })).toBe('host');
    expect(decidedBy({ host_id: '', host: '3' })).toBe('host');
  });

  it('does not let one resource stand for another with the same name', () => {
    expect(decidedBy({ namespace: 'other', release: 'web' })).toBe('ask');
    expect(decidedBy({ release: 'web' })).toBe('ask');
    expect(decidedBy({ host: '4' })).toBe('ask');
    expect(decidedBy({ database: 'customers' })).toBe('ask');
    expect(decidedBy({}, 'helm_history')).toBe('ask');
  });
});
