import { describe, expect, it } from 'vitest';
import { identityOf } from './identity-rules.ts';

const alice = { id: 7, username: 'alice', roles: ['approver'], disabled: false };

describe('identityOf: the rules every door applies', () => {
  it('nobody acts for a disabled or unknown account, whatever the door', () => {
    for (const channel of ['web', 'rest', 'cli', 'mcp', 'gateway', 'slack', 'teams'] as const) {
      expect(identityOf({ ...alice, disabled: true }, { channel })).toBeUndefined();
      expect(identityOf(undefined, { channel })).toBeUndefined();
    }
  });

  it('a token keeps only the roles its scopes allow', () => {
    expect(identityOf(alice, { channel: 'rest', scopes: new Set(['use']) })?.roles).toEqual(['user']);
    expect(identityOf(alice, { channel: 'rest', scopes: new Set(['use', 'approve']) })?.roles).toEqual(['user', 'approver']);
    expect(identityOf(alice, { channel: 'slack' })?.roles).toEqual(['approver']);
  });

  it('a credential someone else issued names them; her own does not', () => {
    expect(identityOf(alice, { channel: 'slack', issuedBy: 'admin' })).toEqual({
      userId: 7,
      username: 'alice',
      roles: ['approver'],
      channel: 'slack',
      credentialIssuedBy: 'admin',
    });
    expect(identityOf(alice, { channel: 'rest', issuedBy: 'alice' })).not.toHaveProperty('credentialIssuedBy');
    expect(identityOf(alice, { channel: 'rest', issuedBy: '' })).not.toHaveProperty('credentialIssuedBy');
  });
});
