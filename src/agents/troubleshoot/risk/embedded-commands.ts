import type { SimpleCommand } from '../validator/index.ts';
import { inlineCode } from '../validator/linux-interpreter-rules.ts';

/**
 * Calls that hand a string to a shell, in Python, Perl, Ruby, PHP, Node and awk:
 * `os.system("…")`, `subprocess.run("…", shell=True)`, `system('…')`, `exec("…")`, `` `…` ``.
 */
const SHELL_CALL =
  /\b(?:os\s*\.\s*(?:system|popen)|subprocess\s*\.\s*\w+|system|exec(?:Sync)?|popen|shell_exec|passthru|spawnSync|qx)\s*\(?\s*(?:\[\s*)?(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")|`([^`]*)`/g;

/** Shell command lines an interpreter's inline code runs, as far as they are written out literally. */
export function embeddedShellCommands(command: SimpleCommand): string[] {
  const found: string[] = [];
  for (const code of inlineCode(command)) {
    if (!code.static) continue;
    for (const match of code.text.matchAll(SHELL_CALL)) {
      const literal = match[1] ?? match[2] ?? match[3];
      if (literal) found.push(literal.replace(/\\(["'\\])/g, '$1'));
    }
  }
  return found;
}
