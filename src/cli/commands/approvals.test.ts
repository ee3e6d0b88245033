import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openOpsgate } from '../../app/open-opsgate.ts';
import { UserRepository } from '../../core/identity/users.ts';
import { main } from '../main.ts';

function run(args: string[], env: Record<string, string>) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  return main(args, { stdout, stderr, stdin: Readable.from(['']), env }).then((code) => ({ code, out, err }));
}

describe('opsgate approvals', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-approvals-cli-'));
    env = { OPSGATE_DATA_DIR: dir };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** john_doe asks for DB_WRITE_PROD (one process at a time owns the SQLite file, so this one closes first). */
  async function propose(answer: string): Promise<string> {
    const opsgate = await openOpsgate({ env, agentNames: ['access'] });
    try {
      const users = new UserRepository(opsgate.store);
      const john = (await users.findByName('john_doe')) ?? (await users.create({ username: 'john_doe' }));
      if (!(await users.findByName('alice'))) await users.create({ username: 'alice', roles: ['approver'] });
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
    const listed = await run(['approvals', 'list', '--user', 'alice'], env);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain('1 waiting for alice, 1 pending in all');
    expect(listed.out).toMatch(new RegExp(`^\\* ${callId}  grant_access_to_user`, 'm'));
    const forJohn = await run(['approvals', 'list', '--user', 'john_doe'], env);
    expect(forJohn.out).toContain('0 waiting for john_doe, 1 pending in all');
    const shown = await run(['approvals', 'show', callId, '--user', 'alice'], env);
    expect(shown.out).toContain('"access_name":"DB_WRITE_PROD"');
    expect(shown.out).toContain('policy    state-changes-need-approval');
    expect(shown.out).toContain('approvers alice');

    const own = await run(['approvals', 'approve', callId, '--user', 'john_doe'], env);
    expect(own.code).toBe(1);
    expect(own.err).toContain('john_doe may not approve grant_access_to_user');
    expect(own.err).toContain('Who can approve: alice. [APPROVAL_REFUSED]');
    const approved = await run(['approvals', 'approve', callId, '--user', 'alice'], env);
    expect(approved).toMatchObject({ code: 0, out: `approved ${callId} (grant_access_to_user): now executed\n` });
    const history = await run(['approvals', 'list', '--history', '--user', 'alice'], env);
    expect(history.out).toMatch(new RegExp(`executed +grant_access_to_user +by alice +asked by john_doe +${callId}`));

    const second = await propose('Production, read only');
    const rejected = await run(['approvals', 'reject', second, '--reason', 'use the replica', '--user', 'alice'], env);
    expect(rejected).toMatchObject({ code: 0, out: `rejected ${second} (grant_access_to_user): now rejected\n` });
    expect(await run(['approvals', 'approve', second, '--user', 'alice'], env)).toMatchObject({
      code: 2,
      err: expect.stringContaining(`no call ${second}`),
    });
    expect(await run(['approvals', 'show', '--user', 'alice'], env)).toMatchObject({ code: 2 });
  });
});
