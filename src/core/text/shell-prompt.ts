import { cursorLine } from './pager-prompt.ts';

export type ShellKind = 'posix' | 'cmd' | 'powershell';

const POWERSHELL = /^PS [^\r\n>]*> ?$/;
const CMD = /^[A-Za-z]:\\[^\r\n<>|"*?]*> ?$/;
/** `$ `, `# `, `user@host:~$ `, `[user@host dir]# `, `bash-5.2$ `, zsh `host% `. */
const POSIX = /(?:^|[\s\]\w~/:)@-])[$#] ?$|^[\w.-]+@[\w.-]+[^\r\n]*% ?$|^[$#%] ?$/;

/**
 * Recognises the shell prompt at the cursor line (AR-06), a fallback when completion markers are
 * missing. Returns undefined for anything else, including long lines and lines of ordinary output.
 */
export function detectShellPrompt(lastLine: string): ShellKind | undefined {
  const line = cursorLine(lastLine);
  if (line.length === 0 || line.length > 256) return undefined;
  if (POWERSHELL.test(line)) return 'powershell';
  if (CMD.test(line)) return 'cmd';
  if (POSIX.test(line)) return 'posix';
  return undefined;
}
