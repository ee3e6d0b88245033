import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, type SandboxConnection } from '../../src/agents/sandbox/bridge/connect.ts';
import { DbBridge } from '../../src/agents/sandbox/bridge/db-bridge.ts';
import { ensureDemoDatabase } from '../../src/agents/sandbox/demo/index.ts';
import { hashDatabaseFiles } from '../../src/agents/sandbox/demo/testing.ts';
import { TransactionConflictError, WriteOutsideTransactionError } from '../../src/agents/sandbox/errors.ts';

const INSERT =
  "INSERT INTO customers (id, name, email, country, created_at) VALUES (77, 'Remote', 'remote@example.com', 'XX', '2024-07-01')";

async function exercise(connection: SandboxConnection, path: string): Promise<void> {
  const bridge = new DbBridge({ id: 'remote', channel: connection.channel }, path);
  const before = hashDatabaseFiles(path);
  await expect(bridge.query(INSERT)).rejects.toBeInstanceOf(WriteOutsideTransactionError);
  await expect(bridge.query('COMMIT; DROP TABLE orders')).rejects.toMatchObject({ code: 'SQL_NOT_ALLOWED' });
  expect(hashDatabaseFiles(path)).toBe(before);
  const rolledBack = await bridge.beginTransaction();
  await rolledBack.execute(INSERT);
  await expect(bridge.beginTransaction()).rejects.toBeInstanceOf(TransactionConflictError);
  await rolledBack.rollback();
  expect((await bridge.query('SELECT count(*) AS n FROM customers WHERE id = 77')).rows[0]).toEqual({ n: 0 });
  const committed = await bridge.beginTransaction();
  await committed.execute(INSERT);
  expect((await committed.preview()).rows).toHaveLength(1);
  await committed.commit();
  expect((await bridge.query('SELECT count(*) AS n FROM customers WHERE id = 77')).rows[0]).toEqual({ n: 1 });
}

describe('the sandbox MCP server over real transports (opsgate mcp-server sandbox)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-sandbox-mcp-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stdio: lists the tools with readOnlyHint / destructiveHint and runs begin → rollback / commit', async () => {
    const path = ensureDemoDatabase(join(dir, 'stdio.db'));
    const connection = await connectStdio(['--db', path]);
    try {
      const { tools } = await connection.client.listTools();
      const hints = Object.fromEntries(
        tools.map((tool) => [tool.name, [tool.annotations?.readOnlyHint, tool.annotations?.destructiveHint]]),
      );
      expect(hints).toEqual({ execute_query: [false, true], inspect_state: [true, false], run_profiler: [true, false] });
      await exercise(connection, path);
    } finally {
      await connection.close();
    }
  });

  it('refuses a missing database and an unknown server with clear errors', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn('bin/opsgate', args, { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        child.once('exit', (code) => resolve({ code, stderr }));
      });
    expect(await run(['mcp-server', 'nosuch'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/no MCP server named "nosuch"/) });
    expect(await run(['mcp-server', 'sandbox'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/--db FILE/) });
    expect(await run(['mcp-server', 'sandbox', '--db', join(dir, 'missing.db')])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/does not exist/),
    });
  });
});
