import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpsgateError } from '../../../core/errors/index.ts';
import { propertySeeds } from '../../../testing/property-seeds.ts';
import { createSandboxFixture, type SandboxFixture } from '../demo/testing.ts';

let fixture: SandboxFixture;
beforeAll(async () => {
  fixture = await createSandboxFixture('sql-property', { readBudget: { timeMs: 2_000, maxRows: 500 } });
});
afterAll(() => fixture.dispose());

/** A small SQL grammar: reads, every kind of write, pragmas (reading and setting), ATTACH, VACUUM INTO, transaction control. */
function statements(dir: string): fc.Arbitrary<string> {
  const table = fc.constantFrom('customers', 'orders', 'products', 'order_items', 'sqlite_master', 'temp.t', 'no_such_table');
  const column = fc.constantFrom('id', 'name', 'email', 'total', '*', 'rowid');
  const value = fc.oneof(fc.integer({ min: -5, max: 5 }).map(String), fc.constantFrom("'x'", 'NULL', "x'00'", '(SELECT 1)'));
  const file = fc.constantFrom('attack.db', 'demo.db', 'copy.db', '../escape.db').map((name) => `'${join(dir, name)}'`);
  const pragma = fc.constantFrom(
    'user_version',
    'journal_mode',
    'page_size',
    'integrity_check',
    'writable_schema',
    'foreign_keys',
    'locking_mode',
    'wal_checkpoint',
    'schema_version',
    'table_info',
  );
  const select = fc
    .tuple(column, table, value)
    .map(([c, t, v]) => fc.constantFrom(`SELECT ${c} FROM ${t}`, `SELECT ${c} FROM ${t} WHERE ${v} LIMIT 3`, `SELECT ${v}`));
  const write = fc
    .tuple(table, column, value)
    .map(([t, c, v]) =>
      fc.constantFrom(
        `INSERT INTO ${t} DEFAULT VALUES`,
        `INSERT INTO ${t} SELECT * FROM ${t}`,
        `REPLACE INTO ${t} (${c}) VALUES (${v})`,
        `UPDATE ${t} SET ${c} = ${v}`,
        `DELETE FROM ${t}`,
        `DROP TABLE ${t}`,
        `DROP TABLE IF EXISTS ${t}`,
        `CREATE TABLE IF NOT EXISTS ${t} (x)`,
        `CREATE TEMP TABLE ${t.replace('temp.', '')} AS SELECT 1`,
        `CREATE INDEX IF NOT EXISTS i ON ${t} (${c})`,
        `CREATE VIEW v AS SELECT ${c} FROM ${t}`,
        `CREATE TRIGGER tr AFTER INSERT ON ${t} BEGIN DELETE FROM ${t}; END`,
        `ALTER TABLE ${t} RENAME TO x`,
        `WITH w AS (SELECT 1) DELETE FROM ${t}`,
        `WITH w AS (SELECT 1) INSERT INTO ${t} SELECT * FROM w`,
      ),
    );
  const control = fc.constantFrom(
    'BEGIN',
    'BEGIN IMMEDIATE',
    'COMMIT',
    'ROLLBACK',
    'SAVEPOINT s',
    'RELEASE s',
    'ANALYZE',
    'REINDEX',
    'VACUUM',
  );
  const pragmas = fc.tuple(pragma, value).map(([p, v]) => fc.constantFrom(`PRAGMA ${p}`, `PRAGMA ${p} = ${v}`, `PRAGMA ${p}(${v})`));
  const files = fc
    .tuple(file, fc.constantFrom('x', 'main', 'temp'))
    .map(([f, alias]) =>
      fc.constantFrom(`ATTACH ${f} AS ${alias}`, `DETACH ${alias}`, `VACUUM INTO ${f}`, `SELECT * FROM pragma_table_list(${f})`),
    );
  const single = fc.oneof(
    select.chain((s) => s),
    write.chain((s) => s),
    control,
    pragmas.chain((s) => s),
    files.chain((s) => s),
  );
  const decorated = fc
    .tuple(single, fc.constantFrom('', '/* c */ ', '-- c\n', '  '), fc.constantFrom('', ';', ' ;  ', '; -- end'))
    .map(([s, prefix, suffix]) => `${prefix}${s}${suffix}`);
  return fc.oneof(
    decorated,
    fc.tuple(decorated, decorated).map(([a, b]) => `${a.replace(/;?\s*(--.*)?$/, '')}; ${b}`),
    fc
      .tuple(
        select.chain((s) => s),
        write.chain((s) => s),
      )
      .map(([a, b]) => `${a}; ${b}`),
  );
}

describe('SQL read path properties (fast-check)', () => {
  it.each(propertySeeds('SQL grammar on the read path'))(
    'never changes the database bytes or its directory, whatever the statement (seed %i)',
    async (seed) => {
      const before = fixture.fileHash();
      const files = readdirSync(fixture.dir).sort();
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(statements(fixture.dir), async (sql) => {
          const error = await fixture.bridge.query(sql).then(
            () => undefined,
            (caught: unknown) => caught,
          );
          if (error !== undefined) {
            expect(OpsgateError.isInstance(error), `${sql}: ${String(error)}`).toBe(true);
            refused += 1;
          }
          expect(fixture.fileHash(), sql).toBe(before);
          expect(readdirSync(fixture.dir).sort(), sql).toEqual(files);
        }),
        { seed, numRuns: 300 },
      );
      expect(refused).toBeGreaterThan(0);
    },
  );
});
