// Smoke test of 3_MCP-RISK-202: begin a transaction, INSERT, roll back, SELECT → the row is absent.
// Runs against a fresh copy of the demo database over the real stdio MCP hop (`opsgate mcp-server sandbox`).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectStdio } from '../src/agents/sandbox/bridge/connect.ts';
import { DbBridge } from '../src/agents/sandbox/bridge/db-bridge.ts';
import { ensureDemoDatabase } from '../src/agents/sandbox/demo/index.ts';

const lines: string[] = [];
const log = (line: string) => {
  lines.push(line);
  console.log(line);
};

const dir = mkdtempSync(join(tmpdir(), 'opsgate-smoke-sandbox-'));
const db = ensureDemoDatabase(join(dir, 'demo.db'));
log(`# opsgate sandbox smoke test — ${new Date().toISOString()}`);
log(`database: fresh copy of the demo database (${db})`);
const connection = await connectStdio(['--db', db]);
let ok = false;
try {
  log(
    `1. connected to "opsgate mcp-server sandbox --db …" over stdio; tools: ${(await connection.client.listTools()).tools.map((t) => t.name).join(', ')}`,
  );
  const bridge = new DbBridge({ id: 'smoke', channel: connection.channel }, db);
  const insert =
    "INSERT INTO customers (id, name, email, country, created_at) VALUES (99, 'Smoke Test', 'smoke@example.com', 'XX', '2024-07-01')";
  try {
    await bridge.query(insert);
    log('2. UNEXPECTED: an INSERT outside a transaction ran');
  } catch (error) {
    log(`2. INSERT outside a transaction refused: ${(error as { code?: string }).code}`);
  }
  const transaction = await bridge.beginTransaction();
  log(`3. beginTransaction() → BEGIN via execute_query; transaction ${transaction.id}`);
  const result = await transaction.execute(insert);
  log(`4. execute(INSERT …) inside the transaction: ${result.changes} row changed`);
  const preview = await transaction.preview();
  log(`5. change preview: ${preview.summary}; digest ${preview.digest.slice(0, 16)}…`);
  log(`   ${JSON.stringify(preview.rows)}`);
  await transaction.rollback();
  log(`6. rollback() → ROLLBACK via execute_query; handle state: ${transaction.state}`);
  const after = await bridge.query('SELECT count(*) AS n FROM customers WHERE id = 99');
  const count = Number(after.rows[0]?.n);
  log(`7. SELECT count(*) FROM customers WHERE id = 99 → ${count}`);
  ok = count === 0;
  log(ok ? 'RESULT: PASS — the rolled-back row is absent' : 'RESULT: FAIL — the row persisted after rollback');
} finally {
  await connection.close();
  rmSync(dir, { recursive: true, force: true });
}
mkdirSync('docs/smoke-test-results', { recursive: true });
writeFileSync('docs/smoke-test-results/state-pollution.log', `${lines.join('\n')}\n`);
console.log('written to docs/smoke-test-results/state-pollution.log');
process.exitCode = ok ? 0 : 1;
