import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureDemoDatabase } from '../../src/agents/sandbox/demo/index.ts';
import { sandboxAgent } from '../../src/agents/sandbox/index.ts';
import type { Runtime } from '../../src/core/runtime/index.ts';
import { createRuntime } from '../../src/core/runtime/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/test-stores.ts';
import { testIdentity } from '../../src/testing/tool-context.ts';

const INSERT = "INSERT INTO customers (id, name, email, country, created_at) VALUES (55, 'E2E', 'e2e@example.com', 'XX', '2024-08-01')";
const count = (db: string) => {
  const raw = new DatabaseSync(db, { readOnly: true });
  const row = raw.prepare('SELECT count(*) AS n FROM customers WHERE id = 55').get() as { n: number };
  raw.close();
  return row.n;
};

describe('sandbox agent through the core runtime (offline interpreter)', () => {
  let dir: string;
  let db: string;
  let testStore: TestStore;
  let runtime: Runtime;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-sandbox-e2e-'));
    db = ensureDemoDatabase(join(dir, 'demo.db'));
    testStore = await sqliteTestStore.create();
    runtime = await createRuntime({ store: testStore.store, agents: [sandboxAgent], agentOptions: { sandbox: { db } }, dataDir: dir });
  });
  afterEach(async () => {
    await runtime.close();
    await testStore.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  async function proposeWrite() {
    const session = await runtime.startSession({ agent: 'sandbox', identity: testIdentity });
    const turn = await runtime.send(session.id, INSERT, testIdentity);
    expect(turn.status).toBe('waiting');
    expect(turn.interrupt).toMatchObject({ type: 'approval', tool: 'commit_transaction' });
    const interrupt = turn.interrupt as { callId: string; preview?: { bindingDigest?: string; details?: { rows?: unknown[] } } };
    expect(interrupt.preview?.bindingDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(interrupt.preview?.details?.rows).toHaveLength(1);
    expect(count(db)).toBe(0);
    return { sessionId: session.id, callId: interrupt.callId };
  }

  it('a read answers at once', async () => {
    const session = await runtime.startSession({ agent: 'sandbox', identity: testIdentity });
    const turn = await runtime.send(session.id, 'SELECT name FROM customers WHERE id = 1', testIdentity);
    expect(turn.status).toBe('completed');
    expect(turn.messages.at(-1)?.text).toContain('Ada Lovelace');
  });

  it('write → preview → approve → committed (one inserted row is medium risk: the requester may approve it)', async () => {
    const { sessionId, callId } = await proposeWrite();
    const turn = await runtime.decide(sessionId, { type: 'approve', callId }, testIdentity);
    expect(turn.status).toBe('completed');
    expect(count(db)).toBe(1);
  });

  it('a delete is high risk: the requester may not approve it, another person may', async () => {
    const { sessionId: insertSession, callId: insertCall } = await proposeWrite();
    await runtime.decide(insertSession, { type: 'approve', callId: insertCall }, testIdentity);
    const session = await runtime.startSession({ agent: 'sandbox', identity: testIdentity });
    const turn = await runtime.send(session.id, 'DELETE FROM customers WHERE id = 55', testIdentity);
    expect(turn.interrupt).toMatchObject({ type: 'approval', tool: 'commit_transaction', risk: 'high' });
    const callId = (turn.interrupt as { callId: string }).callId;
    await expect(runtime.decide(session.id, { type: 'approve', callId }, testIdentity)).rejects.toMatchObject({ code: 'APPROVAL_REFUSED' });
    const approved = await runtime.decide(session.id, { type: 'approve', callId }, { userId: 99, username: 'carol', roles: ['approver'] });
    expect(approved.status).toBe('completed');
  });

  it('after a restart the pending commit says its transaction was lost; re-plan stages the write again and the new commit runs', async () => {
    const { sessionId, callId } = await proposeWrite();
    // A restart: the process (and with it the open SQLite transaction) ends; a new one opens the same store and database.
    await runtime.close();
    runtime = await createRuntime({ store: testStore.store, agents: [sandboxAgent], agentOptions: { sandbox: { db } }, dataDir: dir });
    expect(await runtime.approvalReadiness(sessionId, callId, testIdentity)).toEqual({
      callId,
      runnable: false,
      reason: 'state-lost',
      message: expect.stringMatching(/^This commit can no longer run: the transaction was lost when the server restarted/),
    });
    const replanned = await runtime.decide(sessionId, { type: 'replan', callId }, testIdentity);
    expect(replanned.status).toBe('waiting');
    expect(replanned.session.toolCalls.find((c) => c.id === callId)?.status).toBe('expired');
    const fresh = replanned.interrupt as { callId: string; tool: string; preview?: { details?: { rows?: unknown[] } } };
    expect(fresh).toMatchObject({ tool: 'commit_transaction' });
    expect(fresh.callId).not.toBe(callId);
    expect(fresh.preview?.details?.rows).toHaveLength(1);
    expect(await runtime.approvalReadiness(sessionId, fresh.callId, testIdentity)).toEqual({ callId: fresh.callId, runnable: true });
    expect(count(db)).toBe(0);
    const done = await runtime.decide(sessionId, { type: 'approve', callId: fresh.callId }, testIdentity);
    expect(done.status).toBe('completed');
    expect(count(db)).toBe(1);
  });

  it('write → preview → reject → rolled back', async () => {
    const { sessionId, callId } = await proposeWrite();
    const turn = await runtime.decide(sessionId, { type: 'reject', callId }, testIdentity);
    expect(turn.status).toBe('completed');
    expect(count(db)).toBe(0);
    expect(turn.messages.at(-1)?.text).toMatch(/Rolled back/);
  });
});
