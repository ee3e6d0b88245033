import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openOpsgate } from '../../app/open-opsgate.ts';
import { UserRepository } from '../../core/identity/users.ts';
import { main } from '../main.ts';

function run(args: string[], env: Record<string, string>, stdin = '') {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  return main(args, { stdout, stderr, stdin: Readable.from([stdin]), env }).then((code) => ({ code, out, err }));
}

describe('opsgate approvals', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-approvals-cli-'));
    env = { OPSGATE_DATA_DIR: dir };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const tokens: Record<string, string> = {};
  const as = (username: string) => ({ ...env, OPSGATE_TOKEN: tokens[username]! });

  /** john_doe asks for DB_WRITE_PROD (one process at a time owns the SQLite file, so this one closes first). */
  async function propose(answer: string): Promise<string> {
    const opsgate = await openOpsgate({ env, agentNames: ['access'] });
    try {
      const users = new UserRepository(opsgate.store);
      const john = (await users.findByName('john_doe')) ?? (await users.create({ username: 'john_doe' }));
      if (!(await users.findByName('alice'))) await users.create({ username: 'alice', roles: ['approver'] });
      for (const name of ['john_doe', 'alice']) tokens[name] ??= (await users.createToken(name, 'cli')).token;
      const identity = { userId: john.id, username: john.username, roles: john.roles };
      const session = await opsgate.runtime.startSession({ agent: 'access', identity });
      await opsgate.runtime.send(session.id, 'I need database access', identity);
      const turn = await opsgate.runtime.send(session.id, answer, identity);
      if (turn.interrupt?.type !== 'approval') throw new Error(`no proposal: ${turn.messages.at(-1)?.text}`);
      return turn.interrupt.callId;
    } finally {
      await opsgate.close();
    }
  }

  it('lists, shows, refuses the requester naming who can approve, approves as alice, and rejects with a reason', async () => {
    const callId = await propose('Production, write');
    const listed = await run(['approvals', 'list'], as('alice'));
    expect(listed.code).toBe(0);
    expect(listed.out).toContain('1 waiting for alice, 1 pending in all');
    expect(listed.out).toMatch(new RegExp(`^\\* ${callId}  grant_access_to_user`, 'm'));
    const forJohn = await run(['approvals', 'list'], as('john_doe'));
    expect(forJohn.out).toContain('0 waiting for john_doe, 1 pending in all');
    const shown = await run(['approvals', 'show', callId], as('alice'));
    expect(shown.out).toContain('"access_name":"DB_WRITE_PROD"');
    expect(shown.out).toContain('policy    state-changes-need-approval');
    expect(shown.out).toContain('approvers alice');

    const own = await run(['approvals', 'approve', callId], as('john_doe'));
    expect(own.code).toBe(1);
    expect(own.err).toContain('john_doe may not approve grant_access_to_user');
    expect(own.err).toContain('Who can approve: alice. [APPROVAL_REFUSED]');
    // Review M2: naming alice on the command line (local mode, no token) does not make anyone alice.
    const asserted = await run(['approvals', 'approve', callId, '--user', 'alice'], env);
    expect(asserted.code).toBe(1);
    expect(asserted.err).toContain('local mode');
    expect(asserted.err).toContain('a token issued by someone else cannot approve');
    expect(await run(['approvals', 'approve', callId, '--user', 'alice'], as('john_doe'))).toMatchObject({
      code: 2,
      err: expect.stringContaining('OPSGATE_TOKEN belongs to john_doe; --user cannot change who you are'),
    });
    expect(await run(['approvals', 'list'], { ...env, OPSGATE_TOKEN: 'ogt_not-a-token' })).toMatchObject({
      code: 2,
      err: expect.stringContaining('OPSGATE_TOKEN is not a valid API token'),
    });
    // Issue 31, item 1: a high-risk approval shows what is asked and needs a typed "yes" (or --yes).
    const unanswered = await run(['approvals', 'approve', callId], as('alice'));
    expect(unanswered.code).toBe(1);
    expect(unanswered.out).toMatch(/^john_doe asks: DB_WRITE_PROD for john_doe, \d+ days · high\n/);
    expect(unanswered.out).toContain('Approve this high-risk request? Type yes to approve:');
    expect(unanswered.err).toContain(`not approved: ${callId} still waits`);
    const declined = await run(['approvals', 'approve', callId], as('alice'), 'no\n');
    expect(declined.code).toBe(1);
    expect((await run(['approvals', 'list'], as('alice'))).out).toContain('1 waiting for alice');
    const approved = await run(['approvals', 'approve', callId], as('alice'), 'yes\n');
    expect(approved.code).toBe(0);
    expect(approved.out).toMatch(new RegExp(`approved ${callId} \\(grant_access_to_user\\): now executed\n$`));
    const history = await run(['approvals', 'list', '--history'], as('alice'));
    expect(history.out).toMatch(new RegExp(`executed +grant_access_to_user +by alice +asked by john_doe +${callId}`));

    const second = await propose('Production, read only');
    expect(await run(['approvals', 'reject', second, '--yes'], as('alice'))).toMatchObject({ code: 2 });
    const rejected = await run(['approvals', 'reject', second, '--reason', 'use the replica'], as('alice'));
    expect(rejected).toMatchObject({ code: 0, out: `rejected ${second} (grant_access_to_user): now rejected\n` });
    expect(await run(['approvals', 'approve', second], as('alice'))).toMatchObject({
      code: 2,
      err: expect.stringContaining(`no call ${second}`),
    });
    expect(await run(['approvals', 'show'], as('alice'))).toMatchObject({ code: 2 });
  });

  it("prints a requester's escape sequences as visible text, so they cannot rewrite what the approver reads (review M3)", async () => {
    const opsgate = await openOpsgate({ env, agentNames: ['access'] });
    let callId: string;
    try {
      const users = new UserRepository(opsgate.store);
      const john = await users.create({ username: 'john_doe' });
      await users.create({ username: 'alice', roles: ['approver'] });
      tokens.alice = (await users.createToken('alice', 'cli')).token;
      const identity = { userId: john.id, username: john.username, roles: john.roles };
      const session = await opsgate.runtime.startSession({ agent: 'access', identity, title: 'deploy \u001b]0;pwned\u0007' });
      const spoof = 'ok\u001b[2A\u001b[2K\rtool      grant_access_to_user (risk low)\u009b1A';
      const turn = await opsgate.runtime.callTool(
        session.id,
        { tool: 'grant_access_to_user', args: { username: 'john_doe', access_name: 'DEPLOY_PROD', reason: spoof } },
        identity,
      );
      if (turn.interrupt?.type !== 'approval') throw new Error('expected an approval');
      callId = turn.interrupt.callId;
    } finally {
      await opsgate.close();
    }
    for (const args of [
      ['approvals', 'show', callId],
      ['approvals', 'list'],
    ]) {
      const shown = await run(args, as('alice'));
      expect(shown.code).toBe(0);
      // No escape or control character reaches the terminal; the requester's text stays visible as text.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
      expect(shown.out).not.toMatch(/[\u001b\u0007\r\u009b]/);
      expect(shown.out).toContain('DEPLOY_PROD');
    }
    const shown = await run(['approvals', 'show', callId], as('alice'));
    expect(shown.out).toContain('(risk high)');
    expect(shown.out).toContain('\\u000dtool      grant_access_to_user (risk low)');
  });

  it('refuses a disabled account in local mode too, like every other door (review M1-new)', async () => {
    const callId = await propose('Production, write');
    const opsgate = await openOpsgate({ env, agentNames: ['access'] });
    try {
      await new UserRepository(opsgate.store).disable('john_doe');
    } finally {
      await opsgate.close();
    }
    const refused = await run(['approvals', 'reject', callId, '--reason', 'withdrawn', '--user', 'john_doe'], env);
    expect(refused).toMatchObject({ code: 2, err: expect.stringContaining('the account "john_doe" is disabled') });
  });
});
