import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../core/audit/index.ts';
import { UserRepository } from '../../core/identity/users.ts';
import { openStore } from '../../core/store/index.ts';
import { main } from '../main.ts';

function run(args: string[], env: Record<string, string>, stdin = '') {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  return main(args, { stdout, stderr, stdin: Readable.from([stdin]), env }).then((code) => ({ code, out, err }));
}

describe('opsgate users', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-users-'));
    env = { OPSGATE_DATA_DIR: dir };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('adds a person with a password from stdin, issues a token once, and lists people', async () => {
    expect(await run(['users', 'add', 'carol', '--role', 'approver', '--password-stdin'], env, 'long-password-1\n')).toMatchObject({
      code: 0,
    });
    const token = await run(['users', 'token', 'carol', '--name', 'ci'], env);
    expect(token.code).toBe(0);
    expect(token.out.trim()).toMatch(/^ogt_[A-Za-z0-9_-]{43}$/);
    const listed = await run(['users', 'list'], env);
    expect(listed.out).toMatch(/^carol\tapprover\tpassword\t/m);
    const store = await openStore({ dataDir: dir, databaseUrl: '' });
    const users = new UserRepository(store);
    expect(await users.verifyLogin('carol', 'long-password-1')).toMatchObject({ roles: ['approver'] });
    expect((await users.authenticateToken(token.out.trim()))?.identity).toMatchObject({ username: 'carol' });
    await store.close();
  });

  it('issues tokens with expiry and scope, lists them with their issuer, changes passwords, roles and disables, all on the record', async () => {
    await run(['users', 'add', 'erin', '--role', 'approver', '--password-stdin'], env, 'long-password-1\n');
    const token = await run(['users', 'token', 'erin', '--expires', '30d', '--scope', 'use,approve'], env);
    expect(token.code).toBe(0);
    expect(token.err).toMatch(/scope use,approve, expires \d{4}-/);
    const listed = await run(['users', 'tokens', 'erin'], env);
    expect(listed.out).toMatch(/\tcli\tuse,approve\texpires \S+\tissued by local-admin\tnever used/);
    expect((await run(['users', 'passwd', 'erin', '--password-stdin'], env, 'another-password\n')).out).toContain('API tokens stay valid');
    expect((await run(['users', 'role', 'erin', '--role', 'user'], env)).out).toContain('erin now has user');
    expect((await run(['users', 'disable', 'erin'], env)).code).toBe(0);
    expect((await run(['users', 'list'], env)).out).toMatch(/^erin\tuser\tpassword\t\S+\tdisabled$/m);
    const store = await openStore({ dataDir: dir, databaseUrl: '' });
    try {
      const users = new UserRepository(store);
      expect(await users.authenticateToken(token.out.trim())).toBeUndefined();
      const events = await new AuditLog(store).list();
      expect(events.map((e) => [e.type, e.actor, e.payload.by])).toEqual([
        ['user_created', 'system', 'local-admin'],
        ['token_issued', 'system', 'local-admin'],
        ['user_password_changed', 'system', 'local-admin'],
        ['user_roles_changed', 'system', 'local-admin'],
        ['user_disabled', 'system', 'local-admin'],
      ]);
      expect(String(events[0]!.payload.via)).toMatch(/^cli/);
      expect(JSON.stringify(events)).not.toContain(token.out.trim());
      expect(JSON.stringify(events)).not.toContain('long-password-1');
    } finally {
      await store.close();
    }
  });

  it('answers bad arguments with one line and exit code 2', async () => {
    for (const args of [
      ['users'],
      ['users', 'add'],
      ['users', 'add', 'x', '--role', 'root'],
      ['users', 'list', 'x'],
      ['users', 'token', 'x', '--role', 'admin'],
      ['users', 'token', 'x', '--expires', '2y'],
      ['users', 'token', 'x', '--expires', 'soon'],
      ['users', 'token', 'x', '--scope', 'root'],
      ['users', 'passwd', 'x'],
      ['users', 'role', 'x'],
    ]) {
      const result = await run(args, env);
      expect(result.code).toBe(2);
      expect(result.err.trim().split('\n')).toHaveLength(1);
    }
    const duplicate = await run(['users', 'add', 'dave'], env);
    expect(duplicate.code).toBe(0);
    const again = await run(['users', 'add', 'dave'], env);
    expect(again.code).toBe(1);
    expect(again.err).toContain('USER_EXISTS');
  });
});
