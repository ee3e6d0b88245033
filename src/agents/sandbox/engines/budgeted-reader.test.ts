import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureDemoDatabase } from '../demo/index.ts';
import { BudgetedReader } from './budgeted-reader.ts';

let dir: string;
let path: string;
const readers: BudgetedReader[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsgate-budgeted-reader-'));
  path = ensureDemoDatabase(join(dir, 'demo.db'));
});
afterEach(() => vi.useRealTimers());
afterAll(() => {
  for (const reader of readers) reader.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the read time budget counts the statement, not the start of the read process', () => {
  it('answers the first read however long the read process takes to start', async () => {
    const reader = new BudgetedReader(path, { timeMs: 1_000, maxRows: 100, maxBytes: 100_000 });
    readers.push(reader);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const answer = reader.query('SELECT count(*) AS n FROM customers', []);
    // The process cannot have said it is ready yet (that comes on a later turn of the event loop):
    // ten budgets pass before the read is sent.
    vi.advanceTimersByTime(10_000);
    vi.useRealTimers();
    await expect(answer).resolves.toEqual({ columns: ['n'], rows: [{ n: 5 }], rowCount: 1 });
  });

  it('fails the read, instead of waiting for ever, when the read process does not start within a minute', async () => {
    const reader = new BudgetedReader(path, { timeMs: 1_000, maxRows: 100, maxBytes: 100_000 });
    readers.push(reader);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const answer = reader.query('SELECT count(*) AS n FROM customers', []);
    vi.advanceTimersByTime(60_000);
    vi.useRealTimers();
    await expect(answer).rejects.toMatchObject({
      code: 'SANDBOX_UNAVAILABLE',
      message: expect.stringContaining('did not start within 60 s'),
    });
  });
});
