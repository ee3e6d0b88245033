import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostRepository } from '../../src/agents/troubleshoot/hosts/host-repository.ts';
import { createTroubleshootParts, troubleshootAgent } from '../../src/agents/troubleshoot/index.ts';
import { troubleshootMigrations } from '../../src/agents/troubleshoot/store/migrations.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { createRuntime, type Runtime, type TurnResult } from '../../src/core/runtime/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/test-stores.ts';
import { sshdAvailable, startTestSshd, type TestSshd } from '../support/sshd.ts';
import { MemorySecretStore } from './helpers.ts';

const alice: Identity = { userId: 1, username: 'alice', roles: ['user'] };
// Commands on a host are high risk: under the default policy another person approves them.
const approver: Identity = { userId: 2, username: 'carol', roles: ['approver'] };

describe.skipIf(!sshdAvailable())('troubleshoot agent through the runtime (offline interpreter, real sshd)', () => {
  let sshd: TestSshd;
  let testStore: TestStore;
  let runtime: Runtime;
  let secrets: MemorySecretStore;

  beforeAll(async () => {
    sshd = await startTestSshd();
    testStore = await sqliteTestStore.create(troubleshootMigrations);
    secrets = new MemorySecretStore();
    await new HostRepository(testStore.store, secrets).add({
      name: 'web-1',
      address: sshd.host,
      port: sshd.port,
      username: sshd.username,
      auth: { kind: 'key', privateKey: sshd.privateKey },
      hostKeySha256: sshd.hostKeyFingerprint,
    });
    const agent = {
      ...troubleshootAgent,
      setup: (context: Parameters<typeof troubleshootAgent.setup>[0]) => createTroubleshootParts(context, { softTimeoutMs: 20_000 }),
    };
    runtime = await createRuntime({ store: testStore.store, agents: [agent], secrets });
  });
  afterAll(async () => {
    await runtime?.close();
    await testStore?.dispose();
    await sshd?.stop();
  });

  async function approveAll(sessionId: string, first: TurnResult): Promise<{ last: TurnResult; approved: string[] }> {
    let turn = first;
    const approved: string[] = [];
    while (turn.status === 'waiting' && turn.interrupt?.type === 'approval') {
      approved.push(String(turn.interrupt.args.command));
      turn = await runtime.decide(sessionId, { type: 'approve', callId: turn.interrupt.callId }, approver);
    }
    return { last: turn, approved };
  }

  it('AR-18 AR-20 AR-21 "disk full" follows Identify → Verify → Investigate, proposes the runbook steps one by one and ends with a runbook link and suggestions', async () => {
    const session = await runtime.startSession({ agent: 'troubleshoot', identity: alice, pillar: 'troubleshoot' });
    const first = await runtime.send(session.id, 'the disk is full on web-1', alice);
    expect(first.status).toBe('waiting');
    expect(first.interrupt).toMatchObject({ type: 'approval', tool: 'suggest_ssh_command', args: { command: 'df -h' } });
    const { last, approved } = await approveAll(session.id, first);
    expect(last.status).toBe('completed');
    expect(approved).toEqual([
      'df -h',
      'df -i',
      'du -xh /var --max-depth=2 2>/dev/null | sort -rh | head -20',
      'journalctl --disk-usage',
      'find /proc/[0-9]*/fd -lname "*(deleted)" 2>/dev/null | head -20',
    ]);
    const answer = last.messages.at(-1)!.text;
    expect(answer).toContain('[Open runbook](docs/runbooks/linux-disk-full.md)');
    expect(answer).toContain('📖 Runbook Links');
    expect(answer).toMatch(/\[SUGGESTIONS\][\s\S]*- Vacuum the journal/);
    expect(answer).toContain('`df -h` → exit 0');
    const snapshot = await runtime.getSession(session.id, alice);
    expect(snapshot.phaseHistory.map((p) => p.phase)).toEqual(['identify', 'verify', 'investigate']);
    expect(snapshot.steps).toBeLessThanOrEqual(20);

    const audit = new AuditLog(testStore.store);
    const events = await audit.list({ sessionId: session.id });
    const types = events.map((e) => e.type);
    for (const type of ['tool_proposed', 'tool_approved', 'tool_executed']) expect(types).toContain(type);
    const dfEvents = events.filter((e) => (e.payload as { command?: string }).command === 'df -h').map((e) => e.type);
    expect(dfEvents).toEqual(['command_proposed', 'command_approved', 'command_executed']);
    expect((await audit.verify()).ok).toBe(true);
    const everything = JSON.stringify(await audit.list({ sessionId: session.id }));
    expect(everything).not.toContain('PRIVATE KEY');
  });

  it('AR-03 in Agent Mode with Auto-approve the runbook commands run under the named rule', async () => {
    const session = await runtime.startSession({ agent: 'troubleshoot', identity: alice, options: { agentMode: true, autoApprove: true } });
    const turn = await runtime.send(session.id, 'run uptime', alice);
    expect(turn.status).toBe('completed');
    expect(turn.messages.at(-1)!.text).toContain('`uptime` → exit 0');
    const snapshot = await runtime.getSession(session.id, alice);
    const call = snapshot.toolCalls.find((c) => c.tool === 'suggest_ssh_command')!;
    expect(call).toMatchObject({ status: 'executed', approvalRule: 'agent-mode-auto-approve' });
    const history = (await testStore.store.db.selectFrom('tool_calls').select('id').where('session_id', '=', session.id).execute()).map(
      (r) => r.id,
    );
    expect(history).toContain(call.id);
  });

  it('AR-03 without Agent Mode the same command waits for a person', async () => {
    const session = await runtime.startSession({ agent: 'troubleshoot', identity: alice, options: { autoApprove: true } });
    const turn = await runtime.send(session.id, 'run uptime', alice);
    expect(turn.status).toBe('waiting');
    expect(turn.interrupt?.type).toBe('approval');
  });

  it('Agent Mode with Auto-approve never approves a high-risk command: it waits for another person (review M4)', async () => {
    const session = await runtime.startSession({ agent: 'troubleshoot', identity: alice, options: { agentMode: true, autoApprove: true } });
    const turn = await runtime.send(session.id, 'run kill -9 999999', alice);
    expect(turn.status).toBe('waiting');
    expect(turn.interrupt).toMatchObject({ type: 'approval', risk: expect.stringMatching(/^(high|critical)$/) });
    const events = await new AuditLog(testStore.store).list({ sessionId: session.id });
    expect(events.map((event) => event.type)).not.toContain('tool_auto_approved');
  });

  it('Agent Mode with Auto-approve does not run a wrapped recursive delete: `timeout 5 rm -rf DIR` is critical and waits (review H1-new)', async () => {
    const victim = `${sshd.dir}/victimdir`;
    mkdirSync(victim, { recursive: true });
    const session = await runtime.startSession({ agent: 'troubleshoot', identity: alice, options: { agentMode: true, autoApprove: true } });
    const turn = await runtime.send(session.id, `run timeout 5 rm -rf ${victim}`, alice);
    expect(turn.status).toBe('waiting');
    expect(turn.interrupt).toMatchObject({ type: 'approval', risk: 'critical', riskReason: expect.stringContaining('(via timeout)') });
    expect(existsSync(victim)).toBe(true);
    const events = await new AuditLog(testStore.store).list({ sessionId: session.id });
    expect(events.map((event) => event.type)).not.toContain('tool_auto_approved');
  });

  it('`sort -o FILE /dev/null` is high risk, so its requester cannot approve it himself and the file keeps its bytes (review H1-new)', async () => {
    const victim = `${sshd.dir}/victim-shadow`;
    writeFileSync(victim, 'root:x:0:0\n');
    const session = await runtime.startSession({ agent: 'troubleshoot', identity: alice });
    const turn = await runtime.send(session.id, `run sort -o ${victim} /dev/null`, alice);
    if (turn.interrupt?.type !== 'approval') throw new Error('expected an approval');
    expect(turn.interrupt).toMatchObject({ risk: 'high', riskReason: `\`sort -o ${victim} /dev/null\` writes to ${victim}` });
    await expect(runtime.decide(session.id, { type: 'approve', callId: turn.interrupt.callId }, alice)).rejects.toMatchObject({
      code: 'APPROVAL_REFUSED',
    });
    expect(readFileSync(victim, 'utf8')).toBe('root:x:0:0\n');
  });

  it('a requester who modifies a harmless command into a risky one gets a new proposal for an approver; nothing runs on her word (review C1)', async () => {
    const marker = `${sshd.dir}/modified-by-self`;
    const session = await runtime.startSession({ agent: 'troubleshoot', identity: alice });
    const proposed = await runtime.send(session.id, 'run df -h', alice);
    if (proposed.interrupt?.type !== 'approval') throw new Error('expected an approval');
    const edited = `systemctl restart nginx; kill -9 999999; echo PWNED > ${marker}`;
    const turn = await runtime.decide(
      session.id,
      { type: 'modify', callId: proposed.interrupt.callId, args: { ...proposed.interrupt.args, command: edited } },
      { ...alice, channel: 'web' },
    );
    expect(turn.status).toBe('waiting');
    expect(turn.interrupt).toMatchObject({ type: 'approval', args: { command: edited }, requestedBy: 'alice' });
    expect(turn.interrupt?.type === 'approval' && turn.interrupt.callId).not.toBe(proposed.interrupt.callId);
    expect(existsSync(marker)).toBe(false);
    const events = await new AuditLog(testStore.store).list({ sessionId: session.id });
    expect(events.filter((event) => event.type === 'tool_approved' || event.type === 'command_executed')).toEqual([]);
  });

  it('AR-01 a dangerous command proposed through the runtime is blocked before the approval panel', async () => {
    const session = await runtime.startSession({ agent: 'troubleshoot', identity: alice, options: { agentMode: true, autoApprove: true } });
    const turn = await runtime.send(session.id, 'run rm -rf /', alice);
    expect(turn.status).toBe('completed');
    const snapshot = await runtime.getSession(session.id, alice);
    expect(snapshot.toolCalls.find((c) => c.tool === 'suggest_ssh_command')).toMatchObject({ status: 'blocked' });
    expect(turn.messages.at(-1)!.text).toContain('not run');
  });

  it('AR-13 with two hosts the agent asks which one (Yes/No/Skip/Custom); Skip stops without running anything', async () => {
    const hosts = new HostRepository(testStore.store, secrets);
    await hosts.add({
      name: 'db-1',
      address: sshd.host,
      port: sshd.port,
      username: sshd.username,
      auth: { kind: 'key', privateKey: sshd.privateKey },
      hostKeySha256: sshd.hostKeyFingerprint,
    });
    try {
      const session = await runtime.startSession({ agent: 'troubleshoot', identity: alice });
      const asked = await runtime.send(session.id, 'dns is broken', alice);
      expect(asked.status).toBe('waiting');
      expect(asked.interrupt).toMatchObject({ type: 'question', options: ['yes', 'no', 'skip', 'custom'] });
      expect((asked.interrupt as { question: string }).question).toContain('db-1, web-1');
      const custom = await runtime.decide(
        session.id,
        { type: 'answer', callId: asked.interrupt!.callId, answer: { custom: 'db-1' } },
        alice,
      );
      expect(custom.interrupt).toMatchObject({ type: 'approval', args: { host: 'db-1', command: 'cat /etc/resolv.conf' } });

      const other = await runtime.startSession({ agent: 'troubleshoot', identity: alice });
      const again = await runtime.send(other.id, 'dns is broken', alice);
      const skipped = await runtime.decide(other.id, { type: 'answer', callId: again.interrupt!.callId, answer: 'skip' }, alice);
      expect(skipped.status).toBe('completed');
      expect(skipped.messages.at(-1)!.text).toMatch(/Stopped/);
    } finally {
      await hosts.remove('db-1');
    }
  });

  it('AR-12 a command past the soft timeout raises "Read Output & Continue"; continuing reads the rest', async () => {
    const agent = {
      ...troubleshootAgent,
      setup: (context: Parameters<typeof troubleshootAgent.setup>[0]) => createTroubleshootParts(context, { softTimeoutMs: 1000 }),
    };
    const slow = await createRuntime({ store: testStore.store, agents: [agent], secrets });
    try {
      const session = await slow.startSession({ agent: 'troubleshoot', identity: alice });
      const proposed = await slow.send(session.id, 'run echo first-part; sleep 3; echo second-part', alice);
      const running = await slow.decide(session.id, { type: 'approve', callId: proposed.interrupt!.callId }, approver);
      expect(running.status).toBe('waiting');
      expect(running.interrupt).toMatchObject({ type: 'continue', tool: 'suggest_ssh_command' });
      expect((running.interrupt as { message: string }).message).toMatch(/still running/);
      const done = await slow.decide(session.id, { type: 'continue', callId: running.interrupt!.callId }, alice);
      expect(done.status).toBe('completed');
      const calls = (await slow.getSession(session.id, alice)).toolCalls.map((c) => c.tool);
      // "run CMD" lists the hosts first, to refuse hosts whose key is not pinned.
      expect(calls.slice(0, 2)).toEqual(['list_hosts', 'suggest_ssh_command']);
      expect(calls.length).toBeGreaterThanOrEqual(3);
      expect(new Set(calls.slice(2))).toEqual(new Set(['read_output']));
      expect(done.messages.at(-1)!.text).toContain('second-part');
    } finally {
      await slow.close();
    }
  });

  it('AR-16 sessions carry user_id and pillar troubleshoot/revive', async () => {
    const session = await runtime.startSession({ agent: 'troubleshoot', identity: alice, pillar: 'revive' });
    expect(session.pillar).toBe('revive');
    const row = await testStore.store.db
      .selectFrom('sessions')
      .select(['user_id', 'pillar'])
      .where('id', '=', session.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ user_id: 1, pillar: 'revive' });
    expect(session.id).toMatch(/^[0-9a-f-]{36}$/);
  });
});
