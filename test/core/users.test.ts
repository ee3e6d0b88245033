import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpsgateError } from '../../src/core/errors/index.ts';
import { hashPassword, UserRepository, verifyPassword } from '../../src/core/identity/users.ts';
import { type TestStore, testStoreFactories } from '../../src/testing/test-stores.ts';

describe('password hashes', () => {
  it('salts per user and verifies only the right password', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a).not.toBe(b);
    expect(a.startsWith('scrypt-v1$')).toBe(true);
    expect(await verifyPassword('correct horse', a)).toBe(true);
    expect(await verifyPassword('correct horsf', a)).toBe(false);
    expect(await verifyPassword('correct horse', 'md5$abc')).toBe(false);
  });
});

describe.each(testStoreFactories())('UserRepository on $dialect', (factory) => {
  let handle: TestStore;
  let users: UserRepository;
  beforeEach(async () => {
    handle = await factory.create();
    users = new UserRepository(handle.store);
  });
  afterEach(async () => handle.dispose());

  it('creates users with roles and refuses duplicates and unknown roles', async () => {
    const alice = await users.create({ username: 'alice', password: 'password-1', roles: ['approver'] });
    expect(alice.roles).toEqual(['approver']);
    const bob = await users.create({ username: 'bob' });
    expect(bob.roles).toEqual(['user']);
    expect(bob.hasPassword).toBe(false);
    await expect(users.create({ username: 'alice', password: 'password-2' })).rejects.toMatchObject({ code: 'USER_EXISTS' });
    await expect(users.create({ username: 'carol', roles: ['root'] })).rejects.toMatchObject({ code: 'USER_INVALID' });
    await expect(users.create({ username: 'bad name' })).rejects.toMatchObject({ code: 'USER_INVALID' });
    await expect(users.create({ username: 'dave', password: 'short' })).rejects.toBeInstanceOf(OpsgateError);
    expect((await users.list()).map((u) => u.username)).toEqual(['alice', 'bob']);
  });

  it('verifies logins and never stores the password in clear', async () => {
    await users.create({ username: 'john_doe', password: 'secret-password' });
    expect(await users.verifyLogin('john_doe', 'secret-password')).toMatchObject({ username: 'john_doe', roles: ['user'] });
    expect(await users.verifyLogin('john_doe', 'wrong-password')).toBeUndefined();
    expect(await users.verifyLogin('nobody', 'secret-password')).toBeUndefined();
    const row = await handle.store.db.selectFrom('users').select('password_hash').executeTakeFirstOrThrow();
    expect(row.password_hash).not.toContain('secret-password');
    await users.setPassword('john_doe', 'another-password');
    expect(await users.verifyLogin('john_doe', 'secret-password')).toBeUndefined();
    expect(await users.verifyLogin('john_doe', 'another-password')).toBeDefined();
  });

  it('issues tokens shown once, stored as sha256, and authenticates them', async () => {
    const jane = await users.create({ username: 'jane_smith', password: 'secret-password' });
    const issued = await users.createToken('jane_smith', 'ci');
    expect(issued.token).toMatch(/^ogt_[A-Za-z0-9_-]{43}$/);
    const stored = await handle.store.db.selectFrom('api_tokens').selectAll().executeTakeFirstOrThrow();
    expect(stored.token_hash).not.toContain(issued.token);
    expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect((await users.authenticateToken(issued.token))?.identity).toEqual({
      userId: jane.id,
      username: 'jane_smith',
      roles: ['user'],
      channel: 'rest',
    });
    const altered = `${issued.token.slice(0, -1)}${issued.token.endsWith('A') ? 'B' : 'A'}`;
    expect(await users.authenticateToken(altered)).toBeUndefined();
    expect(await users.authenticateToken('not-a-token')).toBeUndefined();
    const listed = await users.listTokens(jane.id);
    expect(listed).toHaveLength(1);
    expect(listed[0]).not.toHaveProperty('token');
    expect(listed[0]?.lastUsedAt).toBeDefined();
    const other = await users.create({ username: 'mallory' });
    await expect(users.revokeToken(other.id, issued.id)).rejects.toMatchObject({ code: 'TOKEN_NOT_FOUND' });
    await users.revokeToken(jane.id, issued.id);
    expect(await users.authenticateToken(issued.token)).toBeUndefined();
  });

  it('writes when a token was last used at most once a minute, not on every request', async () => {
    let now = Date.parse('2026-11-24T10:00:00Z');
    const clocked = new UserRepository(handle.store, { now: () => new Date(now) });
    await clocked.create({ username: 'robot' });
    const issued = await clocked.createToken('robot');
    const robot = await clocked.requireByName('robot');
    const lastUsed = async () => (await clocked.listTokens(robot.id))[0]?.lastUsedAt;
    await clocked.authenticateToken(issued.token);
    expect(await lastUsed()).toBe('2026-11-24T10:00:00.000Z');
    now += 59_000;
    await clocked.authenticateToken(issued.token);
    expect(await lastUsed()).toBe('2026-11-24T10:00:00.000Z');
    now += 1_000;
    await clocked.authenticateToken(issued.token);
    expect(await lastUsed()).toBe('2026-11-24T10:01:00.000Z');
  });
});
