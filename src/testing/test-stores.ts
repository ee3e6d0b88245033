import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openStore, type Store, type StoreMigration } from '../core/store/index.ts';

/** A fresh, empty store and how to throw it away. */
export interface TestStore {
  readonly store: Store;
  readonly url?: string;
  readonly sqlitePath?: string;
  dispose(): Promise<void>;
}

export interface TestStoreFactory {
  readonly dialect: 'sqlite' | 'postgres';
  create(migrations?: readonly StoreMigration[]): Promise<TestStore>;
}

/** The PostgreSQL server the test command started (`scripts/test.sh`), if any. */
export const testDatabaseUrl: string | undefined = process.env.OPSGATE_TEST_DATABASE_URL;

export const sqliteTestStore: TestStoreFactory = {
  dialect: 'sqlite',
  async create(migrations = []) {
    const dir = mkdtempSync(join(tmpdir(), 'opsgate-test-'));
    const sqlitePath = join(dir, 'opsgate.db');
    const store = await openStore({ sqlitePath, migrations, databaseUrl: '' });
    return {
      store,
      sqlitePath,
      async dispose() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

export const postgresTestStore: TestStoreFactory = {
  dialect: 'postgres',
  async create(migrations = []) {
    if (!testDatabaseUrl) throw new Error('OPSGATE_TEST_DATABASE_URL is not set; run the suite through `npm test`');
    const name = `opsgate_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: testDatabaseUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(testDatabaseUrl);
    url.pathname = `/${name}`;
    const store = await openStore({ databaseUrl: url.toString(), migrations, poolSize: 4 });
    return {
      store,
      url: url.toString(),
      async dispose() {
        await store.close();
        // No FORCE: killing sockets the pool is still closing raises 57P01 in the test process.
        // Wait for them to go instead, then drop.
        const cleanup = new pg.Client({ connectionString: testDatabaseUrl });
        await cleanup.connect();
        try {
          for (let attempt = 0; ; attempt += 1) {
            try {
              await cleanup.query(`DROP DATABASE IF EXISTS ${name}`);
              break;
            } catch (error) {
              if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error;
              await new Promise((resolve) => setTimeout(resolve, 50));
            }
          }
        } finally {
          await cleanup.end();
        }
      },
    };
  },
};

/**
 * The stores every store suite runs against: SQLite always, PostgreSQL when the test command
 * started one. Use with `describe.each(testStoreFactories())`.
 */
export function testStoreFactories(): TestStoreFactory[] {
  return testDatabaseUrl ? [sqliteTestStore, postgresTestStore] : [sqliteTestStore];
}
