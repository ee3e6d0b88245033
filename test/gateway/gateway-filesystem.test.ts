import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, type GatewayRig, startGatewayRig, textOf, waitForPending } from './gateway-harness.ts';

describe('the gateway in front of the real filesystem MCP server (Streamable HTTP)', () => {
  let rig: GatewayRig;
  beforeAll(async () => {
    rig = await startGatewayRig();
    writeFileSync(join(rig.files, 'notes.txt'), 'hello from the upstream\n');
  }, 30_000);
  afterAll(async () => rig?.close());

  it('lists the upstream tools namespaced, read-only ones marked so', async () => {
    const client = await rig.connect('john_doe');
    const tools = (await client.listTools()).tools;
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('files__read_text_file')?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('files__write_file')?.annotations?.readOnlyHint).toBe(false);
    expect(byName.get('files__write_file')?.description).toMatch(/approves it on the opsgate server/);
    expect(byName.has('gateway_collect')).toBe(true);
  });

  it('a read runs at once and is audited with the upstream', async () => {
    const client = await rig.connect('john_doe');
    const read = await client.callTool({ name: 'files__read_text_file', arguments: { path: join(rig.files, 'notes.txt') } });
    expect(read.isError).toBeFalsy();
    expect(textOf(read)).toBe('hello from the upstream\n');
    const events = await auditEvents(rig, 'upstream_called');
    expect(events.map((e) => e.payload)).toContainEqual(
      expect.objectContaining({
        upstream: 'files',
        transport: 'stdio',
        tool: 'read_text_file',
        resultHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    );
  });

  it('invalid arguments are refused before anything runs', async () => {
    const client = await rig.connect('john_doe');
    const bad = await client.callTool({ name: 'files__write_file', arguments: { path: 42 } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/INVALID_TOOL_INPUT|invalid/i);
  });

  it('write_file waits; alice approves on the server; the file is written exactly once', async () => {
    const client = await rig.connect('john_doe');
    const target = join(rig.files, 'approved.txt');
    const call = client.callTool({ name: 'files__write_file', arguments: { path: target, content: 'approved content' } });
    const { pending, actor } = await waitForPending(rig, 'alice', 'write_file');
    expect(pending.interrupt.args).toEqual({ path: target, content: 'approved content' });
    expect(pending.interrupt.risk).toBe('high');
    expect(pending.mayApprove).toBe(true);
    expect(existsSync(target)).toBe(false);
    await rig.web.runtime.decide(pending.sessionId, { type: 'approve', callId: pending.interrupt.callId }, { ...actor, channel: 'rest' });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('approved content');
    const executed = await auditEvents(rig, 'tool_executed');
    expect(executed.filter((e) => e.payload.callId === pending.interrupt.callId)).toHaveLength(1);
    const approvals = await auditEvents(rig, 'tool_approved');
    expect(approvals.filter((e) => e.payload.callId === pending.interrupt.callId)).toHaveLength(1);
  }, 30_000);

  it('a rejection leaves the file untouched and the client gets the reason', async () => {
    const client = await rig.connect('john_doe');
    const target = join(rig.files, 'rejected.txt');
    const call = client.callTool({ name: 'files__write_file', arguments: { path: target, content: 'never' } });
    const { pending, actor } = await waitForPending(rig, 'alice', 'write_file');
    await rig.web.runtime.decide(pending.sessionId, { type: 'reject', callId: pending.interrupt.callId, reason: 'not on a Friday' }, actor);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/Rejected by alice: not on a Friday/);
    expect(existsSync(target)).toBe(false);
  }, 30_000);
});
