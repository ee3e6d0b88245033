import { randomBytes } from 'node:crypto';

/** How completion of a command is detected on a shell. */
export type ShellFamily = 'posix' | 'powershell' | 'cmd' | 'prompt';

/** The exact text written to the shell for one command, and how to find its start and end in the output. */
export interface WrappedCommand {
  readonly text: string;
  /** Matches the line printed before the command's output; absent for the `prompt` family. */
  readonly begin?: RegExp;
  /** Matches the end line; group 1 is the exit status. Absent for the `prompt` family. */
  readonly end?: RegExp;
}

/** 128 random bits per command: the model and the command's output cannot know it in advance. */
export function newNonce(): string {
  return randomBytes(16).toString('hex');
}

/**
 * Wraps a command so that the shell prints `__OPSGATE_<nonce>_B__` before it and
 * `__OPSGATE_<nonce>_<exit status>__` after it. The echoed input never contains these strings
 * verbatim (the nonce is passed as a separate argument or split by an escape), so only the shell
 * can print them. The command itself is written unchanged inside the wrapper (AR-08: visible).
 *
 * - posix: a brace group spanning lines, so the command's own stdin reads do not swallow the end
 *   marker and `$?` is the status of the command's last pipeline.
 * - powershell: `$LASTEXITCODE` (or 0/1 from `$?` for cmdlets).
 * - cmd: `call echo …%^ERRORLEVEL%…` with `^` splitting the marker in the echoed line.
 */
export function wrapCommand(command: string, family: ShellFamily, nonce: string): WrappedCommand {
  const begin = new RegExp(`__OPSGATE_${nonce}_B__`);
  const end = new RegExp(`__OPSGATE_${nonce}_(-?\\d+)__`);
  switch (family) {
    case 'posix':
      return {
        text: `{ printf '__OPSGATE_%s_B__\\n' ${nonce}; ${command}\n}; printf '\\n__OPSGATE_%s_%s__\\n' ${nonce} "$?"\n`,
        begin,
        end,
      };
    case 'powershell':
      return {
        text:
          `'__OPSGATE_' + '${nonce}_B__'; ${command}; ` +
          `$__og = if ($?) { if ($LASTEXITCODE) { $LASTEXITCODE } else { 0 } } else { if ($LASTEXITCODE) { $LASTEXITCODE } else { 1 } }; ` +
          `''; '__OPSGATE_' + '${nonce}_' + $__og + '__'\r\n`,
        begin,
        end,
      };
    case 'cmd':
      // `call` expands `%ERRORLEVEL%` after the command ran (plain `%ERRORLEVEL%` is expanded when
      // the line is read); `%^ERRORLEVEL%` survives the first pass as text.
      return { text: `echo __OPSGATE_^${nonce}_B__ & ${command} & echo. & call echo __OPSGATE_^${nonce}_%^ERRORLEVEL%__\r\n`, begin, end };
    case 'prompt':
      return { text: `${command}\n` };
  }
}
