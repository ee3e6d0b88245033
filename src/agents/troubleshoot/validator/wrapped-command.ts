/** The pieces every wrapper unwrapper shares: what a wrapper runs and how its own options are skipped. */
import type { CommandInput, SimpleCommand, Word } from './types.ts';

/** What a wrapper runs: further simple commands, and shell source to parse and check in turn. */
export interface Unwrapped {
  readonly commands: SimpleCommand[];
  /** `input`: where the script's own standard input comes from (`curl … | sh -c 'sh'` feeds the inner sh). */
  readonly scripts: Array<{ readonly source: Word; readonly via: string; readonly input?: CommandInput }>;
}

export const NONE: Unwrapped = { commands: [], scripts: [] };

/** Builds the command a wrapper runs from the wrapper's remaining arguments. */
export function innerCommand(
  outer: SimpleCommand,
  args: readonly Word[],
  via: string,
  extra: Partial<SimpleCommand> = {},
): SimpleCommand | undefined {
  const [first, ...rest] = args;
  if (!first) return undefined;
  const name = first.text;
  return {
    ...outer,
    name,
    program: name.slice(name.lastIndexOf('/') + 1),
    nameIsStatic: first.static && !/[*?[]/.test(name),
    args: rest,
    assignments: [],
    via: [...outer.via, via],
    segment: outer.segment,
    ...extra,
  };
}

/**
 * Skips a wrapper's own options (`withValue` options take the next word) and `positionals` fixed
 * arguments, and returns the index of the wrapped command word.
 */
export function commandIndex(args: readonly Word[], withValue: ReadonlySet<string>, positionals = 0, assignments = false): number {
  let index = 0;
  while (index < args.length) {
    const word = args[index]!;
    const text = word.text;
    if (!word.static) break;
    if (text === '--') {
      index++;
      break;
    }
    if (text.startsWith('-') && text.length > 1) {
      const name = text.startsWith('--') ? text.split('=')[0]! : text.slice(0, 2);
      const inlineValue = text.startsWith('--') ? text.includes('=') : text.length > 2;
      index += withValue.has(name) && !inlineValue ? 2 : 1;
      continue;
    }
    if (assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) {
      index++;
      continue;
    }
    break;
  }
  return index + positionals;
}

/** The command a plain prefix wrapper (`nice`, `timeout 5`, `env X=1`) runs, after its own options. */
export function wrap(outer: SimpleCommand, via: string, withValue: readonly string[], positionals = 0, assignments = false): Unwrapped {
  const index = commandIndex(outer.args, new Set(withValue), positionals, assignments);
  const inner = innerCommand(outer, outer.args.slice(index), via);
  return inner ? { commands: [inner], scripts: [] } : NONE;
}

export function joined(words: readonly Word[]): Word {
  return { text: words.map((word) => word.text).join(' '), static: words.every((word) => word.static) };
}

/** The body of a static heredoc the command reads (`python3 <<'EOF' … EOF`), else undefined. */
export function staticHeredoc(command: SimpleCommand): string | undefined {
  if (command.input !== 'heredoc') return undefined;
  const heredoc = command.redirects.findLast((redirect) => redirect.operator === '<<');
  return heredoc?.target.static ? heredoc.target.text : undefined;
}
