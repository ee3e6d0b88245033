import type { SimpleCommand, Word } from './types.ts';
import { commandIndex, innerCommand, joined, NONE, type Unwrapped } from './wrapped-command.ts';

/** GNU parallel's own options that take a value (`-j 4`, `--delay 1`). */
const PARALLEL_VALUE_OPTIONS = new Set([
  '-j',
  '-P',
  '-N',
  '-n',
  '-S',
  '-a',
  '-d',
  '-E',
  '-I',
  '-L',
  '-l',
  '-s',
  '--jobs',
  '--max-procs',
  '--sshlogin',
  '--arg-file',
  '--delimiter',
  '--delay',
  '--timeout',
  '--joblog',
  '--results',
  '--tmpdir',
  '--workdir',
  '--sshloginfile',
  '--colsep',
  '--max-args',
  '--max-replace-args',
  '--tag-string',
  '--load',
  '--memfree',
  '--retries',
  '--halt',
  '--env',
  '--basefile',
  '--return',
  '--transfer-file',
]);
const PARALLEL_SOURCES = new Set([':::', '::::', ':::+', '::::+']);
const PARALLEL_PLACEHOLDER = /\{(?:\d*[./#%]*|\/\/|\/\.)\}/g;

/**
 * GNU parallel (and `sem`): the command runs once per input. Inputs after `:::` are known and are
 * put in place of `{}` (or appended); without them the arguments come from standard input, as for
 * xargs, and are known only at run time. A command given as one quoted word is shell code.
 */
export function unwrapParallel(c: SimpleCommand, via: string): Unwrapped {
  const start = commandIndex(c.args, PARALLEL_VALUE_OPTIONS);
  let end = start;
  while (end < c.args.length && !PARALLEL_SOURCES.has(c.args[end]!.text)) end++;
  const template = c.args.slice(start, end);
  const inputs = c.args.slice(end).filter((word) => !PARALLEL_SOURCES.has(word.text));
  if (template.length === 0) return NONE;
  const single = template.length === 1 && /\s/.test(template[0]!.text);
  const fill = (value: Word | undefined): Word[] => {
    if (!value) return template;
    const holdsPlaceholder = (word: Word) => word.text.replace(PARALLEL_PLACEHOLDER, '') !== word.text;
    const used = template.some(holdsPlaceholder);
    const filled = template.map((word) => ({
      text: word.text.replace(PARALLEL_PLACEHOLDER, value.text),
      static: word.static && (value.static || !holdsPlaceholder(word)),
    }));
    return used ? filled : [...filled, value];
  };
  // Without `:::` each input line takes the place of `{}` (or is appended). parallel quotes it, so it
  // stays one word of data, except where that word is itself code: `… | parallel bash -c {}`.
  // `:::: FILE` takes the inputs from the lines of FILE: known only at run time, like standard input.
  const fromFiles = c.args.slice(end).some((word) => word.text.startsWith('::::'));
  // An input known only at run time: a word of its own in a command, a quoted variable in shell code
  // (parallel quotes it there too, so `"rm -rf {}"` is `rm -rf "$PARALLEL_INPUT"`, not `rm -rf {}`).
  const unknown: Word = single ? { text: '"$PARALLEL_INPUT"', static: true } : { text: '{}', static: false };
  const runs = inputs.length > 0 && !fromFiles ? inputs.map((input) => fill(input)) : [fill(unknown)];
  const unwrapped: Unwrapped = { commands: [], scripts: [] };
  for (const words of runs) {
    if (single) unwrapped.scripts.push({ source: joined(words), via });
    else {
      const inner = innerCommand(c, words, via, { argsFromInput: inputs.length === 0, input: undefined });
      if (inner) unwrapped.commands.push(inner);
    }
  }
  return unwrapped;
}
