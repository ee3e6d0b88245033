/**
 * Round trip of `true` over loopback SSH through the troubleshoot agent's `ShellSession`: write
 * the command with its completion markers to the PTY, wait for the end marker. n=200 (50 with
 * BENCH_QUICK=1). Writes bench/results/troubleshoot-ssh.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { channelTransport, POSIX_INIT_COMMAND } from '../src/agents/troubleshoot/ssh/shell-pool.ts';
import { ShellSession } from '../src/agents/troubleshoot/ssh/shell-session.ts';
import { connectSsh, openPtyShell } from '../src/agents/troubleshoot/ssh/ssh-connect.ts';
import { sshdAvailable, startTestSshd } from '../test/support/sshd.ts';

const quick = process.env.BENCH_QUICK === '1';
const n = quick ? 50 : 200;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

if (!sshdAvailable()) {
  console.error('sshd is not installed (apt-get install openssh-server); nothing to measure');
  process.exit(1);
}

const sshd = await startTestSshd();
try {
  const host = { name: 'bench', address: sshd.host, port: sshd.port, username: sshd.username, hostKeySha256: sshd.hostKeyFingerprint };
  const connectStart = performance.now();
  const client = await connectSsh(host, { privateKey: sshd.privateKey });
  const channel = await openPtyShell(client);
  const shell = new ShellSession(channelTransport(channel, client), { host: 'bench', family: 'posix' });
  await shell.waitForPrompt(5000);
  await shell.run(POSIX_INIT_COMMAND, { softTimeoutMs: 5000 });
  const connectMs = performance.now() - connectStart;

  for (let i = 0; i < 5; i++) await shell.run('true', { softTimeoutMs: 10_000 });
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const outcome = await shell.run('true', { softTimeoutMs: 10_000 });
    samples.push(performance.now() - start);
    if (outcome.status !== 'completed' || outcome.exitStatus !== 0) throw new Error(`round trip ${i} did not complete: ${outcome.status}`);
  }
  shell.close();
  samples.sort((a, b) => a - b);
  const result = {
    system: 'ShellSession over ssh2 → OpenSSH (loopback), command `true`',
    n,
    p50_ms: Number(percentile(samples, 50).toFixed(3)),
    p99_ms: Number(percentile(samples, 99).toFixed(3)),
    min_ms: Number(samples[0]!.toFixed(3)),
    max_ms: Number(samples.at(-1)!.toFixed(3)),
    connect_and_init_ms: Number(connectMs.toFixed(1)),
  };
  console.table([result]);
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./results/troubleshoot-ssh.json', import.meta.url), `${JSON.stringify({ results: [result] }, null, 2)}\n`);
} finally {
  await sshd.stop();
}
