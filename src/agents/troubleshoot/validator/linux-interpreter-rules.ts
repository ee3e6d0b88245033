import { awkShellCommands } from './awk-commands.ts';
import { parseFlags } from './flags.ts';
import { isBlockDevice, isSystemFile, mayExpandToProtectedPath } from './linux-paths.ts';
import {
  AWKS,
  BACKTICK_EXEC,
  BACKTICK_LANGUAGES,
  CODE_SPAWNS_PROCESS,
  EDITOR_COMMAND_FLAGS,
  EDITOR_ESCAPE,
  INLINE_CODE_FLAGS,
  INTERPRETERS,
  programFamily,
} from './linux-programs.ts';
import type { CommandRule, SimpleCommand, Word } from './types.ts';
import { staticHeredoc } from './wrapped-command.ts';

function is(command: SimpleCommand, ...programs: string[]): boolean {
  return programs.includes(command.program);
}

/** Inline code given to an interpreter (`python -c CODE`), awk program, or editor commands. */
export function inlineCode(command: SimpleCommand): Word[] {
  const family = programFamily(command.program);
  const codes: Word[] = [];
  const flags = INLINE_CODE_FLAGS[family] ?? EDITOR_COMMAND_FLAGS[family];
  if (flags) {
    command.args.forEach((arg, index) => {
      const next = command.args[index + 1];
      if (flags.includes(arg.text) && next) codes.push(next);
      // Clusters ending in the code flag take the next word: `perl -lne`, `python -vc`, `ruby -we`, `node -pe`.
      else if (next && arg.static && clusterEndsInCodeFlag(arg.text, flags)) codes.push(next);
      else if (
        arg.static &&
        flags.some(
          (flag) => flag.length === 2 && flag !== '+' && arg.text.startsWith(flag) && arg.text.length > 2 && !arg.text.startsWith('--'),
        )
      ) {
        codes.push({ text: arg.text.slice(2), static: true });
      } else if (flags.includes('+') && arg.text.startsWith('+') && arg.text.length > 1)
        codes.push({ text: arg.text.slice(1), static: arg.static });
    });
  }
  const heredoc = INTERPRETERS.has(family) ? staticHeredoc(command) : undefined;
  if (heredoc !== undefined) codes.push({ text: heredoc, static: true });
  if (AWKS.has(command.program)) {
    const { operands, values } = parseFlags(command.args, { withValue: ['F', 'v', 'f', 'field-separator', 'assign', 'file'] });
    if (!values.has('f') && !values.has('file') && operands[0]) codes.push(operands[0]);
  }
  return codes;
}

function clusterEndsInCodeFlag(text: string, flags: readonly string[]): boolean {
  if (!/^-[a-zA-Z]{2,}$/.test(text)) return false;
  return flags.some((flag) => /^-[a-zA-Z]$/.test(flag) && text.endsWith(flag[1]!));
}

/** Library calls that delete files or directory trees in Python, Ruby, Node, Perl and PHP. */
const CODE_DELETES =
  /\b(?:shutil\s*\.\s*rmtree|os\s*\.\s*(?:remove|unlink|rmdir|removedirs)|\.unlink\s*\(|\.rmdir\s*\(|FileUtils\s*\.\s*(?:rm\w*|remove\w*)|File\s*\.\s*(?:delete|unlink)|Dir\s*\.\s*(?:delete|rmdir|unlink)|fs\s*\.\s*(?:rm|rmdir|unlink)(?:Sync)?|Deno\s*\.\s*remove(?:Sync)?|(?:rmSync|rmdirSync|unlinkSync)|rmtree|remove_tree|unlink|rmdir)\b/;

/** String literals in inline code: '…', "…" and `…`. */
function stringLiterals(code: string): string[] {
  return [...code.matchAll(/'([^']*)'|"([^"]*)"|`([^`]*)`/g)].map((match) => match[1] ?? match[2] ?? match[3] ?? '');
}

export function hasScriptOperand(command: SimpleCommand): boolean {
  const family = programFamily(command.program);
  if ((INLINE_CODE_FLAGS[family] ?? []).some((flag) => command.args.some((arg) => arg.text === flag))) return true;
  const flags = INLINE_CODE_FLAGS[family] ?? [];
  if (command.args.some((arg) => arg.static && clusterEndsInCodeFlag(arg.text, flags))) return true;
  if (command.args.some((arg) => arg.text === '-m')) return true;
  return command.args.some((arg) => !arg.text.startsWith('-') || !arg.static);
}

/** Rules over inline interpreter, awk and editor code (`python -c`, `perl -e`, heredocs fed to an interpreter). */
export const INTERPRETER_RULES: readonly CommandRule[] = [
  {
    id: 'interpreter-fork-bomb',
    category: 'fork-bomb',
    description: 'Inline interpreter code that forks in a loop (perl -e "fork while fork").',
    match: (c) => {
      const code = inlineCode(c).find((w) => /\bfork\b[^;]*\b(?:while|for|loop)\b|\b(?:while|for|loop)\b[^;]*\bfork\b/.test(w.text));
      return code ? `${c.program} code forks in a loop: ${code.text}` : undefined;
    },
  },
  {
    id: 'interpreter-runs-commands',
    category: 'shell-escape',
    description:
      'Inline interpreter, awk or editor code that runs shell commands or opens sockets (GTFOBins shell and reverse-shell entries).',
    match: (c) => {
      const family = programFamily(c.program);
      for (const code of inlineCode(c)) {
        if (!code.static) return `${c.program} runs code that is computed at run time`;
        if (
          AWKS.has(c.program)
            ? awkShellCommands(code.text).dynamic || /\/inet\//.test(code.text)
            : EDITOR_COMMAND_FLAGS[family]
              ? EDITOR_ESCAPE.test(code.text)
              : CODE_SPAWNS_PROCESS.test(code.text)
        ) {
          return `${c.program} code runs other programs or opens a socket: ${code.text}`;
        }
        if (BACKTICK_LANGUAGES.has(family) && BACKTICK_EXEC.test(code.text)) return `${c.program} code runs a shell command in backticks`;
      }
      if (is(c, 'nmap') && c.args.some((a) => a.text === '--interactive')) return 'nmap --interactive can start a shell';
      return undefined;
    },
  },
  {
    id: 'interpreter-deletes-system-path',
    category: 'destructive-delete',
    description:
      'Inline interpreter code that deletes files (shutil.rmtree, os.remove, FileUtils.rm_rf, fs.rmSync, Deno.remove, unlink, rmtree) and names a system path, a critical file or a device.',
    match: (c) => {
      for (const code of inlineCode(c)) {
        if (!CODE_DELETES.test(code.text)) continue;
        const target = stringLiterals(code.text).find(
          (literal) => mayExpandToProtectedPath(literal) || isSystemFile(literal) || isBlockDevice(literal),
        );
        if (target !== undefined) return `${c.program} code deletes ${target}`;
      }
      return undefined;
    },
  },
];
