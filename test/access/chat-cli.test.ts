import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agents } from '../../src/agents/index.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import { openStore } from '../../src/core/store/index.ts';

const bin = join(import.meta.dirname, '../../bin/opsgate');

/** The environment without any model key, so `opsgate chat` uses the offline interpreter. */
function offlineEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/API_KEY|^OPSGATE_|^ACCESS_|^AWS_/.test(key)) continue;
    env[key] = value;
  }
  return { ...env, OPSGATE_DATA_DIR: dataDir, OPSGATE_DATABASE_URL: '' };
}

function run(args: string[], env: NodeJS.ProcessEnv, stdinLines: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      err += c;
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out, err }));
    child.stdin.end(`${stdinLines.join('\n')}\n`);
  });
}

describe('opsgate chat --agent access (offline interpreter, driven via stdin)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'opsgate-access-chat-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('runs the three spec flows: grants after "Yes please", clarifies database access, lists the engineering team', async () => {
    const env = offlineEnv(dataDir);
    const { code, out, err } = await run(['chat', '--agent', 'access', '--user', 'john_doe'], env, [
      'I need access to read documents',
      'Yes please',
      'I need database access',
      'Production, read only',
      'yes',
      'What accesses are available for the engineering team?',
      'I need access to read documents',
      '/quit',
    ]);
    expect(code, err).toBe(0);
    const expected = [
      'I found READ_DOCUMENTS access. Would you like me to grant it?',
      "I've granted you READ_DOCUMENTS access.",
      'I found multiple database accesses. Which environment do you need: development, staging, or production? And do you need read or write access?',
      'I found DB_READ_PROD access (Read the production database). It has a renewal period of 30 days',
      "I've granted you DB_READ_PROD access.",
      'For the engineering team, here are the available accesses:',
      'You already have READ_DOCUMENTS access.',
    ];
    let from = 0;
    for (const text of expected) {
      const at = out.indexOf(text, from);
      expect(at, `"${text}" after position ${from} in:\n${out}`).toBeGreaterThanOrEqual(0);
      from = at + text.length;
    }
    expect(out).not.toMatch(/admin.?key/i);

    // The audit chain of the chat verifies, and the grant shows proposed → approved (by john_doe) → executing → executed.
    const store = await openStore({ dataDir, databaseUrl: '', migrations: agents.flatMap((a) => a.migrations ?? []) });
    try {
      const log = new AuditLog(store);
      expect((await log.verify()).ok).toBe(true);
      const grants = (await log.list({})).filter((e) => (e.payload as { tool?: string }).tool === 'grant_access_to_user');
      expect(grants.map((e) => e.type)).toEqual([
        'tool_proposed',
        'tool_approved',
        'tool_executing',
        'tool_executed',
        'tool_proposed',
        'tool_approved',
        'tool_executing',
        'tool_executed',
      ]);
      expect(grants.filter((e) => e.type === 'tool_approved').map((e) => (e.payload as { approver?: string }).approver)).toEqual([
        'john_doe',
        'john_doe',
      ]);
    } finally {
      await store.close();
    }
  });

  it('a login the catalog does not know gets an empty catalog account (embedded mode)', async () => {
    const { code, out, err } = await run(['chat', '--agent', 'access', '--user', 'alice'], offlineEnv(dataDir), [
      'What accesses do I have?',
      '/quit',
    ]);
    expect(code, err).toBe(0);
    expect(out).toContain('You have no accesses yet.');
  });
});
