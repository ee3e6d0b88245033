import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directChannel } from '../../src/agents/sandbox/bridge/channel.ts';
import { DbBridge } from '../../src/agents/sandbox/bridge/db-bridge.ts';
import { PostgresSandboxEngine } from '../../src/agents/sandbox/engines/postgres-engine.ts';
import { POSTGRES_DISGUISED_WRITES } from '../../src/agents/sandbox/engines/sql-corpus.ts';
import { testDatabaseUrl } from '../../src/testing/test-stores.ts';

const SEED = `
CREATE TABLE customers (id integer PRIMARY KEY, name text NOT NULL);
CREATE TABLE products (id integer PRIMARY KEY, stock integer NOT NULL);
CREATE TABLE orders (id integer PRIMARY KEY, customer_id integer NOT NULL, status text NOT NULL, created_at text NOT NULL);
INSERT INTO customers VALUES (1, 'Ada'), (2, 'Grace');
INSERT INTO products VALUES (1, 12);
INSERT INTO orders VALUES (1, 1, 'paid', '2024-05-01');`;

describe.skipIf(!testDatabaseUrl)('PostgreSQL sandbox: the same bridge over a READ ONLY path', () => {
  const suffix = randomBytes(4).toString('hex');
  const role = `sandbox_${suffix}`;
  const database = `sandbox_${suffix}`;
  let engine: PostgresSandboxEngine;
  let bridge: DbBridge;
  let fingerprint: () => Promise<string>;
  let admin: pg.Client;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: testDatabaseUrl });
    await admin.connect();
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await admin.query(`CREATE DATABASE ${database} OWNER ${role}`);
    const url = new URL(testDatabaseUrl!);
    url.pathname = `/${database}`;
    url.username = role;
    const owner = new pg.Client({ connectionString: url.toString() });
    await owner.connect();
    await owner.query(SEED);
    await owner.end();
    engine = await PostgresSandboxEngine.connect(url.toString());
    bridge = new DbBridge({ id: 'pg', channel: directChannel(engine) }, url.toString());
    fingerprint = async () =>
      JSON.stringify([
        (await bridge.query('SELECT * FROM customers ORDER BY id')).rows,
        (await bridge.query('SELECT * FROM products ORDER BY id')).rows,
        (await bridge.query('SELECT * FROM orders ORDER BY id')).rows,
        (await bridge.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")).rows,
      ]);
  });
  afterAll(async () => {
    await engine?.close();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
  });

  it('stops a runaway read at the statement timeout with READ_BUDGET_EXCEEDED, and the data is unchanged', async () => {
    const before = await fingerprint();
    const url = new URL(testDatabaseUrl!);
    url.pathname = `/${database}`;
    url.username = role;
    const bounded = await PostgresSandboxEngine.connect(url.toString(), { readBudget: { timeMs: 300 } });
    try {
      await expect(
        bounded.query('WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c'),
      ).rejects.toMatchObject({ code: 'READ_BUDGET_EXCEEDED', fields: { limit: 'time' } });
    } finally {
      await bounded.close();
    }
    expect(await fingerprint()).toBe(before);
  });

  it('refuses a superuser connection', async () => {
    await expect(PostgresSandboxEngine.connect(testDatabaseUrl!)).rejects.toMatchObject({ code: 'SANDBOX_UNAVAILABLE' });
  });

  it.each(POSTGRES_DISGUISED_WRITES.map((sql) => [sql]))('refuses %j and the data is unchanged', async (sql) => {
    const before = await fingerprint();
    const outcome = await bridge.query(sql).then(
      () => 'answered',
      () => 'refused',
    );
    expect(outcome).toBe('refused');
    expect(await fingerprint()).toBe(before);
    expect((await bridge.query("SELECT current_setting('default_transaction_read_only') AS v")).rows[0]).toEqual({ v: 'off' });
  });

  it('answers reads, and commits or rolls back a transaction', async () => {
    expect((await bridge.query('SELECT name FROM customers WHERE id = $1', [1])).rows).toEqual([{ name: 'Ada' }]);
    expect((await bridge.query("SELECT 'DROP TABLE x' AS s")).rows).toEqual([{ s: 'DROP TABLE x' }]);
    const rolledBack = await bridge.beginTransaction();
    await rolledBack.execute('INSERT INTO customers VALUES ($1, $2)', [3, 'Edsger']);
    await expect(rolledBack.execute('COMMIT')).rejects.toMatchObject({ code: 'SQL_NOT_ALLOWED' });
    await rolledBack.rollback();
    expect((await bridge.query('SELECT count(*)::int AS n FROM customers')).rows).toEqual([{ n: 2 }]);
    const committed = await bridge.beginTransaction();
    await committed.execute('UPDATE products SET stock = 11 WHERE id = 1');
    expect((await committed.preview()).unlistedChanges).toBe(1);
    await committed.commit();
    expect((await bridge.query('SELECT stock FROM products WHERE id = 1')).rows).toEqual([{ stock: 11 }]);
  });
});
