import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadAuditKey, parseAuditKey } from './audit-key.ts';
import { journalMac, journalMacProblem } from './journal-mac.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'opsgate-key-'));
  dirs.push(dir);
  return dir;
}

const row = {
  session_id: 's1',
  type: 'tool_approved',
  actor: 'user:alice',
  payload: '{"callId":"c1"}',
  created_at: '2026-11-24T10:00:00.000Z',
};

describe('audit key', () => {
  it('is created 0600 in the data directory on first use, and read back the same afterwards', () => {
    const dir = tempDir();
    const keyFile = join(dir, 'sub', 'audit.key');
    expect(loadAuditKey({ keyFile }, { create: false })).toBeUndefined();
    const created = loadAuditKey({ keyFile }, { create: true })!;
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(parseAuditKey(readFileSync(keyFile, 'utf8'))).toHaveLength(32);
    expect(loadAuditKey({ keyFile }, { create: false })!.id).toBe(created.id);
    expect(created.origin).toBe(keyFile);
  });

  it('takes OPSGATE_AUDIT_KEY (base64 or hex) before the file, and names what to do when it is too short', () => {
    const secret = randomBytes(32);
    const fromBase64 = loadAuditKey({ key: secret.toString('base64'), keyFile: join(tempDir(), 'audit.key') }, { create: true })!;
    const fromHex = loadAuditKey({ key: secret.toString('hex') }, { create: true })!;
    expect(fromBase64.id).toBe(fromHex.id);
    expect(fromBase64.origin).toBe('OPSGATE_AUDIT_KEY');
    expect(() => loadAuditKey({ key: 'c2hvcnQ=' }, { create: true })).toThrow(
      /OPSGATE_AUDIT_KEY is not a usable audit key \(it decodes to 5 bytes; at least 32 are needed\)\. Set it to at least 32 random bytes/,
    );
  });

  it('names an unusable key file and how to fix it', () => {
    const keyFile = join(tempDir(), 'audit.key');
    writeFileSync(keyFile, 'too short');
    expect(() => loadAuditKey({ keyFile }, { create: true })).toThrow(/The audit key file .*audit\.key cannot be used .*mode 0600/);
  });

  it('MACs a journal row so that any change to it, or another key, is named', () => {
    const key = loadAuditKey({ key: randomBytes(32).toString('base64') }, { create: false })!;
    const other = loadAuditKey({ key: randomBytes(32).toString('base64') }, { create: false })!;
    const mac = journalMac(key, row);
    expect(journalMacProblem(key, { ...row, mac })).toBeUndefined();
    expect(journalMac(key, row)).not.toBe(mac);
    expect(journalMacProblem(key, { ...row, actor: 'user:bob', mac })).toBe('its MAC does not match its content');
    expect(journalMacProblem(key, { ...row, mac: null })).toBe('it carries no MAC');
    expect(journalMacProblem(other, { ...row, mac })).toMatch(
      /^its MAC was made with another audit key \(id [0-9a-f]{16}; this key is [0-9a-f]{16}\)$/,
    );
  });
});
