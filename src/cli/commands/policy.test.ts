import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

describe('opsgate policy', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-policy-cli-'));
    env = { OPSGATE_DATA_DIR: join(dir, 'data') };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('check accepts the default policy and names its policies', async () => {
    const result = await run(['policy', 'check'], env);
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(result.out).toMatch(/^policy OK: \d+ policies in .*default/);
    expect(result.out).toContain('sod-no-self-approval-high-risk');
  });

  it('check refuses a broken directory with exit 1, naming the file and the problem', async () => {
    const broken = join(dir, 'broken');
    mkdirSync(broken);
    writeFileSync(
      join(broken, 'rules.cedar'),
      '@id("x") permit (principal, action == Opsgate::Action::"run", resource) when { context.colour == "red" };',
    );
    const result = await run(['policy', 'check', '--dir', broken], env);
    expect(result.code).toBe(1);
    expect(result.err).toContain('[POLICY_INVALID]');
    expect(result.err).toContain('policy "x"');
    expect(await run(['policy', 'check', '--dir', join(dir, 'missing')], env)).toMatchObject({
      code: 1,
      err: expect.stringContaining('POLICY_DIR_NOT_FOUND'),
    });
    expect(await run(['policy', 'check', '--user', 'x'], env)).toMatchObject({ code: 2 });
  });

  it('explain says what would happen, which policy decided, and who can approve', async () => {
    expect((await run(['users', 'add', 'john_doe'], env)).code).toBe(0);
    expect((await run(['users', 'add', 'alice', '--role', 'approver'], env)).code).toBe(0);
    const write = await run(
      [
        'policy',
        'explain',
        '--user',
        'john_doe',
        '--tool',
        'grant_access_to_user',
        '--args',
        '{"access_name":"DB_WRITE_PROD","user_id":1,"username":"john_doe"}',
      ],
      env,
    );
    expect(write.code).toBe(0);
    expect(write.out).toContain('decision: ask (1 approver)');
    expect(write.out).toContain('policy:   state-changes-need-approval');
    expect(write.out).toContain('who can approve: alice');
    expect(write.out).toContain('john_doe approving it themself: refused by sod-no-self-approval-sensitive-access');
    const read = await run(['policy', 'explain', '--user', 'john_doe', '--tool', 'list_available_accesses', '--args', '{}'], env);
    expect(read.out).toContain('decision: run');
    expect(read.out).toContain('policy:   read-only-runs');
    expect(await run(['policy', 'explain', '--user', 'nobody', '--tool', 'list_available_accesses', '--args', '{}'], env)).toMatchObject({
      code: 2,
      err: expect.stringContaining('no user named nobody'),
    });
    expect(await run(['policy', 'explain', '--user', 'john_doe', '--tool', 'list_available_accesses', '--args', '[1]'], env)).toMatchObject(
      { code: 2 },
    );
  });

  it("explain takes the call's target and environment: a production target is not self-approved", async () => {
    expect((await run(['users', 'add', 'john_doe'], env)).code).toBe(0);
    expect((await run(['users', 'add', 'alice', '--role', 'approver'], env)).code).toBe(0);
    const args = ['--user', 'john_doe', '--tool', 'grant_access_to_user', '--args', '{"access_name":"READ_DOCUMENTS","user_id":1}'];
    const plain = await run(['policy', 'explain', ...args], env);
    expect(plain.out).toContain('john_doe approving it themself: allowed by requester-approves-own-call');
    const production = await run(['policy', 'explain', ...args, '--target', 'prod-eu', '--environment', 'production'], env);
    expect(production.code).toBe(0);
    expect(production.out).toContain('on prod-eu (production)');
    expect(production.out).toContain('john_doe approving it themself: refused by sod-no-self-approval-production');
    expect(await run(['policy', 'explain', ...args, '--target', 'prod-eu'], env)).toMatchObject({
      code: 2,
      err: expect.stringContaining('--target and --environment go together'),
    });
  });
});
