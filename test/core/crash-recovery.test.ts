import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import { createRuntime } from '../../src/core/runtime/index.ts';
import { openStore } from '../../src/core/store/index.ts';
import { createLedgerAgent, createLedgerModel, type LedgerRecorder } from '../../src/testing/index.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function waitFor(path: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${path}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('crash recovery', () => {
  it('kill -9 while a tool is executing: after restart the call is unknown, not re-run, and the approval is kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsgate-crash-'));
    dirs.push(dir);
    const dbPath = join(dir, 'opsgate.db');
    const marker = join(dir, 'marker');
    const child = spawn(process.execPath, [join(import.meta.dirname, 'crash-child.ts'), dbPath, marker], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    try {
      // Generous: on a loaded machine (a mutation run's initial test run) the child needs well over 20 s to start.
      await waitFor(marker, 60_000);
    } catch (error) {
      child.kill('SIGKILL');
      throw new Error(`child did not reach the tool: ${stderr}`, { cause: error });
    }
    const exited =
      child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', resolve));
    expect(child.exitCode).toBeNull();
    child.kill('SIGKILL');
    await exited;
    const sessionId = readFileSync(`${marker}.session`, 'utf8');

    const recorder: LedgerRecorder = { reads: 0, transfers: [] };
    const store = await openStore({ sqlitePath: dbPath, databaseUrl: '' });
    try {
      const runtime = await createRuntime({ store, agents: [createLedgerAgent(recorder)], model: () => createLedgerModel() });
      const session = await runtime.getSession(sessionId, { userId: 1, username: 'alice', roles: ['user'] });
      const transfer = session.toolCalls.find((c) => c.tool === 'transfer');
      expect(transfer?.status).toBe('unknown');
      expect(transfer?.approvedBy).toBe('alice');
      expect(session.status).toBe('idle');
      expect(recorder.transfers).toHaveLength(0);
      const audit = new AuditLog(store);
      const types = (await audit.list({ sessionId })).map((e) => e.type);
      expect(types).toContain('tool_approved');
      expect(types.at(-1)).toBe('tool_unknown');
      expect((await audit.verify()).ok).toBe(true);
      // The model is told, and a new message does not re-run the call.
      const next = await runtime.send(sessionId, 'what happened?', { userId: 1, username: 'alice', roles: ['user'] });
      expect(recorder.transfers).toHaveLength(0);
      expect(next.session.messages.some((m) => m.role === 'tool' && /NOT re-run/.test(m.text))).toBe(true);
    } finally {
      await store.close();
    }
  }, 120_000);
});
