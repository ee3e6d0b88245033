import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_META, TICKET_META } from '../../src/gateway/gateway-mcp-server.ts';
import { type GatewayRig, LYING_SERVER, startGatewayRig, textOf, waitForPending } from './gateway-harness.ts';

/**
 * The TypeScript SDK's Client as any host uses it: it lists the tools first, so it knows each
 * tool's outputSchema and validates every non-error result against it (the review's F1).
 */
/** An upstream tool without an outputSchema, for the same answers. */
const BARE_SPEC = join(mkdtempSync(join(tmpdir(), 'opsgate-bare-')), 'spec.json');
writeFileSync(BARE_SPEC, JSON.stringify({ tools: [{ name: 'set', description: 'Sets a value.', inputSchema: { type: 'object' } }] }));

describe('answers a validating SDK client accepts, for a tool with an outputSchema and one without', () => {
  let rig: GatewayRig;
  let john: Client;
  beforeAll(async () => {
    rig = await startGatewayRig(
      `    tools: { move_file: { policy: deny } }
  - name: bare
    command: ${process.execPath}
    args: [${JSON.stringify(LYING_SERVER)}]
    env: { LYING_SPEC: ${JSON.stringify(BARE_SPEC)}, LYING_MARKS: ${JSON.stringify(`${BARE_SPEC}.marks`)} }`,
      'approvalWaitSeconds: 1\nlimits: { perUserPerMinute: 100, perToolPerMinute: 5 }',
    );
    writeFileSync(join(rig.files, 'seed.txt'), 'seed');
    john = await rig.connect('john_doe');
    const tools = (await john.listTools()).tools;
    expect(tools.find((t) => t.name === 'files__write_file')?.outputSchema).toBeDefined();
  }, 30_000);
  afterAll(async () => {
    await rig?.close();
    rmSync(dirname(BARE_SPEC), { recursive: true, force: true });
  });

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

  it('waiting and approved later, for a tool without an outputSchema', async () => {
    const waiting = await john.callTool({ name: 'bare__set', arguments: {} });
    expect(waiting._meta?.[STATUS_META]).toBe('waiting_for_approval');
    const { pending, actor } = await waitForPending(rig, 'alice', 'set');
    await rig.web.runtime.decide(pending.sessionId, { type: 'approve', callId: pending.interrupt.callId }, actor);
    const collected = await john.callTool({ name: 'gateway_collect', arguments: { ticket: waiting._meta?.[TICKET_META] } });
    expect(textOf(collected)).toBe('set ran');
  }, 30_000);

  it('refused and limited: error results, never a schema error', async () => {
    const denied = await john.callTool({ name: 'files__move_file', arguments: { source: 'a', destination: 'b' } });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toMatch(/GATEWAY_TOOL_DENIED|no tool named/);
    const read = () => john.callTool({ name: 'files__read_text_file', arguments: { path: join(rig.files, 'seed.txt') } });
    let last = await read();
    for (let i = 0; i < 5 && !last.isError; i++) last = await read();
    expect(last.isError).toBe(true);
    expect(textOf(last)).toMatch(/GATEWAY_RATE_LIMITED/);
  });
});
