import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { createAgentMcpServer } from '../../src/mcp/index.ts';
import { createLedgerAgent, type LedgerRecorder, sqliteTestStore, type TestStore } from '../../src/testing/index.ts';

const alice = { userId: 1, username: 'alice', roles: ['user'] };
const carol = { userId: 3, username: 'carol', roles: ['approver'] };

type ElicitAnswer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string> };

async function connect(runtime: Runtime, options: { elicit?: (message: string) => ElicitAnswer; approvalWaitMs?: number } = {}) {
  const server = await createAgentMcpServer({ runtime, agent: 'ledger', identity: alice, approvalWaitMs: options.approvalWaitMs ?? 5000 });
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities: options.elicit ? { elicitation: {} } : {} });
  const prompts: string[] = [];
  if (options.elicit) {
    const answer = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const message = String(request.params.message);
      prompts.push(message);
      return answer(message);
    });
  }
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  return { client, server, prompts };
}

const textOf = (result: unknown): string => (result as { content: Array<{ text?: string }> }).content[0]?.text ?? '';

describe('an agent served over MCP (opsgate mcp --agent)', () => {
  let testStore: TestStore;
  let recorder: LedgerRecorder;
  let runtime: Runtime;

  beforeEach(async () => {
    testStore = await sqliteTestStore.create();
    recorder = { reads: 0, transfers: [] };
    runtime = await createRuntime({ store: testStore.store, agents: [createLedgerAgent(recorder)] });
  });
  afterEach(async () => {
    await runtime.close();
    await testStore.dispose();
  });

  it('lists the guarded tools with annotations from opsgate’s own mutability, not the human gate', async () => {
    const { client } = await connect(runtime);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['read_balance', 'transfer']);
    const transfer = tools.find((t) => t.name === 'transfer')!;
    expect(transfer.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(tools.find((t) => t.name === 'read_balance')!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(transfer.inputSchema.required).not.toContain('user_id');
  });

  it('runs a read-only tool at once', async () => {
    const { client } = await connect(runtime);
    const result = await client.callTool({ name: 'read_balance', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toEqual({ balance: 100 });
  });

  it('a mutable call is approved through elicitation, runs exactly once, bound to the MCP user, and is audited', async () => {
    const { client, prompts } = await connect(runtime, { elicit: () => ({ action: 'accept', content: { decision: 'approve' } }) });
    const result = await client.callTool({ name: 'transfer', arguments: { to: 'bob', amount: 30 } });
    expect(result.isError).toBeFalsy();
    expect(recorder.transfers).toEqual([{ to: 'bob', amount: 30, user_id: 1 }]);
    expect(prompts[0]).toContain('approve transfer');
    expect(prompts[0]).toContain('"amount":30');
    const types = (await new AuditLog(testStore.store).list()).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['tool_proposed', 'tool_approved', 'tool_executed']));
  });

  it('a declined elicitation rejects the call: nothing runs and the client is told why', async () => {
    const { client } = await connect(runtime, {
      elicit: () => ({ action: 'accept', content: { decision: 'reject', reason: 'not today' } }),
    });
    const result = await client.callTool({ name: 'transfer', arguments: { to: 'bob', amount: 30 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('not today');
    expect(recorder.transfers).toHaveLength(0);
  });

  it('a call naming another user is refused before any approval', async () => {
    const { client, prompts } = await connect(runtime, { elicit: () => ({ action: 'accept', content: { decision: 'approve' } }) });
    const result = await client.callTool({ name: 'transfer', arguments: { to: 'bob', amount: 30, user_id: 2 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('IDENTITY_MISMATCH');
    expect(prompts).toHaveLength(0);
    expect(recorder.transfers).toHaveLength(0);
  });

  it('without elicitation the call waits for a decision in the web panel, and runs once it is approved there', async () => {
    const { client } = await connect(runtime);
    const pending = client.callTool({ name: 'transfer', arguments: { to: 'bob', amount: 30 } });
    let waiting: Awaited<ReturnType<Runtime['listSessions']>>[number] | undefined;
    for (let i = 0; i < 100 && !waiting; i += 1) {
      waiting = (await runtime.listSessions(alice)).find((s) => s.waiting);
      if (!waiting) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(recorder.transfers).toHaveLength(0);
    const snapshot = await runtime.getSession(waiting!.id, carol);
    await runtime.decide(waiting!.id, { type: 'approve', callId: snapshot.interrupt!.callId }, carol);
    const result = await pending;
    expect(result.isError).toBeFalsy();
    expect(recorder.transfers).toHaveLength(1);
  });

  it('without elicitation and without a decision in time, nothing runs and the client is told where it waits', async () => {
    const { client } = await connect(runtime, { approvalWaitMs: 300 });
    const result = await client.callTool({ name: 'transfer', arguments: { to: 'bob', amount: 30 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/Waiting for approval of transfer in the opsgate web panel/);
    expect(recorder.transfers).toHaveLength(0);
  });

  it('a call left waiting for an approver does not block the client: its next call runs (review L5)', async () => {
    const { client } = await connect(runtime, { approvalWaitMs: 300 });
    const waiting = await client.callTool({ name: 'transfer', arguments: { to: 'bob', amount: 5 } });
    expect(waiting.isError).toBe(true);
    expect(textOf(waiting)).toContain('Waiting for approval');
    const next = await client.callTool({ name: 'read_balance', arguments: {} });
    expect(next.isError).toBeFalsy();
    expect(textOf(next)).toContain('100');
    // The waiting call is still in the inbox for an approver.
    expect((await runtime.pendingApprovals(carol)).map((item) => item.interrupt.tool)).toEqual(['transfer']);
  });
});
