import { hashPassword, type UserRecord, UserRepository } from '../core/identity/users.ts';
import type { Store } from '../core/store/index.ts';

/** One real scrypt hash per password per process (each costs ~0.1 CPU-s and 32 MiB by design). */
const hashesByPassword = new Map<string, Promise<string>>();

/**
 * Creates the people of a test server, each signing in with `password`. Their rows share one real
 * scrypt hash of it, made once per process, instead of four fresh hashes for every server a suite
 * starts (those were most of the CPU of a server fixture). Signing in still runs scrypt in full
 * against the stored hash; only the salt is shared, which no test of these people looks at.
 */
export async function seedUsers(
  store: Store,
  people: readonly { readonly username: string; readonly roles: readonly string[] }[],
  password: string,
): Promise<UserRecord[]> {
  const users = new UserRepository(store);
  let hash = hashesByPassword.get(password);
  if (hash === undefined) {
    hash = hashPassword(password);
    hashesByPassword.set(password, hash);
  }
  const seeded: UserRecord[] = [];
  for (const person of people) {
    const user = await users.create({ username: person.username, roles: person.roles });
    await store.db
      .updateTable('users')
      .set({ password_hash: await hash })
      .where('id', '=', user.id)
      .execute();
    seeded.push({ ...user, hasPassword: true });
  }
  return seeded;
}
