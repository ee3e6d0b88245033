/**
 * Hides the troubleshoot agent's command wrapper from the terminal a person reads. The shell
 * echoes `{ printf '__OPSGATE_<nonce>_B__\n' <nonce>; COMMAND` and `}; printf … __OPSGATE_…`, and
 * prints marker lines `__OPSGATE_<nonce>_B__` / `__OPSGATE_<nonce>_<status>__`. This keeps the
 * prompt and the command as typed and drops every line that only exists for the markers, and the
 * shell set-up line the agent sends when it opens a shell.
 * Lines are judged whole, so a partial line that may turn into a wrapper is held until its end.
 */
export class TerminalFilter {
  #pending = '';

  /** Returns what to show of `chunk` now. */
  push(chunk: string): string {
    const text = this.#pending + chunk;
    this.#pending = '';
    const lines = text.split('\n');
    const last = lines.pop() ?? '';
    let out = '';
    for (const line of lines) {
      const shown = cleanLine(line);
      if (shown !== undefined) out += `${shown}\n`;
    }
    if (mayBecomeWrapper(last)) this.#pending = last;
    else out += cleanLine(last) ?? '';
    return out;
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences start with ESC.
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[=>]/g;
const POSIX_BEGIN = /\{ printf '__OPSGATE_%s_B__\\n' \w+; /;
const POWERSHELL_BEGIN = /'__OPSGATE_' \+ '\w+_B__'; /;
const CMD_BEGIN = /echo __OPSGATE_\^\w+_B__ & /;

/** The pager settings the agent sends when it opens a POSIX shell (`POSIX_INIT_COMMAND`). */
const SHELL_SETUP = /export PAGER=cat GIT_PAGER=cat SYSTEMD_PAGER= /;

function cleanLine(line: string): string | undefined {
  const plain = line.replace(ANSI, '');
  if (SHELL_SETUP.test(plain)) return undefined;
  if (!plain.includes('__OPSGATE_')) return line;
  for (const begin of [POSIX_BEGIN, POWERSHELL_BEGIN, CMD_BEGIN]) {
    const match = begin.exec(plain);
    if (match) {
      const typed = plain.slice(0, match.index) + plain.slice(match.index + match[0].length);
      return typed.includes('__OPSGATE_') ? stripTail(typed) : typed.replace(/\r$/, '');
    }
  }
  return undefined;
}

/** `cmd.exe` echoes the whole wrapper on one line: keep what comes before the end marker. */
function stripTail(typed: string): string | undefined {
  const cut = typed.search(/ & echo\. & call echo __OPSGATE_|; '__OPSGATE_'|\r?$/);
  const kept = typed.slice(0, cut > 0 ? cut : typed.length);
  return kept.includes('__OPSGATE_') ? undefined : kept;
}

function mayBecomeWrapper(partial: string): boolean {
  const plain = partial.replace(ANSI, '');
  // A bare "> " is the shell's continuation prompt for the wrapper's second line, which it echoes
  // in a later write; shown at once it prefixed the command's first line of output.
  if (/^>\s*$/.test(plain)) return true;
  return (/[{_'}]|echo|printf/.test(plain) || plain.includes(String.fromCharCode(27))) && plain.length < 4096;
}
