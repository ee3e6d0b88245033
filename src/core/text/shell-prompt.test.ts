import { describe, expect, it } from 'vitest';
import { detectShellPrompt } from './shell-prompt.ts';

describe('detectShellPrompt', () => {
  it.each([
    ['$ ', 'posix'],
    ['# ', 'posix'],
    ['user@host:~$ ', 'posix'],
    ['root@web-1:/var/log# ', 'posix'],
    ['[deploy@db01 ~]$ ', 'posix'],
    ['\u001b[01;32muser@host\u001b[00m:\u001b[01;34m~\u001b[00m$ ', 'posix'],
    ['bash-5.2$ ', 'posix'],
    ['C:\\>', 'cmd'],
    ['C:\\Users\\x>', 'cmd'],
    ['C:\\Program Files> ', 'cmd'],
    ['PS C:\\>', 'powershell'],
    ['PS C:\\Users\\admin> ', 'powershell'],
  ])('AR-06 detects the prompt %j as %s', (line, kind) => {
    expect(detectShellPrompt(line)).toBe(kind);
  });

  it.each(['Total: 42', 'ls -la', '', 'Progress: 50%', 'Enter password:', 'a > b'])('AR-06 finds no prompt in %j', (line) => {
    expect(detectShellPrompt(line)).toBeUndefined();
  });
});
