import { awkShellCommands } from '../validator/awk-commands.ts';
import { parseFlags } from '../validator/flags.ts';
import type { SimpleCommand, Word } from '../validator/index.ts';
import { inlineCode } from '../validator/linux-interpreter-rules.ts';
import { AWKS } from '../validator/linux-programs.ts';
import { changes, changesAny, type Effect, effect, worstEffect } from './effect.ts';

type Detector = (command: SimpleCommand) => Effect | undefined;

const operandsOf = (c: SimpleCommand, withValue: readonly string[] = [], aliases: Record<string, string> = {}) =>
  parseFlags(c.args, { withValue, aliases });

function isRecursive(c: SimpleCommand): boolean {
  const { flags } = parseFlags(c.args, { aliases: { r: 'recursive', R: 'recursive', recursive: 'recursive' } });
  return flags.has('recursive');
}

function deletes(c: SimpleCommand): Effect {
  const { operands } = operandsOf(c);
  if (c.argsFromInput) return effect(isRecursive(c) ? 'critical' : 'high', 'deletes the files named on its input');
  const recursive = isRecursive(c);
  const verb = recursive ? 'deletes recursively' : 'deletes';
  return changesAny(verb, operands, recursive ? 'critical' : 'high') ?? effect('high', 'deletes files');
}

/** The last operand of cp/mv/install/ln: where it writes. */
function destination(c: SimpleCommand, withValue: readonly string[]): Effect | undefined {
  const { operands, values } = operandsOf(c, withValue, { t: 'target-directory', 'target-directory': 'target-directory' });
  const target = values.get('target-directory') ?? operands[operands.length - 1];
  return target ? changes('writes to', target) : effect('high', 'writes files');
}

const SED_WRITES = /(?:^|[;\n}])\s*[\d$,/!]*\s*[we]\s|\/[gpiImM\d]*[we](?:\s|$)/;

