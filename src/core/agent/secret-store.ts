import type { Store } from '../store/index.ts';
import type { SecretStore } from './define-agent.ts';

/**
 * Secrets kept in the store's `secrets` table. Values are only ever handed to the code that
 * uses them (an SSH connection, an HTTP header); they are never logged, audited or sent to a model.
 */
export function createStoreSecretStore(store: Store, now: () => Date = () => new Date()): SecretStore {
  return {
    async get(name) {
      const row = await store.db.selectFrom('secrets').select('value').where('name', '=', name).executeTakeFirst();
      return row?.value;
    },
    async set(name, value) {
      await store.db
        .insertInto('secrets')
        .values({ name, value, created_at: now().toISOString() })
        .onConflict((oc) => oc.column('name').doUpdateSet({ value }))
        .execute();
    },
    async delete(name) {
      await store.db.deleteFrom('secrets').where('name', '=', name).execute();
    },
  };
}
