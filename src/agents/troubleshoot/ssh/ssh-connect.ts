import { createHash } from 'node:crypto';
import { Client, type ClientChannel } from 'ssh2';
import { TroubleshootErrors } from '../errors.ts';
import type { Host, HostSecret } from '../hosts/host-repository.ts';

/** OpenSSH's `SHA256:<base64 without padding>` of a raw public key blob. */
function sshFingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

export interface ConnectOptions {
  /** Default 10 s. */
  readonly readyTimeoutMs?: number;
}

type Target = Pick<Host, 'name' | 'address' | 'port' | 'username' | 'hostKeySha256'>;

/**
 * Opens an authenticated SSH connection, refusing any host key that is not the pinned one.
 * An unpinned host throws `HOST_KEY_UNCONFIRMED` with the fingerprint seen; a different key
 * throws `HOST_KEY_CHANGED`. Credentials are passed to ssh2 only.
 */
export async function connectSsh(host: Target, secret: HostSecret, options: ConnectOptions = {}): Promise<Client> {
  const client = new Client();
  let seen: string | undefined;
  return new Promise<Client>((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      client.end();
      reject(error);
    };
    client.once('ready', () => {
      settled = true;
      resolve(client);
    });
    client.on('error', (error) => {
      const fields = { host: host.name, address: host.address, port: host.port };
      if (seen !== undefined && !host.hostKeySha256) return fail(TroubleshootErrors.HOST_KEY_UNCONFIRMED({ ...fields, actual: seen }));
      if (seen !== undefined && seen !== host.hostKeySha256) {
        return fail(TroubleshootErrors.HOST_KEY_CHANGED({ ...fields, expected: host.hostKeySha256, actual: seen }));
      }
      fail(TroubleshootErrors.SSH_CONNECT_FAILED({ ...fields, detail: error.message }, { cause: error }));
    });
    client.connect({
      host: host.address,
      port: host.port,
      username: host.username,
      ...(secret.privateKey ? { privateKey: secret.privateKey } : {}),
      ...(secret.passphrase ? { passphrase: secret.passphrase } : {}),
      ...(secret.password ? { password: secret.password } : {}),
      readyTimeout: options.readyTimeoutMs ?? 10_000,
      keepaliveInterval: 15_000,
      hostVerifier: (key: Buffer) => {
        seen = sshFingerprint(key);
        return host.hostKeySha256 !== undefined && seen === host.hostKeySha256;
      },
    });
  });
}

/**
 * Connects only far enough to read the server's host key and returns its fingerprint, so that a
 * person can confirm it before it is pinned. No credentials are sent.
 */
export async function probeHostKey(address: string, port: number, timeoutMs = 10_000): Promise<string> {
  const client = new Client();
  return new Promise<string>((resolve, reject) => {
    let seen: string | undefined;
    client.on('error', (error) => {
      client.end();
      if (seen) resolve(seen);
      else reject(TroubleshootErrors.SSH_CONNECT_FAILED({ host: address, address, port, detail: error.message }, { cause: error }));
    });
    client.connect({
      host: address,
      port,
      username: 'opsgate-host-key-probe',
      readyTimeout: timeoutMs,
      hostVerifier: (key: Buffer) => {
        seen = sshFingerprint(key);
        return false;
      },
    });
  });
}

/** Environment asked for on the PTY (servers may refuse `env`; the shell also exports it visibly). */
const SHELL_ENV: Readonly<Record<string, string>> = {
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  SYSTEMD_PAGER: '',
  TERM: 'xterm-256color',
};

/** Opens an interactive PTY shell (`xterm-256color`, 200×50 by default). */
export async function openPtyShell(client: Client, size: { cols?: number; rows?: number } = {}): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    client.shell({ term: 'xterm-256color', cols: size.cols ?? 200, rows: size.rows ?? 50 }, { env: { ...SHELL_ENV } }, (error, channel) => {
      if (error) reject(error);
      else resolve(channel);
    });
  });
}
