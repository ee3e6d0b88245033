import { describe, expect, it } from 'vitest';
import { AuditKey } from './audit-key.ts';
import { journalMac, journalMacProblem, macNonce } from './journal-mac.ts';

const key = new AuditKey(Buffer.alloc(32, 7), 'test');
const row = {
  session_id: null,
  type: 'tool_approved',
  actor: 'user:alice',
  payload: '{"callId":"c1"}',
  created_at: '2026-11-24T10:00:00.000Z',
};

describe('journal MACs', () => {
  it('a MAC written by an earlier opsgate still verifies (the durable format, computed outside opsgate)', () => {
    // HMAC-SHA256 over "opsgate-journal-v1" + each field as <length>:<text> ("-" for null), nonce first,
    // base64url; computed with Python's hmac module, so a change to the format turns this red.
    const written = 'c91086c218da6151.n0nce.VtSrxHb4rPOq-Wzq_--z4Ao1QB9vniGFdwAaGqGx4PU';
    expect(key.id).toBe('c91086c218da6151');
    expect(journalMacProblem(key, { ...row, mac: written })).toBeUndefined();
    expect(journalMacProblem(key, { ...row, session_id: '-', mac: written })).toBe('its MAC does not match its content');
  });

  it('every MAC is unique, names its key and verifies its own row only', () => {
    const macs = Array.from({ length: 50 }, () => journalMac(key, row));
    expect(new Set(macs.map(macNonce)).size).toBe(50);
    for (const mac of macs) {
      expect(mac.startsWith(`${key.id}.`)).toBe(true);
      expect(journalMacProblem(key, { ...row, mac })).toBeUndefined();
    }
    expect(journalMacProblem(key, { ...row, payload: '{"callId":"c2"}', mac: macs[0]! })).toBe('its MAC does not match its content');
  });

  it.each([
    ['no MAC', null, 'it carries no MAC'],
    ['no key id', '.n.m', 'its MAC is malformed'],
    ['no nonce', 'k..m', 'its MAC is malformed'],
    ['no signature', 'k.n.', 'its MAC is malformed'],
    ['two parts', 'k.n', 'its MAC is malformed'],
    ['four parts', 'k.n.m.x', 'its MAC is malformed'],
  ])('names what is wrong with a row that has %s', (_case, mac, problem) => {
    expect(journalMacProblem(key, { ...row, mac })).toBe(problem);
  });

  it('names the other key a MAC was made with', () => {
    const other = new AuditKey(Buffer.alloc(32, 8), 'other');
    expect(journalMacProblem(key, { ...row, mac: journalMac(other, row) })).toBe(
      `its MAC was made with another audit key (id ${other.id}; this key is ${key.id})`,
    );
  });

  it('reads the nonce of a MAC, and takes a value without dots as its own nonce', () => {
    expect(macNonce('k.n0nce.m')).toBe('n0nce');
    expect(macNonce('legacy')).toBe('legacy');
  });
});
