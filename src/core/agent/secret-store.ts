import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { resolveDataDir, type Store } from '../store/index.ts';
import type { SecretStore } from './define-agent.ts';
import { SecretErrors } from './secret-errors.ts';

/** Values written by this version: AES-256-GCM, `enc:v1:` + base64url(iv ‖ tag ‖ ciphertext). */
const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretKeyOptions {
  /** Default `process.env`: `OPSGATE_SECRETS_KEY` (base64, 32 bytes) wins over the key file. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The 32-byte key itself (tests). */
  readonly key?: Buffer;
}

/**
 * The key that encrypts secrets, kept outside the database: `OPSGATE_SECRETS_KEY`, or
 * `secrets.key` (mode 0600, created on first use) beside the SQLite file, or in the data dir for
 * PostgreSQL — replicas must then share it, best through `OPSGATE_SECRETS_KEY`. An in-memory
 * store gets a key for the life of the process, like its data.
 */
function loadSecretsKey(store: Store, options: SecretKeyOptions): { key: Buffer; source: string } {
  if (options.key) return { key: options.key, source: 'the given key' };
  const env = options.env ?? process.env;
  if (env.OPSGATE_SECRETS_KEY) {
    const key = Buffer.from(env.OPSGATE_SECRETS_KEY, 'base64');
    if (key.length !== 32) throw SecretErrors.SECRETS_KEY_INVALID();
    return { key, source: 'OPSGATE_SECRETS_KEY' };
  }
  if (store.dialect === 'sqlite' && store.location === ':memory:') return { key: randomBytes(32), source: 'a per-process key' };
  const dir = store.dialect === 'sqlite' ? dirname(store.location) : resolveDataDir(env.OPSGATE_DATA_DIR);
  const file = join(dir, 'secrets.key');
  if (!existsSync(file)) {
    // On PostgreSQL nothing else may have created the data directory yet (a first start).
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process created it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw SecretErrors.SECRETS_KEY_INVALID();
  return { key, source: file };
}

function encrypt(key: Buffer, name: string, value: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  // The name is authenticated too, so a ciphertext moved to another row does not decrypt.
  cipher.setAAD(Buffer.from(`opsgate-secret:${name}`));
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

function decrypt(key: Buffer, name: string, stored: string): string {
  const raw = Buffer.from(stored.slice(PREFIX.length), 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(`opsgate-secret:${name}`));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

/**
 * Secrets kept in the store's `secrets` table, encrypted with a key kept outside it. Values are
 * only ever handed to the code that uses them (an SSH connection, an HTTP header); they are never
 * logged, audited or sent to a model. Rows written before encryption are still read, and are
 * encrypted in place when read or written.
 */
export function createStoreSecretStore(store: Store, now: () => Date = () => new Date(), options: SecretKeyOptions = {}): SecretStore {
  let loaded: { key: Buffer; source: string } | undefined;
  const keyInfo = () => {
    loaded ??= loadSecretsKey(store, options);
    return loaded;
  };
  const write = async (name: string, value: string) => {
    const sealed = encrypt(keyInfo().key, name, value);
    await store.db
      .insertInto('secrets')
      .values({ name, value: sealed, created_at: now().toISOString() })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value: sealed }))
      .execute();
  };
  return {
    async get(name) {
      const row = await store.db.selectFrom('secrets').select('value').where('name', '=', name).executeTakeFirst();
      if (!row) return undefined;
      if (!row.value.startsWith(PREFIX)) {
        const sealed = encrypt(keyInfo().key, name, row.value);
        await store.db.updateTable('secrets').set({ value: sealed }).where('name', '=', name).where('value', '=', row.value).execute();
        return row.value;
      }
      const { key, source } = keyInfo();
      try {
        return decrypt(key, name, row.value);
      } catch (error) {
        throw SecretErrors.SECRET_UNREADABLE({ name, keySource: source }, { cause: error });
      }
    },
    set: write,
    async delete(name) {
      await store.db.deleteFrom('secrets').where('name', '=', name).execute();
    },
  };
}
