import { stripAnsi } from './strip-ansi.ts';

/**
 * Prompts that pagers (less, more, man, systemctl, git log) leave at the cursor line. Checked only
 * against the last line, so the same words inside ordinary output do not count.
 */
const PAGER_PROMPTS: readonly RegExp[] = [
  /^\s*\(END\)\s*$/, // less at the end of the text
  /--More--/, // more, also `--More--(42%)`
  /^\s*:\s*$/, // less waiting for a command
  /^\s*lines \d+-\d+(\/\d+)?( \d+%)?( \(END\))?\s*$/i, // less -M / systemctl status
  /^\s*byte \d+(\/\d+)?( \d+%)?\s*$/i, // less on a pipe with -M
  /\(press h for help or q to quit\)\s*$/i, // man
  /^\s*\(press RETURN\)\s*$/i,
  /^\s*Press RETURN to continue\b/i,
  /^\s*-- ?Press any key to continue ?--\s*$/i, // Windows more
];

/**
 * True when the screen tail ends in a pager prompt (AR-07), so the caller should send `q`.
 * `screenTail` is the last bytes the terminal showed; escape codes are removed here, `\r` overwrites.
 */
export function detectPagerPrompt(screenTail: string): boolean {
  const line = cursorLine(screenTail);
  if (line.length > 200) return false;
  return PAGER_PROMPTS.some((pattern) => pattern.test(line));
}

/** The text of the line the cursor is on: after the last `\n`, and after the last `\r` in it. */
export function cursorLine(screenTail: string): string {
  const tail = screenTail.length > 4096 ? screenTail.slice(-4096) : screenTail;
  const clean = stripAnsi(tail);
  let line = clean.slice(clean.lastIndexOf('\n') + 1);
  const carriage = line.lastIndexOf('\r');
  if (carriage !== -1) {
    // `\r` at the very end is a line ending still to be followed by `\n`; otherwise text after it overwrote the line.
    line = carriage === line.length - 1 ? line.slice(0, carriage) : line.slice(carriage + 1);
  }
  return line;
}
