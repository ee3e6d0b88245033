/**
 * A real OpenSSH server for test suites: throwaway host and user keys in a temp dir, a free
 * loopback port, run in the foreground as a child process. Log in as the current user with the
 * returned private key. Suites skip with `describe.skipIf(!sshdAvailable())`.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect as netConnect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

const SSHD_CANDIDATES = ['/usr/sbin/sshd', '/usr/local/sbin/sshd', '/sbin/sshd'];

export interface TestSshd {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  /** OpenSSH private key (PEM/OpenSSH format) authorised for `username`. */
  readonly privateKey: string;
  /** `SHA256:…` as `ssh-keygen -l -E sha256` prints it. */
  readonly hostKeyFingerprint: string;
  /** The temp dir holding keys and config (tests may put files there). */
  readonly dir: string;
  /** Restarts the server on the same port with a new host key (a "changed host key"); returns the new fingerprint. */
  rotateHostKey(): Promise<string>;
  stop(): Promise<void>;
}

export function sshdPath(): string | undefined {
  return SSHD_CANDIDATES.find((path) => existsSync(path));
}

/** sshd and ssh-keygen are both installed. */
export function sshdAvailable(): boolean {
  if (!sshdPath()) return false;
  try {
    execFileSync('ssh-keygen', ['-?'], { stdio: 'ignore' });
  } catch (error) {
    // `ssh-keygen -?` exits 1 after printing usage; only a missing binary is fatal.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
  }
  return true;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function generateKey(path: string): void {
  rmSync(path, { force: true });
  rmSync(`${path}.pub`, { force: true });
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'opsgate-test', '-f', path], { stdio: 'ignore' });
}

function fingerprintOf(publicKeyPath: string): string {
  const line = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', publicKeyPath], { encoding: 'utf8' });
  const match = /SHA256:[A-Za-z0-9+/]+/.exec(line);
  if (!match) throw new Error(`cannot read fingerprint from: ${line}`);
  return match[0];
}

async function waitForBanner(port: number, child: ChildProcess, stderr: () => string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`sshd exited with ${child.exitCode}: ${stderr()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = netConnect(port, '127.0.0.1');
      socket.setTimeout(1000);
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString('latin1').startsWith('SSH-'));
      });
      socket.once('error', () => resolve(false));
      socket.once('timeout', () => {
        socket.destroy();
        resolve(false);
      });
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`sshd did not answer on port ${port}: ${stderr()}`);
}

/** Starts sshd on 127.0.0.1 and a free port. Throws when sshd is not installed. */
export async function startTestSshd(): Promise<TestSshd> {
  const binary = sshdPath();
  if (!binary) throw new Error('sshd is not installed (Debian: apt-get install openssh-server)');
  // Privilege separation needs this directory when sshd runs as root.
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });

  const dir = mkdtempSync(join(tmpdir(), 'opsgate-sshd-'));
  const hostKey = join(dir, 'host_ed25519');
  const userKey = join(dir, 'user_ed25519');
  generateKey(hostKey);
  generateKey(userKey);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${userKey}.pub`), { mode: 0o600 });
  const port = await freePort();
  const username = userInfo().username;
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'StrictModes no',
      'UsePAM no',
      `PidFile ${join(dir, 'sshd.pid')}`,
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      `AllowUsers ${username}`,
      'PrintMotd no',
      'PrintLastLog no',
      'MaxSessions 50',
      'MaxStartups 100',
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );

  let child: ChildProcess;
  let log = '';
  const start = async () => {
    log = '';
    child = spawn(binary, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.on('data', (data: Buffer) => {
      log += data.toString();
    });
    await waitForBanner(port, child, () => log);
  };
  const halt = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  };
  await start();

  const state = { fingerprint: fingerprintOf(`${hostKey}.pub`) };
  return {
    host: '127.0.0.1',
    port,
    username,
    privateKey: readFileSync(userKey, 'utf8'),
    get hostKeyFingerprint() {
      return state.fingerprint;
    },
    dir,
    async rotateHostKey() {
      await halt();
      generateKey(hostKey);
      state.fingerprint = fingerprintOf(`${hostKey}.pub`);
      await start();
      return state.fingerprint;
    },
    async stop() {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
