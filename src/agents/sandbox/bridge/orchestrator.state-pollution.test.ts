import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestToolContext } from '../../../testing/tool-context.ts';
import { createSandboxFixture, type SandboxFixture } from '../demo/testing.ts';
import { SandboxErrors, SandboxRetryExhaustedError, TransactionConflictError, WriteOutsideTransactionError } from '../errors.ts';
import { sandboxTools } from '../tools/sandbox-tools.ts';
import { directChannel } from './channel.ts';
import { DbBridge } from './db-bridge.ts';
import { dispatchWriteCall, isRetryableSandboxError } from './orchestrator.ts';

const INSERT =
  "INSERT INTO customers (id, name, email, country, created_at) VALUES (42, 'Alan Turing', 'alan@example.com', 'GB', '2024-06-01')";
const count = async (bridge: DbBridge) => (await bridge.query('SELECT count(*) AS n FROM customers WHERE id = 42')).rows[0]!.n;

describe('state pollution prevention (3_MCP-RISK-202)', () => {
  let fixture: SandboxFixture;
  beforeEach(async () => {
    fixture = await createSandboxFixture();
  });
  afterEach(() => fixture.dispose());

  it('read-only tools (inspect_state, execute_query with SELECT, run_profiler) do not modify the sandbox', async () => {
    const before = fixture.fileHash();
    const tools = sandboxTools(() => fixture.bridge);
    const context = createTestToolContext({ agent: 'sandbox' });
    for (const tool of tools.filter((t) => t.mutability === 'read-only'))
      expect(['execute_query', 'inspect_state', 'run_profiler']).toContain(tool.name);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    await byName.get('inspect_state')!.execute({ what: 'tables' }, context);
    await byName.get('inspect_state')!.execute({ what: 'describe', table: 'orders' }, context);
    await byName.get('execute_query')!.execute({ sql: 'SELECT * FROM order_totals' }, context);
    await byName.get('run_profiler')!.execute({ sql: 'SELECT * FROM orders WHERE customer_id = ?', params: [1] }, context);
    expect(fixture.fileHash()).toBe(before);
  });

  it('a write through execute_query outside a transaction raises WriteOutsideTransactionError', async () => {
    const before = fixture.fileHash();
    for (const sql of [
      INSERT,
      'UPDATE products SET stock = 0',
      'DELETE FROM orders',
      'DROP TABLE orders',
      'ALTER TABLE orders ADD COLUMN x',
    ]) {
      await expect(fixture.bridge.query(sql)).rejects.toBeInstanceOf(WriteOutsideTransactionError);
    }
    const tool = sandboxTools(() => fixture.bridge).find((t) => t.name === 'execute_query')!;
    await expect(tool.execute({ sql: INSERT }, createTestToolContext())).rejects.toBeInstanceOf(WriteOutsideTransactionError);
    expect(fixture.fileHash()).toBe(before);
  });

  it('beginTransaction returns a TransactionHandle whose rollback reverts every write', async () => {
    const transaction = await fixture.bridge.beginTransaction();
    expect(transaction.state).toBe('open');
    await transaction.execute(INSERT);
    await transaction.execute('UPDATE products SET stock = stock - 1 WHERE id = ?', [1]);
    await transaction.execute('DELETE FROM order_items WHERE order_id = 4');
    expect((await transaction.execute('SELECT count(*) AS n FROM customers WHERE id = 42')).rows[0]).toEqual({ n: 1 });
    await transaction.rollback();
    expect(transaction.state).toBe('rolled back');
    expect(await count(fixture.bridge)).toBe(0);
    expect((await fixture.bridge.query('SELECT stock FROM products WHERE id = 1')).rows[0]).toEqual({ stock: 12 });
    expect((await fixture.bridge.query('SELECT count(*) AS n FROM order_items WHERE order_id = 4')).rows[0]).toEqual({ n: 1 });
  });

  it('after rollback, reads confirm nothing was persisted, also from a fresh connection', async () => {
    const transaction = await fixture.bridge.beginTransaction();
    await transaction.execute(INSERT);
    await transaction.rollback();
    const { DatabaseSync } = await import('node:sqlite');
    const raw = new DatabaseSync(fixture.path, { readOnly: true });
    expect(raw.prepare('SELECT count(*) AS n FROM customers WHERE id = 42').get()).toEqual({ n: 0 });
    raw.close();
  });

  it('beginTransaction then commit persists the changes', async () => {
    const transaction = await fixture.bridge.beginTransaction();
    await transaction.execute(INSERT);
    expect(await count(fixture.bridge)).toBe(0); // not visible before commit
    await transaction.commit();
    expect(transaction.state).toBe('committed');
    expect(await count(fixture.bridge)).toBe(1);
  });

  it('an ended handle refuses execute, commit and preview with WriteOutsideTransactionError; rollback twice is harmless', async () => {
    const committed = await fixture.bridge.beginTransaction();
    await committed.commit();
    await expect(committed.execute(INSERT)).rejects.toBeInstanceOf(WriteOutsideTransactionError);
    await expect(committed.commit()).rejects.toBeInstanceOf(WriteOutsideTransactionError);
    await expect(committed.rollback()).rejects.toBeInstanceOf(WriteOutsideTransactionError);
    const rolledBack = await fixture.bridge.beginTransaction();
    await rolledBack.rollback();
    await rolledBack.rollback();
    await expect(rolledBack.execute(INSERT)).rejects.toBeInstanceOf(WriteOutsideTransactionError);
    await expect(rolledBack.preview()).rejects.toBeInstanceOf(WriteOutsideTransactionError);
    expect(await count(fixture.bridge)).toBe(0);
  });

  it('a second beginTransaction on the same session throws TransactionConflictError (no queueing)', async () => {
    const first = await fixture.bridge.beginTransaction();
    await expect(fixture.bridge.beginTransaction()).rejects.toBeInstanceOf(TransactionConflictError);
    expect(fixture.bridge.activeTransaction).toBe(first);
    // Concurrent requests: exactly one wins.
    await first.rollback();
    const results = await Promise.allSettled([fixture.bridge.beginTransaction(), fixture.bridge.beginTransaction()]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason)).toEqual([
      expect.any(TransactionConflictError),
    ]);
    await fixture.bridge.activeTransaction!.rollback();
  });

  it('another session on the same sandbox server is refused by the server while a transaction is open', async () => {
    const other = new DbBridge({ id: 'other-session', channel: fixture.connection.channel }, fixture.path);
    const transaction = await fixture.bridge.beginTransaction();
    await expect(other.beginTransaction()).rejects.toBeInstanceOf(TransactionConflictError);
    await transaction.rollback();
    const next = await other.beginTransaction();
    await next.rollback();
  });

  it('the orchestrator rolls back before rethrowing SandboxRetryExhaustedError raised mid-transaction', async () => {
    let handleSeen: Awaited<ReturnType<DbBridge['beginTransaction']>> | undefined;
    const error = await dispatchWriteCall(fixture.bridge, async (transaction) => {
      handleSeen = transaction;
      await transaction.execute(INSERT);
      throw new SandboxRetryExhaustedError(3);
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SandboxRetryExhaustedError);
    expect(handleSeen!.state).toBe('rolled back');
    expect(fixture.bridge.activeTransaction).toBeUndefined();
    expect(await count(fixture.bridge)).toBe(0);
  });

  it('the orchestrator retries retryable failures, then raises SandboxRetryExhaustedError after rolling back', async () => {
    let attempts = 0;
    let handleSeen: Awaited<ReturnType<DbBridge['beginTransaction']>> | undefined;
    const logger = pino({ level: 'silent' });
    const error = await dispatchWriteCall(
      fixture.bridge,
      async (transaction, attempt) => {
        attempts = attempt;
        handleSeen = transaction;
        await transaction.execute(INSERT.replace('42', String(100 + attempt)).replace('alan@', `alan${attempt}@`));
        throw SandboxErrors.SQL_FAILED({ detail: 'database is locked', busy: true });
      },
      { maxAttempts: 3, logger },
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SandboxRetryExhaustedError);
    expect((error as SandboxRetryExhaustedError).attempts).toBe(3);
    expect(attempts).toBe(3);
    expect(handleSeen!.state).toBe('rolled back');
    expect((await fixture.bridge.query('SELECT count(*) AS n FROM customers WHERE id > 100')).rows[0]).toEqual({ n: 0 });
  });

  it('the orchestrator keeps the transaction open on success and rolls back its own transaction on other failures', async () => {
    const { value, transaction } = await dispatchWriteCall(fixture.bridge, async (handle) => handle.execute(INSERT));
    expect(value.changes).toBe(1);
    expect(transaction.state).toBe('open');
    await transaction.commit();
    const failure = await dispatchWriteCall(fixture.bridge, async (handle) => handle.execute(INSERT)).catch((caught: unknown) => caught);
    expect(failure).toMatchObject({ code: 'SQL_FAILED' }); // UNIQUE constraint: id 42 exists now
    expect(fixture.bridge.activeTransaction).toBeUndefined();
    // A given open transaction survives a non-retryable failure of its caller.
    const open = await fixture.bridge.beginTransaction();
    await expect(dispatchWriteCall(fixture.bridge, async (handle) => handle.execute(INSERT), { transaction: open })).rejects.toMatchObject({
      code: 'SQL_FAILED',
    });
    expect(open.state).toBe('open');
    await open.rollback();
  });

  it('classifies retryable sandbox errors', () => {
    expect(isRetryableSandboxError(SandboxErrors.SANDBOX_UNAVAILABLE({ detail: 'x' }))).toBe(true);
    expect(isRetryableSandboxError(SandboxErrors.SQL_FAILED({ detail: 'database is busy', busy: true }))).toBe(true);
    // The typed field decides, not the words of the message.
    expect(isRetryableSandboxError(SandboxErrors.SQL_FAILED({ detail: 'database is locked' }))).toBe(false);
    expect(isRetryableSandboxError(SandboxErrors.SQL_FAILED({ detail: 'syntax error' }))).toBe(false);
    expect(isRetryableSandboxError(new Error('database is locked'))).toBe(false);
  });

  it('the change preview lists rows before and after, and its digest changes when the transaction changes', async () => {
    const transaction = await fixture.bridge.beginTransaction();
    await transaction.execute(INSERT);
    await transaction.execute('UPDATE products SET stock = 11 WHERE id = 1');
    await transaction.execute('DELETE FROM order_items WHERE order_id = 4 AND product_id = 5');
    const preview = await transaction.preview();
    expect(preview.rows).toEqual([
      {
        table: 'customers',
        operation: 'insert',
        after: { id: 42, name: 'Alan Turing', email: 'alan@example.com', country: 'GB', created_at: '2024-06-01' },
      },
      { table: 'products', operation: 'update', before: { id: 1, stock: 12 }, after: { stock: 11 } },
      { table: 'order_items', operation: 'delete', before: { order_id: 4, product_id: 5, quantity: 1 } },
    ]);
    expect(preview.summary).toBe('3 statement(s): 1 inserted, 1 updated, 1 deleted row(s)');
    expect((await transaction.preview()).digest).toBe(preview.digest); // deterministic
    await transaction.execute('UPDATE products SET stock = 10 WHERE id = 1');
    expect((await transaction.preview()).digest).not.toBe(preview.digest);
    await transaction.execute('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)');
    expect((await transaction.preview()).schema).toEqual([
      { name: 'table notes', operation: 'create', after: 'CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)' },
    ]);
    await transaction.rollback();
  });

  it('the in-process direct channel behaves like the MCP hop', async () => {
    const bridge = new DbBridge({ id: 'direct', channel: directChannel(fixture.engine) }, fixture.path);
    await expect(bridge.query(INSERT)).rejects.toBeInstanceOf(WriteOutsideTransactionError);
    await expect(bridge.query('SELECT 1; SELECT 2')).rejects.toMatchObject({ code: 'SQL_MULTIPLE_STATEMENTS' });
    await expect(bridge.explain('SELECT * FROM customers')).resolves.toMatchObject({ rowCount: 1 });
    const transaction = await bridge.beginTransaction();
    await transaction.execute(INSERT);
    await transaction.rollback();
    expect(await count(bridge)).toBe(0);
  });
});
