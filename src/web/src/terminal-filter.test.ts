import { describe, expect, it } from 'vitest';
import { TerminalFilter } from './terminal-filter.ts';

const wrapperEcho = (command: string) =>
  `ops@web-1:~$ { printf '__OPSGATE_%s_B__\\n' 9f3a; ${command}\r\n> }; printf '\\n__OPSGATE_%s_%s__\\n' 9f3a "$?"\r\n`;

describe('TerminalFilter', () => {
  it('shows the prompt, the command as typed and its output, never the wrapper or marker lines', () => {
    const filter = new TerminalFilter();
    const shown = filter.push(
      `ops@web-1:~$ export PAGER=cat GIT_PAGER=cat SYSTEMD_PAGER= TERM=xterm-256color\r\n${wrapperEcho('echo hello')}__OPSGATE_9f3a_B__\r\nhello\r\n\r\n__OPSGATE_9f3a_0__\r\n`,
    );
    expect(shown).not.toContain('__OPSGATE_');
    expect(shown).not.toContain('printf');
    expect(shown).not.toContain('PAGER');
    expect(shown).toContain('ops@web-1:~$ echo hello');
    expect(shown).toContain('hello\r\n');
  });

  it('judges a wrapper split across chunks as a whole line', () => {
    const filter = new TerminalFilter();
    const text = `${wrapperEcho('uptime')}__OPSGATE_9f3a_B__\r\n 10:00 up 3 days\r\n__OPSGATE_9f3a_0__\r\n`;
    let shown = '';
    for (let at = 0; at < text.length; at += 7) shown += filter.push(text.slice(at, at + 7));
    expect(shown).not.toContain('__OPSGATE_');
    expect(shown).toContain('$ uptime');
    expect(shown).toContain('10:00 up 3 days');
  });

  it("never shows the shell's continuation prompt of the wrapper's second line before the output (review T8: '> Linux vm')", () => {
    const filter = new TerminalFilter();
    // The shell prints its PS2 prompt, then echoes the wrapper's second line in a later write.
    const chunks = [
      `ops@web-1:~$ { printf '__OPSGATE_%s_B__\\n' 9f3a; uname -a\r\n> `,
      `}; printf '\\n__OPSGATE_%s_%s__\\n' 9f3a "$?"\r\n`,
      '__OPSGATE_9f3a_B__\r\nLinux vm 6.1.0\r\n\r\n__OPSGATE_9f3a_0__\r\n',
    ];
    const shown = chunks.map((chunk) => filter.push(chunk)).join('');
    expect(shown).toBe('ops@web-1:~$ uname -a\nLinux vm 6.1.0\r\n\r\n');
  });

  it('passes ordinary output through at once, even without a line end', () => {
    const filter = new TerminalFilter();
    expect(filter.push('load average: 0.1\r\nprogress 50%')).toBe('load average: 0.1\r\nprogress 50%');
  });
});
