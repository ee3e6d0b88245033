import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UserRepository } from '../core/identity/users.ts';
import { seedUsers } from './seed-users.ts';
import { sqliteTestStore, type TestStore } from './test-stores.ts';

describe('seedUsers: test people who sign in with one shared scrypt hash', () => {
  let handle: TestStore;
  beforeEach(async () => {
    handle = await sqliteTestStore.create();
  });
  afterEach(async () => handle.dispose());

  it('each person signs in with the password and no other, with the roles given', async () => {
    const seeded = await seedUsers(
      handle.store,
      [
        { username: 'john_doe', roles: ['user'] },
        { username: 'alice', roles: ['approver'] },
      ],
      'correct-horse-battery',
    );
    expect(seeded.map((user) => [user.username, user.roles, user.hasPassword])).toEqual([
      ['john_doe', ['user'], true],
      ['alice', ['approver'], true],
    ]);
    const users = new UserRepository(handle.store);
    expect(await users.verifyLogin('alice', 'correct-horse-battery')).toMatchObject({ username: 'alice', roles: ['approver'] });
    expect(await users.verifyLogin('john_doe', 'correct-horse-battery')).toMatchObject({ username: 'john_doe' });
    expect(await users.verifyLogin('alice', 'correct-horse-batteryX')).toBeUndefined();
    expect((await users.findByName('alice'))?.hasPassword).toBe(true);
  });

  it('a second server of the same process reuses the hash: the stored hashes are equal, and a different password gets its own', async () => {
    await seedUsers(handle.store, [{ username: 'a1', roles: ['user'] }], 'first-password');
    await seedUsers(handle.store, [{ username: 'a2', roles: ['user'] }], 'first-password');
    await seedUsers(handle.store, [{ username: 'b1', roles: ['user'] }], 'other-password');
    const hashes = await handle.store.db.selectFrom('users').select(['username', 'password_hash']).orderBy('username').execute();
    const hashOf = (name: string) => hashes.find((row) => row.username === name)?.password_hash;
    expect(hashOf('a1')).toMatch(/^scrypt-v1\$/);
    expect(hashOf('a2')).toBe(hashOf('a1'));
    expect(hashOf('b1')).not.toBe(hashOf('a1'));
    const users = new UserRepository(handle.store);
    expect(await users.verifyLogin('b1', 'other-password')).toMatchObject({ username: 'b1' });
    expect(await users.verifyLogin('b1', 'first-password')).toBeUndefined();
  });
});
