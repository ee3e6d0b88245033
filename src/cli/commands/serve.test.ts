import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../core/audit/index.ts';
import { openStore } from '../../core/store/index.ts';
import { startServe } from './serve.ts';

describe('opsgate serve', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-serve-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('seeds the demo logins once (random passwords, file mode 0600), prints the URL and serves the login', async () => {
    let printed = '';
    const out = new PassThrough().on('data', (c) => (printed += c));
    const env = { OPSGATE_DATA_DIR: dir, OPSGATE_LOG_LEVEL: 'error' };
    const first = await startServe({ port: 0, host: '127.0.0.1', env, out });
    try {
      expect(printed).toMatch(/opsgate is serving http:\/\/127\.0\.0\.1:\d+/);
      expect(printed).toContain('offline interpreter');
      const file = join(dir, 'demo-logins.txt');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const logins = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split('\t'));
      expect(logins.map(([name, role]) => `${name}:${role}`)).toEqual([
        'john_doe:user',
        'jane_smith:user',
        'alice:approver',
        'admin:admin',
      ]);
      const passwords = logins.map((l) => l[2]!);
      expect(new Set(passwords).size).toBe(4);
      for (const password of passwords) expect(printed).toContain(password);
      const response = await fetch(`${first.url}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'alice', password: passwords[2] }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('set-cookie')).toMatch(/HttpOnly/i);
    } finally {
      await first.close();
    }
    printed = '';
    const second = await startServe({ port: 0, host: '127.0.0.1', env, out });
    await second.close();
    expect(printed).toContain('demo logins: see');
    expect(printed).not.toMatch(/john_doe\s+user\s+\S+/);
  });

  it('refuses to start with an audit key that is not the one that signed the audit, saying what to do', async () => {
    const store = await openStore({ dataDir: dir, databaseUrl: '', auditKey: '', auditCheckpointFile: '' });
    const audit = new AuditLog(store);
    await audit.append({ type: 'warning', actor: 'system', payload: {} });
    await audit.close();
    await store.close();
    expect(statSync(join(dir, 'audit.key')).mode & 0o777).toBe(0o600);
    writeFileSync(join(dir, 'audit.key'), randomBytes(32).toString('base64'), { mode: 0o600 });
    const env = { OPSGATE_DATA_DIR: dir, OPSGATE_LOG_LEVEL: 'error' };
    await expect(startServe({ port: 0, host: '127.0.0.1', env, out: new PassThrough() })).rejects.toMatchObject({
      code: 'AUDIT_KEY_MISMATCH',
      message: expect.stringMatching(/Put the original key back \(OPSGATE_AUDIT_KEY, or the file .*audit\.key\) on every replica/),
    });
  });
});
