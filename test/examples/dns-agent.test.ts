import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dnsAgent } from '../../examples/agents/dns/index.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/test-stores.ts';
import { testIdentity } from '../../src/testing/tool-context.ts';

const approver = { userId: 99, username: 'carol', roles: ['approver'] };

/** The guide's example agent inside the core runtime, on the offline interpreter. */
describe('the example dns agent through the core runtime', () => {
  let dir: string;
  let zonesDir: string;
  let testStore: TestStore;
  let runtime: Runtime;
  const wwwRecord = () =>
    (JSON.parse(readFileSync(join(zonesDir, 'example.com.json'), 'utf8')) as Array<{ name: string; value: string }>).find(
      (r) => r.name === 'www',
    )?.value;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-dns-example-'));
    zonesDir = join(dir, 'zones');
    testStore = await sqliteTestStore.create();
    runtime = await createRuntime({ store: testStore.store, agents: [dnsAgent], agentOptions: { dns: { zonesDir } }, dataDir: dir });
  });
  afterAll(async () => {
    await runtime.close();
    await testStore.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  async function proposeChange(value: string) {
    const session = await runtime.startSession({ agent: 'dns', identity: testIdentity });
    const turn = await runtime.send(session.id, `set example.com www A ${value}`, testIdentity);
    expect(turn.status).toBe('waiting');
    return {
      sessionId: session.id,
      interrupt: turn.interrupt as { callId: string; tool: string; risk: string; preview: { details: unknown } },
    };
  }

  it('a lookup answers at once', async () => {
    const session = await runtime.startSession({ agent: 'dns', identity: testIdentity });
    const turn = await runtime.send(session.id, 'lookup example.com www A', testIdentity);
    expect(turn.status).toBe('completed');
    expect(turn.messages.at(-1)?.text).toContain('192.0.2.10');
  });

  it('a change waits with its before and after; approved, it runs exactly once and is audited', async () => {
    const { sessionId, interrupt } = await proposeChange('192.0.2.20');
    expect(interrupt).toMatchObject({ tool: 'change_record', risk: 'medium' });
    expect(interrupt.preview.details).toEqual({ zone: 'example.com', name: 'www', type: 'A', before: '192.0.2.10', after: '192.0.2.20' });
    expect(wwwRecord()).toBe('192.0.2.10');
    const turn = await runtime.decide(sessionId, { type: 'approve', callId: interrupt.callId }, testIdentity);
    expect(turn.status).toBe('completed');
    expect(wwwRecord()).toBe('192.0.2.20');
    await expect(runtime.decide(sessionId, { type: 'approve', callId: interrupt.callId }, testIdentity)).rejects.toMatchObject({
      code: 'NO_PENDING_INTERRUPT',
    });
    const events = (await new AuditLog(testStore.store).list({ sessionId })).map((e) => e.type);
    expect(events.filter((type) => type === 'dns_record_changed')).toHaveLength(1);
  });

  it('a rejected change leaves the zone as it was', async () => {
    const { sessionId, interrupt } = await proposeChange('192.0.2.66');
    await runtime.decide(sessionId, { type: 'reject', callId: interrupt.callId, reason: 'wrong address' }, testIdentity);
    expect(wwwRecord()).toBe('192.0.2.20');
  });

  it('an MX change is high risk: the requester may not approve it, another person may', async () => {
    const session = await runtime.startSession({ agent: 'dns', identity: testIdentity });
    const turn = await runtime.send(session.id, 'set example.com @ MX 20 mail2.example.com.', testIdentity);
    const callId = (turn.interrupt as { callId: string }).callId;
    expect(turn.interrupt).toMatchObject({ risk: 'high' });
    await expect(runtime.decide(session.id, { type: 'approve', callId }, testIdentity)).rejects.toMatchObject({ code: 'APPROVAL_REFUSED' });
    expect((await runtime.decide(session.id, { type: 'approve', callId }, approver)).status).toBe('completed');
  });
});
