import type { Client, ClientChannel } from 'ssh2';
import type { Host, HostRepository } from '../hosts/host-repository.ts';
import { ShellSession, type ShellTransport } from './shell-session.ts';
import { connectSsh, openPtyShell } from './ssh-connect.ts';

/**
 * Visible environment set at the start of every shell: pagers are avoided by environment, and
 * `less` (if something still starts it) shows a prompt the pager detection knows (AR-07).
 */
export const POSIX_INIT_COMMAND = "export PAGER=cat GIT_PAGER=cat SYSTEMD_PAGER= TERM=xterm-256color LESS='-Ps--More--'";
const POWERSHELL_INIT_COMMAND = "$env:PAGER='cat'; $env:GIT_PAGER='cat'";

/** Adapts an ssh2 PTY channel to the transport a `ShellSession` drives. */
export function channelTransport(channel: ClientChannel, client: Client): ShellTransport {
  return {
    write: (data) => {
      channel.write(data);
    },
    onData: (listener) => {
      channel.on('data', listener);
      channel.stderr.on('data', listener);
    },
    onClose: (listener) => {
      channel.on('close', () => listener('the remote shell exited'));
      client.on('close', () => listener('the SSH connection closed'));
      client.on('error', (error: Error) => listener(`SSH error: ${error.message}`));
    },
    close: () => {
      channel.end();
      client.end();
    },
  };
}

export interface ShellPoolOptions {
  readonly hosts: HostRepository;
  /** Default 10 s. */
  readonly connectTimeoutMs?: number;
  /** Quiet time before pager/prompt checks. Default 150 ms. */
  readonly idleMs?: number;
}

/** One long-lived `ShellSession` per opsgate session and host, opened on first use. */
export class ShellPool {
  readonly #options: ShellPoolOptions;
  readonly #shells = new Map<string, Promise<ShellSession>>();

  constructor(options: ShellPoolOptions) {
    this.#options = options;
  }

  /** The open shell of `sessionId` on `host`, or a new one (connect, verify the pinned key, init). */
  async shellFor(sessionId: string, host: Host, onOutput?: (chunk: string) => void): Promise<ShellSession> {
    const key = `${sessionId}\u0000${host.id}`;
    const existing = this.#shells.get(key);
    if (existing) {
      const shell = await existing.catch(() => undefined);
      if (shell && !shell.closed) {
        if (onOutput) shell.setOutputListener(onOutput);
        return shell;
      }
      this.#shells.delete(key);
    }
    const opening = this.#open(host, onOutput);
    this.#shells.set(key, opening);
    opening.catch(() => this.#shells.delete(key));
    return opening;
  }

  /** The open shell without opening one (for `read_output`). */
  async existing(sessionId: string, hostId: number): Promise<ShellSession | undefined> {
    const shell = await this.#shells.get(`${sessionId}\u0000${hostId}`)?.catch(() => undefined);
    return shell && !shell.closed ? shell : undefined;
  }

  async #open(host: Host, onOutput?: (chunk: string) => void): Promise<ShellSession> {
    const secret = await this.#options.hosts.secretOf(host);
    const client = await connectSsh(host, secret, { readyTimeoutMs: this.#options.connectTimeoutMs ?? 10_000 });
    try {
      const channel = await openPtyShell(client);
      const shell = new ShellSession(channelTransport(channel, client), {
        host: host.name,
        family: host.os === 'windows' ? 'cmd' : 'posix',
        idleMs: this.#options.idleMs ?? 150,
      });
      if (onOutput) shell.setOutputListener(onOutput);
      const prompt = await shell.waitForPrompt(5000);
      if (prompt === 'powershell' || prompt === 'cmd' || prompt === 'posix') shell.setFamily(prompt);
      const init = shell.family === 'posix' ? POSIX_INIT_COMMAND : shell.family === 'powershell' ? POWERSHELL_INIT_COMMAND : undefined;
      if (init) {
        const outcome = await shell.run(init, { softTimeoutMs: 5000 });
        if (outcome.status !== 'completed') {
          // Markers did not come back: an unknown shell. Fall back to prompt detection (AR-06).
          shell.interrupt();
          await shell.readOutput({ waitMs: 1000 });
          shell.abandonCurrent();
          shell.setFamily('prompt');
        }
      }
      return shell;
    } catch (error) {
      client.end();
      throw error;
    }
  }

  closeSession(sessionId: string): void {
    for (const [key, shell] of this.#shells) {
      if (key.startsWith(`${sessionId}\u0000`)) {
        this.#shells.delete(key);
        void shell.then((s) => s.close()).catch(() => undefined);
      }
    }
  }

  async closeAll(): Promise<void> {
    const shells = [...this.#shells.values()];
    this.#shells.clear();
    await Promise.all(shells.map((shell) => shell.then((s) => s.close()).catch(() => undefined)));
  }
}