/** Programs whose options or operands make them write, delete or edit files. */
export const FILE_EFFECTS: Readonly<Record<string, Detector>> = {
  sort: (c) => {
    const { values } = operandsOf(
      c,
      [
        'output',
        'k',
        't',
        'S',
        'T',
        'key',
        'field-separator',
        'buffer-size',
        'temporary-directory',
        'parallel',
        'batch-size',
        'files0-from',
        'random-source',
      ],
      { o: 'output', output: 'output' },
    );
    const output = values.get('output');
    if (c.args.some((a) => a.text.startsWith('--compress-program'))) return effect('high', 'runs a compression program');
    return output ? changes('writes to', output) : undefined;
  },
  uniq: (c) => {
    const { operands } = operandsOf(c, ['f', 's', 'w', 'skip-fields', 'skip-chars', 'check-chars']);
    return operands[1] ? changes('writes to', operands[1]) : undefined;
  },
  tee: (c) => changesAny('writes to', operandsOf(c, ['output-error']).operands),
  dd: (c) => {
    const output = c.args.find((a) => a.text.startsWith('of='));
    if (!output) return undefined;
    const target: Word = { text: output.text.slice(3), static: output.static };
    return changes('writes to', target);
  },
  sed: (c) => {
    const inPlace = c.args.some((a) => a.static && (/^-[a-zA-Z]*i/.test(a.text) || a.text.startsWith('--in-place')));
    const { operands, values } = operandsOf(c, ['l', 'expression', 'file', 'line-length'], {
      e: 'expression',
      expression: 'expression',
      f: 'file',
      file: 'file',
    });
    const script = values.get('expression') ?? (values.has('file') ? undefined : operands[0]);
    const files = values.has('expression') || values.has('file') ? operands : operands.slice(1);
    if (inPlace) return changesAny('edits in place', files) ?? effect('high', 'edits files in place');
    if (values.has('file')) return effect('medium', `runs the sed script ${values.get('file')!.text}`);
    if (script && (!script.static || SED_WRITES.test(script.text))) return effect('high', 'writes files or runs commands from its script');
    return undefined;
  },
  truncate: (c) =>
    changesAny('truncates', operandsOf(c, ['size', 'reference'], { s: 'size', size: 'size', r: 'reference' }).operands) ??
    effect('high', 'truncates files'),
  install: (c) =>
    c.args.some((a) => a.text === '-d' || a.text === '--directory')
      ? effect('medium', 'creates directories')
      : destination(c, ['m', 'mode', 'o', 'owner', 'g', 'group', 'S', 'suffix', 'target-directory']),
  cp: (c) => destination(c, ['S', 'suffix', 'target-directory']),
  mv: (c) => {
    const withValue = ['S', 'suffix', 'target-directory'];
    const { operands, values } = operandsOf(c, withValue, { t: 'target-directory', 'target-directory': 'target-directory' });
    // With -t DIR every operand is a source; otherwise the last one is the destination.
    const sources = values.has('target-directory') ? operands : operands.slice(0, -1);
    return worstEffect([destination(c, withValue), changesAny('moves away', sources)]);
  },
  ln: (c) => destination(c, ['S', 'suffix', 'target-directory']),
  rsync: (c) => {
    const { operands } = operandsOf(c, ['e', 'rsh', 'f', 'filter', 'exclude', 'include', 'B', 'block-size', 'T', 'temp-dir']);
    if (c.args.some((a) => a.text === '-n' || a.text === '--dry-run' || (/^-[a-zA-Z]+$/.test(a.text) && a.text.includes('n'))))
      return undefined;
    const target = operands[operands.length - 1];
    const removes = c.args.some((a) => a.text.startsWith('--delete') || a.text === '--remove-source-files');
    const verb = removes ? 'deletes and writes in' : 'writes to';
    return target ? changes(verb, target, removes ? 'critical' : 'high') : effect('high', 'copies files');
  },
  find: (c) => {
    const starts = c.args.filter((_, index) => c.args.slice(0, index + 1).every((a) => !a.static || !/^[-(!]/.test(a.text)));
    const written = c.args.findIndex((a) => ['-fprint', '-fprint0', '-fprintf', '-fls'].includes(a.text));
    if (written >= 0 && c.args[written + 1]) return changes('writes to', c.args[written + 1]!);
    if (!c.args.some((a) => a.text === '-delete')) return undefined;
    return (
      changesAny('deletes what it finds under', starts.length > 0 ? starts : [{ text: '.', static: true }]) ??
      effect('high', 'deletes what it finds')
    );
  },
  perl: (c) => {
    const inPlace = c.args.some((a) => a.static && /^-[a-zA-Z]*i/.test(a.text));
    if (!inPlace) return undefined;
    const files = c.args.filter((a, index) => !a.text.startsWith('-') && !/^-[a-zA-Z]*[eE]$/.test(c.args[index - 1]?.text ?? ''));
    return changesAny('edits in place', files) ?? effect('high', 'edits files in place');
  },
  rm: deletes,
  unlink: deletes,
  rmdir: deletes,
  shred: (c) =>
    changesAny('destroys', operandsOf(c, ['n', 's', 'iterations', 'size', 'random-source']).operands, 'critical') ??
    effect('critical', 'destroys files'),
  srm: (c) => changesAny('destroys', operandsOf(c).operands, 'critical') ?? effect('critical', 'destroys files'),
  mkdir: (c) => changesAny('creates', operandsOf(c, ['m', 'mode']).operands, 'medium'),
  touch: (c) => changesAny('creates or touches', operandsOf(c, ['d', 'date', 'r', 'reference', 't']).operands, 'medium'),
  mkfifo: (c) => changesAny('creates', operandsOf(c, ['m', 'mode']).operands, 'medium'),
  chmod: (c) =>
    changesAny('changes the permissions of', operandsOf(c, ['reference']).operands.slice(1)) ?? effect('high', 'changes permissions'),
  chown: (c) =>
    changesAny('changes the owner of', operandsOf(c, ['reference', 'from']).operands.slice(1)) ?? effect('high', 'changes owners'),
  chgrp: (c) => changesAny('changes the group of', operandsOf(c, ['reference']).operands.slice(1)) ?? effect('high', 'changes groups'),
  chattr: (c) =>
    changesAny(
      'changes the attributes of',
      operandsOf(c).operands.filter((w) => !/^[-+=]/.test(w.text)),
    ) ?? effect('high', 'changes file attributes'),
  setfacl: () => effect('high', 'changes access control lists'),
  chcon: () => effect('high', 'changes security contexts'),
  tar: (c) => {
    // Stryker disable next-line StringLiteral: any stand-in for a missing first word that is not a bundled mode gives the same empty mode
    const first = c.args[0]?.text ?? '';
    const mode = /^-?[a-zA-Z]+$/.test(first) && !first.startsWith('--') ? first : '';
    // A bundle of short options may stand anywhere (`tar -v -cf out.tar dir`, `tar --zstd -cf …`), not only first.
    const has = (short: string, long: string) =>
      mode.includes(short) ||
      c.args.some((a) => a.text === `--${long}` || (a.static && /^-[a-zA-Z]+$/.test(a.text) && a.text.includes(short)));
    const { values } = operandsOf(c, ['file', 'directory'], { f: 'file', file: 'file', C: 'directory', directory: 'directory' });
    if (has('x', 'extract') || has('x', 'get'))
      return changes('extracts files into', values.get('directory') ?? { text: '.', static: true });
    // Old-style bundled options (`tar czf out.tgz dir`): the archive is the word after them.
    const archive = values.get('file') ?? (mode.includes('f') && !first.startsWith('-') ? c.args[1] : undefined);
    if (has('c', 'create') || has('r', 'append') || has('u', 'update') || c.args.some((a) => a.text === '--delete'))
      return archive ? changes('writes the archive', archive) : undefined;
    return undefined;
  },
  wget: (c) => {
    if (c.args.some((a) => a.text === '--spider')) return undefined;
    const { values } = operandsOf(c, ['output-document', 'o', 'output-file', 'P', 'directory-prefix'], {
      O: 'output-document',
      'output-document': 'output-document',
    });
    const output = values.get('output-document');
    if (output?.text === '-') return undefined;
    return output ? changes('downloads into', output) : effect('high', 'downloads files into the working directory');
  },
  curl: (c) => {
    const { values, flags } = operandsOf(
      c,
      // Options with an alias below are listed once, by the name the alias gives them.
      ['output', 'request', 'data', 'H', 'header', 'u', 'user', 'A', 'w', 'm', 'e', 'x', 'b', 'cookie-jar', 'K'],
      {
        o: 'output',
        output: 'output',
        X: 'request',
        request: 'request',
        d: 'data',
        F: 'data',
        form: 'data',
        T: 'data',
        'upload-file': 'data',
        'data-raw': 'data',
        'data-binary': 'data',
        'data-urlencode': 'data',
        c: 'cookie-jar',
        'cookie-jar': 'cookie-jar',
      },
    );
    const output = values.get('output') ?? values.get('cookie-jar');
    const written = output && output.text !== '-' ? changes('downloads into', output) : undefined;
    const method = values.get('request')?.text.toUpperCase();
    const sends = flags.has('data') || (method !== undefined && method !== 'GET' && method !== 'HEAD');
    return worstEffect([
      written,
      sends ? effect('high', 'sends data that can change a remote service') : undefined,
      flags.has('O') || flags.has('remote-name') ? effect('high', 'downloads a file into the working directory') : undefined,
    ]);
  },
};

/** awk and perl/python one-liners: text filters unless their code writes, runs commands or deletes. */
const CODE_CHANGES =
  /\b(?:fork|system|exec\w*|spawn\w*|popen|subprocess|child_process|unlink\w*|rmtree|remove|rename\w*|truncate|chmod|chown|kill|symlink|mkdir\w*|writeFile\w*|appendFile\w*|write|open|File|FileUtils|shutil|fs|os|Dir|IO|qx)\b|`|>\s*["$\w/]/;

/** Languages whose one-liners are judged by their code; editors and debuggers (vim -c, gdb -ex) can always start a shell. */
const SCRIPT_LANGUAGES = /^(?:python|pypy|perl|ruby|node|nodejs|deno|bun|php|lua|luajit|Rscript)/;

export function codeEffect(c: SimpleCommand): Effect | undefined {
  const codes = inlineCode(c);
  if (AWKS.has(c.program)) {
    if (c.args.some((a, i) => a.text === '-i' && c.args[i + 1]?.text === 'inplace') || c.args.some((a) => a.text === '-iinplace'))
      return effect('high', 'edits files in place (gawk -i inplace)');
    for (const code of codes) {
      if (!code.static) return effect('high', 'runs awk code known only at run time');
      if (awkShellCommands(code.text).dynamic) return effect('high', 'runs commands computed by its awk code');
      if (/\bprintf?\b[^;}]*?>>?\s*["$\w/(]/.test(code.text)) return effect('high', 'writes files from its awk code');
    }
    if (c.args.some((a) => a.text === '-f' || a.text.startsWith('--file'))) return effect('medium', 'runs an awk script file');
    return undefined;
  }
  if (codes.length === 0) return undefined;
  if (!SCRIPT_LANGUAGES.test(c.program)) return effect('high', `runs ${c.program} commands, which can start a shell`);
  for (const code of codes) {
    if (!code.static) return effect('high', `runs ${c.program} code known only at run time`);
    if (CODE_CHANGES.test(code.text)) return effect('high', `runs ${c.program} code that can write, delete or run programs`);
  }
  return effect('medium', `runs ${c.program} code`);
}
