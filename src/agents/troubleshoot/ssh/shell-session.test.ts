import { describe, expect, it } from 'vitest';
import { wrapCommand } from './command-markers.ts';
import { ShellSession, type ShellTransport } from './shell-session.ts';

/** A scripted terminal: what the "remote" prints for each line written to it. */
class ScriptedTransport implements ShellTransport {
  readonly written: string[] = [];
  #data: ((chunk: string) => void) | undefined;
  #respond: (line: string, transport: ScriptedTransport) => void;
  constructor(respond: (line: string, transport: ScriptedTransport) => void) {
    this.#respond = respond;
  }
  write(data: string): void {
    this.written.push(data);
    queueMicrotask(() => this.#respond(data, this));
  }
  print(text: string): void {
    this.#data?.(text);
  }
  onData(listener: (chunk: Buffer | string) => void): void {
    this.#data = (chunk) => listener(chunk);
  }
  onClose(): void {}
  close(): void {}
}

describe('ShellSession completion detection', () => {
  it('AR-06 a Windows cmd.exe shell without markers completes on the C:\\> prompt (prompt fallback)', async () => {
    const transport = new ScriptedTransport((line, t) => {
      t.print(`${line.replace(/\n$/, '')}\r\n`);
      setTimeout(() => t.print('\r\nMicrosoft Windows [Version 10.0.20348.2340]\r\n\r\nC:\\Users\\admin>'), 20);
    });
    const shell = new ShellSession(transport, { host: 'win', family: 'prompt', idleMs: 30 });
    const outcome = await shell.run('ver', { softTimeoutMs: 2000 });
    expect(outcome.status).toBe('completed');
    expect(outcome.exitStatus).toBeNull();
    expect(outcome.output).toContain('Microsoft Windows [Version 10.0.20348.2340]');
    expect(outcome.output).not.toContain('C:\\Users\\admin>');
  });

  it('AR-06 a PowerShell prompt (PS C:\\>) also ends a command in prompt mode', async () => {
    const transport = new ScriptedTransport((line, t) => {
      t.print(`${line.replace(/\n$/, '')}\r\n`);
      setTimeout(() => t.print('\r\nMajor  Minor\r\n5      1\r\n\r\nPS C:\\> '), 20);
    });
    const shell = new ShellSession(transport, { host: 'win', family: 'prompt', idleMs: 30 });
    const outcome = await shell.run('$PSVersionTable.PSVersion', { softTimeoutMs: 2000 });
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toContain('Major  Minor');
  });

  it('AR-06 output that merely ends in text is not taken for a prompt: the command stays running', async () => {
    const transport = new ScriptedTransport((line, t) => {
      t.print(`${line.replace(/\n$/, '')}\r\nprogress 10%`);
    });
    const shell = new ShellSession(transport, { host: 'win', family: 'prompt', idleMs: 20 });
    const outcome = await shell.run('long-job', { softTimeoutMs: 200 });
    expect(outcome.status).toBe('still_running');
    expect(outcome.output).toContain('progress 10%');
  });

  it('a marker printed by the output without the nonce does not end the command (markers are unguessable)', async () => {
    let nonce = '';
    const transport = new ScriptedTransport((_line, t) => {
      t.print('__OPSGATE_deadbeef_B__\r\n__OPSGATE_00000000000000000000000000000000_0__\r\n');
      setTimeout(() => t.print(`__OPSGATE_${nonce}_B__\r\nreal\r\n\r\n__OPSGATE_${nonce}_7__\r\n$ `), 30);
    });
    const shell = new ShellSession(transport, {
      host: 'h',
      idleMs: 10,
      generateNonce: () => {
        nonce = 'ab'.repeat(16);
        return nonce;
      },
    });
    const outcome = await shell.run('spoof', { softTimeoutMs: 2000 });
    expect(outcome.exitStatus).toBe(7);
    expect(outcome.output).toBe('real\r\n');
  });

  it('AR-07 a --More-- prompt is answered with q', async () => {
    const transport = new ScriptedTransport((line, t) => {
      if (line === 'q') {
        t.print(`\r\n__OPSGATE_${'cd'.repeat(16)}_0__\r\n`);
        return;
      }
      t.print(`__OPSGATE_${'cd'.repeat(16)}_B__\r\nline 1\r\nline 2\r\n--More--(12%)`);
    });
    const shell = new ShellSession(transport, { host: 'h', idleMs: 20, generateNonce: () => 'cd'.repeat(16) });
    const outcome = await shell.run('more big.txt', { softTimeoutMs: 2000 });
    expect(outcome.status).toBe('completed');
    expect(outcome.pagerQuits).toBe(1);
    expect(transport.written).toContain('q');
  });
});

describe('wrapCommand', () => {
  const nonce = '0123456789abcdef0123456789abcdef';
  it('AR-08 keeps the command verbatim and never echoes the marker text itself', () => {
    for (const family of ['posix', 'powershell', 'cmd'] as const) {
      const wrapped = wrapCommand('df -h', family, nonce);
      expect(wrapped.text).toContain('df -h');
      expect(wrapped.begin!.test(wrapped.text)).toBe(false);
      expect(wrapped.end!.test(wrapped.text)).toBe(false);
    }
  });
  it('posix wraps in a brace group so the exit status is that of the command', () => {
    expect(wrapCommand('false', 'posix', nonce).text).toBe(
      `{ printf '__OPSGATE_%s_B__\\n' ${nonce}; false\n}; printf '\\n__OPSGATE_%s_%s__\\n' ${nonce} "$?"\n`,
    );
  });
});
