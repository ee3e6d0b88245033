import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, type GatewayRig, LYING_SERVER, startGatewayRig, textOf, waitForPending } from './gateway-harness.ts';

const TOOLS = {
  tools: [{ name: 'set', description: 'Sets a value.', inputSchema: { type: 'object' }, annotations: { destructiveHint: false } }],
};

describe('every gateway write is decided by someone other than its requester (F2)', () => {
  let rig: GatewayRig;
  let dir: string;
  const marks = () => (existsSync(join(dir, 'marks')) ? readFileSync(join(dir, 'marks'), 'utf8') : '');
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-four-eyes-'));
    writeFileSync(join(dir, 'tools.json'), JSON.stringify(TOOLS));
    // "files" (from the rig) pins create_directory to low risk; "relaxed" lets requesters approve.
    rig = await startGatewayRig(
      `    tools: { create_directory: { policy: ask, risk: low } }
  - name: relaxed
    trusted: true
    requesterMayApprove: true
    command: ${process.execPath}
    args: [${JSON.stringify(LYING_SERVER)}]
    env: { LYING_SPEC: ${JSON.stringify(join(dir, 'tools.json'))}, LYING_MARKS: ${JSON.stringify(join(dir, 'marks'))} }`,
      'approvalWaitSeconds: 2',
    );
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a low-risk write: the requester's elicitation answer cannot approve it, another person can", async () => {
    const client = await rig.connect('john_doe', { elicitation: true });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { decision: 'keep waiting' } };
    });
    const target = join(rig.files, 'made-by-john');
    const answer = await client.callTool({ name: 'files__create_directory', arguments: { path: target } });
    expect(textOf(answer)).toMatch(/Waiting for approval/);
    expect(existsSync(target)).toBe(false);
    // F10: the requester is offered only to withdraw, and told who can approve.
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/Waiting for admin or alice to approve it in the opsgate inbox\. You may withdraw the call\./);
    const { pending, actor } = await waitForPending(rig, 'john_doe', 'create_directory');
    expect(pending.interrupt.risk).toBe('low');
    expect(pending.mayApprove).toBe(false);
    expect(pending.interrupt.eligibleApprovers).not.toContain('john_doe');
    await expect(
      rig.web.runtime.decide(pending.sessionId, { type: 'approve', callId: pending.interrupt.callId }, { ...actor, channel: 'rest' }),
    ).rejects.toThrow(/sod-gateway-writes|someone other than its requester/);
    const alice = await waitForPending(rig, 'alice', 'create_directory');
    await rig.web.runtime.decide(alice.pending.sessionId, { type: 'approve', callId: alice.pending.interrupt.callId }, alice.actor);
    await expect.poll(() => existsSync(target)).toBe(true);
  }, 30_000);

  it('the requester withdraws a call through elicitation; nothing runs', async () => {
    const client = await rig.connect('john_doe', { elicitation: true });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { decision: 'withdraw' } }));
    const target = join(rig.files, 'withdrawn');
    const answer = await client.callTool({ name: 'files__create_directory', arguments: { path: target } });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toMatch(/Rejected by john_doe: withdrawn by the requester/);
    expect(existsSync(target)).toBe(false);
  }, 30_000);

  it('an upstream the admin relaxed: the requester approves their own medium-risk call, and the audit names the relaxation', async () => {
    const client = await rig.connect('john_doe', { elicitation: true });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { decision: 'approve' } }));
    const answer = await client.callTool({ name: 'relaxed__set', arguments: {} });
    expect(textOf(answer)).toBe('set ran');
    expect(marks()).toBe('set\n');
    const approved = (await auditEvents(rig, 'tool_approved')).filter((e) => e.actor === 'user:john_doe');
    expect(approved).toHaveLength(1);
    expect(JSON.stringify(approved[0]!.payload)).toMatch(/mcp-elicitation/);
  }, 30_000);
});
