import { stripAnsi } from './strip-ansi.ts';

// C0 controls except tab and newline, DEL, and the C1 range (U+0080–U+009F, where U+009B is a
// one-character CSI and U+009D an OSC in terminals that honour 8-bit controls).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Stored text (a requester's reason, a session title, a tool's output) made safe to print on a
 * person's terminal: escape sequences removed and every other control character shown as a
 * visible `\u….` mark, so text written by one person cannot rewrite what an approver reads
 * (earlier lines, the window title, the clipboard).
 */
export function terminalSafe(text: string): string {
  return stripAnsi(text).replace(CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A single-line form of stored text for tables and headers: newlines shown as ⏎ too. */
export function terminalSafeLine(text: string): string {
  return terminalSafe(text).replace(/\r?\n/g, ' ⏎ ');
}
