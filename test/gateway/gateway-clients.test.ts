import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_META, TICKET_META } from '../../src/gateway/gateway-mcp-server.ts';
import { type GatewayRig, startGatewayRig, textOf, waitForPending } from './gateway-harness.ts';

/**
 * The TypeScript SDK's Client as any host uses it: it lists the tools first, so it knows each
 * tool's outputSchema and validates every non-error result against it (the review's F1).
 */
describe('answers a validating SDK client accepts, for a tool with an outputSchema', () => {
  let rig: GatewayRig;
  let john: Client;
  beforeAll(async () => {
    rig = await startGatewayRig('', 'approvalWaitSeconds: 1\nlimits: { perUserPerMinute: 100, perToolPerMinute: 5 }');
    writeFileSync(join(rig.files, 'seed.txt'), 'seed');
    john = await rig.connect('john_doe');
    const tools = (await john.listTools()).tools;
    expect(tools.find((t) => t.name === 'files__write_file')?.outputSchema).toBeDefined();
  }, 30_000);
  afterAll(async () => rig?.close());

  it('waiting: the ticket arrives (not a schema error), and gateway_collect returns the outcome once approved', async () => {
    const target = join(rig.files, 'waited.txt');
    const waiting = (await john.callTool({ name: 'files__write_file', arguments: { path: target, content: 'later' } })) as CallToolResult;
    expect(textOf(waiting)).toMatch(/Waiting for approval on the opsgate server; nothing has run yet/);
    expect(waiting._meta?.[STATUS_META]).toBe('waiting_for_approval');
    const ticket = waiting._meta?.[TICKET_META] as string;
    expect(textOf(waiting)).toContain(ticket);
    const { pending, actor } = await waitForPending(rig, 'alice', 'write_file');
    await rig.web.runtime.decide(pending.sessionId, { type: 'approve', callId: pending.interrupt.callId }, actor);
    const collected = await john.callTool({ name: 'gateway_collect', arguments: { ticket } });
    expect(collected.isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('later');
  }, 30_000);

  it('ran: a read with an outputSchema passes the validation', async () => {
    const read = await john.callTool({ name: 'files__read_text_file', arguments: { path: join(rig.files, 'seed.txt') } });
    expect(read.isError).toBeFalsy();
    expect(read.structuredContent).toEqual({ content: 'seed' });
  });

  it('rejected: an error result naming who rejected it', async () => {
    const target = join(rig.files, 'rejected.txt');
    const waiting = await john.callTool({ name: 'files__write_file', arguments: { path: target, content: 'no' } });
    const { pending, actor } = await waitForPending(rig, 'alice', 'write_file');
    await rig.web.runtime.decide(pending.sessionId, { type: 'reject', callId: pending.interrupt.callId, reason: 'not today' }, actor);
    const collected = await john.callTool({ name: 'gateway_collect', arguments: { ticket: waiting._meta?.[TICKET_META] } });
    expect(collected.isError).toBe(true);
    expect(textOf(collected)).toMatch(/Rejected by alice: not today/);
    expect(existsSync(target)).toBe(false);
  }, 30_000);
});
