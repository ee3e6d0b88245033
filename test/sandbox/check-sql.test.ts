import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDemoDatabase } from '../../src/agents/sandbox/demo/index.ts';
import { hashDatabaseFiles } from '../../src/agents/sandbox/demo/testing.ts';
import { main } from '../../src/cli/main.ts';

async function run(args: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await main(args, { stdout, stderr, stdin: new PassThrough(), env: {} });
  return { code, out, err };
}

describe('opsgate check-sql', () => {
  let dir: string;
  let db: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-check-sql-'));
    db = ensureDemoDatabase(join(dir, 'demo.db'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the rows of an allowed read and exits 0', async () => {
    const result = await run(['check-sql', '--db', db, '--', "SELECT 'DROP TABLE x' AS s"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toEqual({ allowed: true, reason: 'a single read statement', rows: [{ s: 'DROP TABLE x' }] });
  });

  it.each(['DELETE FROM orders', 'COMMIT; DROP TABLE orders', 'SELECT 1; DELETE FROM orders', "VACUUM INTO '/tmp/x.db'"])(
    'refuses %j with exit 3 and leaves the database unchanged',
    async (sql) => {
      const before = hashDatabaseFiles(db);
      const result = await run(['check-sql', '--db', db, '--', sql]);
      expect(result.code).toBe(3);
      const body = JSON.parse(result.out);
      expect(body).toMatchObject({ allowed: false, rows: [] });
      expect(body.reason.length).toBeGreaterThan(10);
      expect(hashDatabaseFiles(db)).toBe(before);
    },
  );

  it('exits 2 on usage errors', async () => {
    expect((await run(['check-sql', '--', 'SELECT 1'])).code).toBe(2);
    expect((await run(['check-sql', '--db', db])).code).toBe(2);
    expect((await run(['check-sql', '--db', db, '--url', 'postgres://x', '--', 'SELECT 1'])).code).toBe(2);
    expect((await run(['check-sql', '--db', db, '--bogus'])).code).toBe(2);
  });
});
