import type { Word } from './types.ts';

export interface ParsedFlags {
  /** Canonical names of the flags present (`recursive`, `force`…); unknown flags keep their own name. */
  readonly flags: ReadonlySet<string>;
  /** Values of options that take one, by canonical name (last wins). */
  readonly values: ReadonlyMap<string, Word>;
  /** Everything that is not an option, in order. */
  readonly operands: readonly Word[];
}

export interface FlagSpec {
  /** Short and long spellings → canonical name, e.g. `{ r: 'recursive', R: 'recursive', recursive: 'recursive' }`. */
  readonly aliases?: Readonly<Record<string, string>>;
  /** Canonical names (or raw spellings) of options that take a value (`-n 5`, `-n5`, `--lines=5`). */
  readonly withValue?: readonly string[];
}

/**
 * Normalises GNU/POSIX-style options: `-rf`, `-r -f`, `-fr` and `--recursive --force` all give
 * `{recursive, force}`. Long options may be abbreviated to any unique prefix of a known alias, as
 * GNU getopt allows (`--recur`). `--` ends options. Non-static words are operands.
 */
export function parseFlags(args: readonly Word[], spec: FlagSpec = {}): ParsedFlags {
  const aliases = spec.aliases ?? {};
  const withValue = new Set(spec.withValue ?? []);
  const flags = new Set<string>();
  const values = new Map<string, Word>();
  const operands: Word[] = [];
  const longNames = Object.keys(aliases).filter((name) => name.length > 1);
  const canonical = (name: string): string => {
    if (name in aliases) return aliases[name]!;
    if (name.length > 1) {
      const candidates = new Set(longNames.filter((long) => long.startsWith(name)).map((long) => aliases[long]!));
      if (candidates.size === 1) return [...candidates][0]!;
    }
    return name;
  };
  for (let index = 0; index < args.length; index++) {
    const word = args[index]!;
    const text = word.text;
    if (!word.static || text === '-' || !text.startsWith('-')) {
      operands.push(word);
      continue;
    }
    if (text === '--') {
      operands.push(...args.slice(index + 1));
      break;
    }
    if (text.startsWith('--')) {
      const equals = text.indexOf('=');
      const name = canonical(equals === -1 ? text.slice(2) : text.slice(2, equals));
      flags.add(name);
      if (equals !== -1) values.set(name, { text: text.slice(equals + 1), static: true });
      else if (withValue.has(name) && index + 1 < args.length) values.set(name, args[++index]!);
      continue;
    }
    for (let position = 1; position < text.length; position++) {
      const name = canonical(text[position]!);
      flags.add(name);
      if (withValue.has(name) || withValue.has(text[position]!)) {
        const rest = text.slice(position + 1);
        if (rest) values.set(name, { text: rest, static: true });
        else if (index + 1 < args.length) values.set(name, args[++index]!);
        break;
      }
    }
  }
  return { flags, values, operands };
}
