import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTroubleshootParts, type TroubleshootParts } from '../../src/agents/troubleshoot/index.ts';
import type { CommandResult } from '../../src/agents/troubleshoot/tools/command-result.ts';
import type { AgentSetupContext } from '../../src/core/agent/define-agent.ts';
import { ToolContinuation } from '../../src/core/runtime/tool-continuation.ts';
import type { AnyToolDefinition } from '../../src/core/tools/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/test-stores.ts';
import { createTestToolContext } from '../../src/testing/tool-context.ts';
import { sshdAvailable, startTestSshd, type TestSshd } from '../support/sshd.ts';
import { MemorySecretStore } from './helpers.ts';

describe.skipIf(!sshdAvailable())('troubleshoot tools against a real sshd', () => {
  let sshd: TestSshd;
  let testStore: TestStore;
  let parts: TroubleshootParts;
  let secrets: MemorySecretStore;
  let setup: AgentSetupContext;
  const tools = new Map<string, AnyToolDefinition>();
  let callSeq = 0;

  beforeAll(async () => {
    sshd = await startTestSshd();
    testStore = await sqliteTestStore.create();
    secrets = new MemorySecretStore();
    setup = {
      store: testStore.store,
      logger: pino({ level: 'silent' }),
      dataDir: sshd.dir,
      env: {},
      options: {},
      secrets,
      clock: { now: () => new Date() },
    };
    parts = await createTroubleshootParts(setup, { softTimeoutMs: 30_000 });
    for (const tool of parts.tools) tools.set(tool.name, tool);
    await parts.deps.hosts.add({
      name: 'local',
      address: sshd.host,
      port: sshd.port,
      username: sshd.username,
      auth: { kind: 'key', privateKey: sshd.privateKey },
      hostKeySha256: sshd.hostKeyFingerprint,
    });
  });
  afterAll(async () => {
    await parts?.close?.();
    await testStore?.dispose();
    await sshd?.stop();
  });

  function context(sessionId = 'session-1') {
    callSeq += 1;
    return createTestToolContext({ sessionId, callId: `call-${callSeq}`, agent: 'troubleshoot', phase: 'investigate' });
  }

  /** Proposal (validate) then execution, as the runtime does after approval. */
  async function propose(command: string, ctx = context()) {
    const tool = tools.get('suggest_ssh_command')!;
    const input = tool.input.parse({ host: 'local', command });
    const verdict = await tool.validate!(input, ctx);
    return { tool, input, verdict, ctx };
  }

  async function run(command: string, ctx = context()) {
    const { tool, input, verdict } = await propose(command, ctx);
    expect(verdict.verdict).toBe('allow');
    const output = (await tool.execute(input, ctx)) as CommandResult | ToolContinuation;
    return { output, ctx };
  }

  it('AR-02 audits command_proposed → command_approved → command_executed with exact bytes, exit status, duration and output hash', async () => {
    const { output, ctx } = await run('echo opsgate-ok; exit_code_probe() { return 3; }; exit_code_probe');
    const result = output as CommandResult;
    expect(result.status).toBe('completed');
    expect(result.exit_status).toBe(3);
    expect(result.output).toBe('opsgate-ok\n');
    expect(ctx.audited.map((a) => a.type)).toEqual(['command_proposed', 'command_approved', 'command_executed']);
    const executed = ctx.audited[2]!.payload;
    expect(executed.command).toBe('echo opsgate-ok; exit_code_probe() { return 3; }; exit_code_probe');
    expect(executed.exit_status).toBe(3);
    expect(executed.output_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(typeof executed.duration_ms).toBe('number');
    const history = await parts.deps.history.findByCall(ctx.callId);
    expect(history).toMatchObject({ status: 'executed', exitStatus: 3, command: executed.command, outputSha256: executed.output_sha256 });
    expect(history!.proposedAt).toBeTruthy();
    expect(history!.approvedAt).toBeTruthy();
    expect(history!.executedAt).toBeTruthy();
  });

  it('AR-01 a blocked command is refused at proposal and never reaches the shell', async () => {
    const marker = join(sshd.dir, 'blocked-marker');
    const command = `touch ${marker}; rm -rf /`;
    const { tool, input, verdict, ctx } = await propose(command);
    expect(verdict.verdict).toBe('block');
    expect(ctx.audited.map((a) => a.type)).toEqual(['command_blocked']);
    // Even if something called execute anyway, the re-validation on the exact bytes refuses it.
    await expect(tool.execute(input, ctx)).rejects.toMatchObject({ code: 'COMMAND_BLOCKED' });
    const probe = (await run(`test -e ${marker} && echo present || echo absent`)).output as CommandResult;
    expect(probe.output).toBe('absent\n');
    expect(existsSync(marker)).toBe(false);
    expect((await parts.deps.history.findByCall(ctx.callId))?.status).toBe('blocked');
  });

  it('AR-08 every command is written to the visible shell and every byte is emitted as terminal.output', async () => {
    const { output, ctx } = await run('printf "visible-%s\\n" one two');
    expect((output as CommandResult).output).toBe('visible-one\nvisible-two\n');
    const terminal = ctx.emitted
      .filter((e) => e.type === 'terminal.output')
      .map((e) => (e.data as { data: string }).data)
      .join('');
    expect(terminal).toContain('printf "visible-%s\\n" one two');
    expect(terminal).toContain('visible-one');
  });

  it('AR-09 ANSI codes are stripped for the model while raw bytes go to the terminal events', async () => {
    const { output, ctx } = await run("printf '\\033[31mred-alert\\033[0m \\033[1mbold\\033[0m\\n'");
    const result = output as CommandResult;
    expect(result.output).toBe('red-alert bold\n');
    const terminal = ctx.emitted.map((e) => (e.data as { data: string }).data).join('');
    expect(terminal).toContain('\u001b[31mred-alert');
  });

  it('AR-14 a 1 MB output is truncated at 5,000 characters with a marker', async () => {
    const { output } = await run("head -c 1048576 /dev/zero | tr '\\0' 'x' | fold -w 100");
    const result = output as CommandResult;
    expect(result.status).toBe('completed');
    expect(result.exit_status).toBe(0);
    expect(result.truncated).toBe(true);
    expect(result.output!.length).toBeLessThanOrEqual(5000);
    expect(result.output).toMatch(/truncated [\d,]+ of [\d,]+ characters/);
  });

  it('AR-15 error keywords in the output are flagged with a hint to analyse them', async () => {
    const { output } = await run('cat /nonexistent/file; echo "permission denied (simulated)"');
    const result = output as CommandResult;
    expect(result.exit_status).toBe(0);
    expect(result.error_keywords).toContain('denied');
    expect(result.note).toMatch(/Analyse these lines/);
  });

  it('AR-07 a pager prompt gets q automatically (less on a long file)', async () => {
    const { output } = await run('seq 1 3000 > /tmp/opsgate-pager.txt; less /tmp/opsgate-pager.txt; echo after-pager');
    const result = output as CommandResult;
    expect(result.status).toBe('completed');
    expect(result.pager_quits).toBeGreaterThanOrEqual(1);
    expect(result.output).toContain('after-pager');
  });

  it('AR-07 git log in a repository with many commits does not hang (pagers avoided by GIT_PAGER=cat)', async () => {
    const repo = join(sshd.dir, 'repo');
    const { output } = await run(
      `git init -q ${repo} && cd ${repo} && for i in $(seq 1 40); do git -c user.name=t -c user.email=t@e commit -q --allow-empty -m "commit $i"; done; git -c core.pager=less log --oneline | tail -1; git -c core.pager=less log; cd /`,
    );
    const result = output as CommandResult;
    expect(result.status).toBe('completed');
    expect(result.output).toContain('commit 1');
  });

  it('AR-12 a command that outlives the soft timeout returns still_running; read_output gets the rest', async () => {
    // A second instance with a 1.5 s soft timeout (default 2 minutes); its own shell pool.
    const slow = await createTroubleshootParts(setup, { softTimeoutMs: 1500 });
    const slowTool = (name: string) => slow.tools.find((t) => t.name === name)!;
    const ctx = context('session-slow');
    const suggest = slowTool('suggest_ssh_command');
    const input = suggest.input.parse({ host: 'local', command: 'echo started; sleep 4; echo finished' });
    expect((await suggest.validate!(input, ctx)).verdict).toBe('allow');
    const output = await suggest.execute(input, ctx);
    expect(output).toBeInstanceOf(ToolContinuation);
    const continuation = output as ToolContinuation;
    const partial = continuation.output as CommandResult;
    expect(partial.status).toBe('still_running');
    expect(partial.output_so_far).toContain('started');
    expect(partial.output_so_far).not.toContain('finished');
    expect(partial.continue?.tool).toBe('read_output');
    expect(continuation.message).toMatch(/still running/);
    // A second command is refused while the first runs.
    const busyCtx = context(ctx.sessionId);
    const busyInput = suggest.input.parse({ host: 'local', command: 'echo second' });
    await suggest.validate!(busyInput, busyCtx);
    await expect(suggest.execute(busyInput, busyCtx)).rejects.toMatchObject({ code: 'SHELL_BUSY' });
    const readCtx = createTestToolContext({ sessionId: ctx.sessionId, callId: 'read-1', state: ctx.state });
    const rest = (await slowTool('read_output').execute({ host: 'local', wait_seconds: 20 }, readCtx)) as CommandResult;
    expect(rest.status).toBe('completed');
    expect(rest.exit_status).toBe(0);
    expect(rest.output).toContain('finished');
    expect(rest.output).not.toContain('started');
    expect(readCtx.audited.map((a) => a.type)).toEqual(['command_executed']);
    expect((await parts.deps.history.findByCall(ctx.callId))?.status).toBe('executed');
    await slow.close?.();
  });

  it('AR-06 detect_os runs uname -a in the visible shell and records the OS', async () => {
    const ctx = createTestToolContext({ sessionId: 'session-os', callId: 'os-1', phase: 'verify' });
    const result = (await tools.get('detect_os')!.execute({}, ctx)) as CommandResult & { os: string };
    expect(result.os).toBe('linux');
    expect(result.output).toMatch(/Linux/);
    expect((await parts.deps.hosts.get('local')).os).toBe('linux');
    expect(ctx.phaseChanges).toEqual([{ phase: 'investigate', reason: 'OS detected: linux' }]);
  });

  it('AR-10 get_feedback_history returns commands that failed or got a thumbs down on this host', async () => {
    const { ctx } = await run('false');
    await testStore.store.db
      .insertInto('feedback')
      .values({
        session_id: ctx.sessionId,
        user_id: 1,
        target: ctx.callId,
        rating: -1,
        comment: 'useless',
        created_at: new Date().toISOString(),
      })
      .execute();
    const history = (await tools.get('get_feedback_history')!.execute({ host: 'local' }, context())) as {
      items: Array<Record<string, unknown>>;
    };
    expect(history.items[0]).toMatchObject({ command: 'false', rating: 'thumbs_down', exit_status: 1, comment: 'useless' });
  });

  it('list_hosts never shows credentials', async () => {
    const listed = await tools.get('list_hosts')!.execute({}, context());
    const text = JSON.stringify(listed);
    expect(text).toContain('"local"');
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).toContain('confirmed');
  });
});
