import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assessToolRisk } from '../../core/tools/index.ts';
import { createTestToolContext } from '../../testing/tool-context.ts';
import { createSandboxFixture, type SandboxFixture } from './demo/testing.ts';
import { sandboxTools } from './tools/sandbox-tools.ts';

describe('sandbox risk from the real change preview (docs/risk.md)', () => {
  let fixture: SandboxFixture;
  let tools: ReturnType<typeof sandboxTools>;
  const context = createTestToolContext({ agent: 'sandbox' });
  const tool = (name: string) => tools.find((t) => t.name === name)!;

  beforeEach(async () => {
    fixture = await createSandboxFixture();
    tools = sandboxTools(() => fixture.bridge);
  });
  afterEach(async () => {
    await fixture.bridge.activeTransaction?.rollback();
    await fixture.dispose();
  });

  async function stageThenScore(...statements: string[]) {
    for (const sql of statements) await tool('execute_write').execute({ sql }, context);
    const commit = tool('commit_transaction');
    const preview = await commit.preview!({}, context);
    return { preview, risk: assessToolRisk(commit, {}, preview) };
  }

  it('DROP TABLE is critical and counts the rows the table holds (the changeset has none)', async () => {
    const committed = (await fixture.bridge.query('SELECT count(*) AS n FROM order_items')).rows[0] as { n: number };
    const { preview, risk } = await stageThenScore('DROP TABLE order_items');
    // Issue 31, item 8: the rows a DROP takes with it, and no "0 row(s)" beside them.
    expect(preview.summary).toBe(`drops order_items and its ${committed.n} rows`);
    expect(preview.headline).toBe(`DROP TABLE order_items (${committed.n} rows)`);
    expect(risk).toEqual({ level: 'critical', reason: `commit ${preview.summary}` });
    const output = (await tool('commit_transaction').execute({}, context)) as { summary: string };
    expect(output.summary).toBe(`drops order_items and its ${committed.n} rows`);
  });

  it('deleting rows is high, with the true count', async () => {
    const expected = (await fixture.bridge.query('SELECT count(*) AS n FROM order_items WHERE order_id = 1')).rows[0] as { n: number };
    expect(expected.n).toBeGreaterThan(0);
    const { risk } = await stageThenScore('DELETE FROM order_items WHERE order_id = 1');
    expect(risk).toEqual({ level: 'high', reason: `commit deletes ${expected.n} rows` });
  });

  it('one insert is medium; other DDL is high; staging itself is low and names DDL', async () => {
    const insert = await stageThenScore(
      "INSERT INTO customers (id, name, email, country, created_at) VALUES (77, 'R', 'r@example.com', 'XX', '2024-08-01')",
    );
    expect(insert.risk).toEqual({ level: 'medium', reason: 'commit inserts 1 row' });
    await fixture.bridge.activeTransaction?.rollback();
    const ddl = await stageThenScore('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)');
    expect(ddl.risk.level).toBe('high');
    expect(ddl.risk.reason).toBe('commit changes the schema: create table notes');
    expect(assessToolRisk(tool('execute_write'), { sql: 'DROP TABLE orders' })).toEqual({
      level: 'low',
      reason: 'stages DROP in an uncommitted transaction; the commit is scored on its real changes',
    });
  });

  it('nothing to commit is low', async () => {
    const commit = tool('commit_transaction');
    const preview = await commit.preview!({}, context);
    expect(assessToolRisk(commit, {}, preview)).toEqual({ level: 'low', reason: 'commit: there is no open transaction' });
  });
});
