import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/command.ts';
import { hostsCommand } from '../../src/cli/commands/hosts.ts';
import { sshdAvailable, startTestSshd, type TestSshd } from '../support/sshd.ts';

describe.skipIf(!sshdAvailable())('opsgate hosts', () => {
  let sshd: TestSshd;
  let dataDir: string;
  beforeAll(async () => {
    sshd = await startTestSshd();
    dataDir = mkdtempSync(join(tmpdir(), 'opsgate-hosts-cli-'));
    writeFileSync(join(dataDir, 'key'), sshd.privateKey, { mode: 0o600 });
  });
  afterAll(async () => {
    await sshd?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function run(...args: string[]): Promise<{ code: number; out: string }> {
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const code = await hostsCommand.run(args, {
      stdout,
      stderr: new PassThrough(),
      stdin: new PassThrough(),
      env: { OPSGATE_DATA_DIR: dataDir },
    });
    return { code, out };
  }

  it('add shows the host key, stores it unpinned until trust confirms it; the key never appears in the output', async () => {
    const added = await run(
      'add',
      'web-1',
      '--address',
      sshd.host,
      '--port',
      String(sshd.port),
      '--user',
      sshd.username,
      '--key-file',
      join(dataDir, 'key'),
    );
    expect(added.out).toContain(`host key fingerprint: ${sshd.hostKeyFingerprint}`);
    expect(added.out).toContain(`opsgate hosts trust web-1 ${sshd.hostKeyFingerprint}`);
    expect((await run('list')).out).toContain('host key NOT confirmed');
    await expect(run('trust', 'web-1', `SHA256:${'A'.repeat(43)}`)).rejects.toMatchObject({ code: 'HOST_KEY_CHANGED' });
    expect((await run('trust', 'web-1', sshd.hostKeyFingerprint)).out).toContain('pinned');
    const listed = (await run('list')).out;
    expect(listed).toContain(sshd.hostKeyFingerprint);
    expect(listed + added.out).not.toContain('PRIVATE KEY');
    expect((await run('remove', 'web-1')).out).toContain('removed web-1');
  });

  it('bad arguments are usage errors', async () => {
    await expect(run('add', 'x', '--address', 'h')).rejects.toBeInstanceOf(UsageError);
    await expect(run('frobnicate')).rejects.toBeInstanceOf(UsageError);
    await expect(run('add', 'x', '--address', 'h', '--user', 'u', '--key-file', 'k', '--password-stdin')).rejects.toBeInstanceOf(
      UsageError,
    );
  });
});
