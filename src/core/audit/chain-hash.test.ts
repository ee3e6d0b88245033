import { describe, expect, it } from 'vitest';
import { AUDIT_HASH_VERSION, GENESIS_HASH, hashAuditEvent } from './chain-hash.ts';

describe('the audit chain hash', () => {
  it('a chain written by an earlier opsgate still verifies (the durable format, computed outside opsgate)', () => {
    // SHA-256 (hex) of the JSON array [version, seq, sessionId, type, actor, payload, createdAt,
    // prevHash], computed with Python's hashlib: a change to the hashed form turns this red.
    expect(AUDIT_HASH_VERSION).toBe('opsgate-audit-v1');
    expect(GENESIS_HASH).toBe('0'.repeat(64));
    const first = hashAuditEvent(GENESIS_HASH, {
      seq: 1,
      sessionId: null,
      type: 'tool_approved',
      actor: 'user:alice',
      payload: '{"callId":"c1"}',
      createdAt: '2026-11-24T10:00:00.000Z',
    });
    expect(first).toBe('c049c116ad83c78c441e53ff2a2362f59d254bfa74e187fb5c8f8402c439ca64');
    const second = { seq: 2, sessionId: 's1', type: 'warning', actor: 'system', payload: '{}', createdAt: '2026-11-24T10:00:01.000Z' };
    expect(hashAuditEvent(first, second)).toBe('4f50d0b47c94b24a88601315b8c7237cbbfac2659471727acab2108f8b5cb805');
    // Every field and the link are in the hash.
    const edits = [{ seq: 3 }, { sessionId: 's2' }, { type: 'warnings' }, { actor: 'user:bob' }, { payload: '{ }' }, { createdAt: 'x' }];
    for (const edit of edits) expect(hashAuditEvent(first, { ...second, ...edit })).not.toBe(hashAuditEvent(first, second));
    expect(hashAuditEvent(GENESIS_HASH, second)).not.toBe(hashAuditEvent(first, second));
  });
});
