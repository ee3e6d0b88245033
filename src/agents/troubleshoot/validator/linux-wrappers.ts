import { awkShellCommands } from './awk-commands.ts';
import { parseFlags } from './flags.ts';
import { inlineCode } from './linux-interpreter-rules.ts';
import { unwrapParallel } from './linux-parallel.ts';
import { AWKS, SHELLS } from './linux-programs.ts';
import type { SimpleCommand, Word } from './types.ts';
import { commandIndex, innerCommand, joined, NONE, staticHeredoc, type Unwrapped, wrap } from './wrapped-command.ts';

export type { Unwrapped } from './wrapped-command.ts';

/**
 * The index of the script operand of `sh -c`, or -1 when there is no `-c`. Like bash, options may
 * follow `-c` and `--` may end them (`zsh -lc -- 'cmd'`, `bash -c -x 'cmd'`).
 */
export function shellCommandIndex(args: readonly Word[]): number {
  let command = false;
  for (let index = 0; index < args.length; index++) {
    const text = args[index]!.text;
    if (!args[index]!.static || text === '-') return command ? index : -1;
    if (text === '--') return command && index + 1 < args.length ? index + 1 : -1;
    if (!/^[-+]/.test(text)) return command ? index : -1;
    if (text.startsWith('--')) continue;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(text)) command = true;
    if (/^[-+]o$/.test(text)) index++;
  }
  return -1;
}

type Unwrapper = (command: SimpleCommand) => Unwrapped;

function splitStringLine(script: Word, args: readonly Word[]): Word {
  const optionIndex = args.findIndex((word) => word.static && /^(?:-[a-zA-Z]*S|--split-string)/.test(word.text));
  const carriesValue = /^(?:-[a-zA-Z]*S|--split-string)$/.test(args[optionIndex]?.text ?? '');
  const rest = args.slice(optionIndex + (carriesValue ? 2 : 1));
  const quoted = rest.map((word) => (word.static ? `'${word.text.replaceAll("'", `'\\''`)}'` : word.text));
  return { text: [script.text, ...quoted].join(' '), static: script.static && rest.every((word) => word.static) };
}

/** The string `xargs -I R` / `-i[R]` / `--replace[=R]` replaces with each input line (`{}` by default). */
function replaceString(options: readonly Word[]): string | undefined {
  let replace: string | undefined;
  options.forEach((word, index) => {
    const text = word.text;
    if (text === '-I') replace = options[index + 1]?.text;
    else if (/^-I./.test(text)) replace = text.slice(2);
    else if (text === '-i' || text === '--replace') replace = '{}';
    else if (/^-i./.test(text)) replace = text.slice(2);
    else if (text.startsWith('--replace=')) replace = text.slice('--replace='.length);
  });
  return replace;
}

const IONICE_VALUES = ['-c', '-n', '--class', '--classdata'];
const STRACE_VALUES = ['-o', '-e', '-s', '-u', '-E', '-a', '-b', '-O', '-S', '-P', '-I', '-X'];
const LTRACE_VALUES = ['-o', '-e', '-s', '-u', '-a', '-l', '-n'];

/**
 * The wrapper's own options, before the command it runs: `ionice -c3 shred -u FILE` has `-c3` only
 * (the `-u` is shred's, and must not turn ionice into "set the priority of user N").
 */
function ownOptions(c: SimpleCommand, withValue: readonly string[]): readonly Word[] {
  return c.args.slice(0, commandIndex(c.args, new Set(withValue)));
}

const UNWRAPPERS: Record<string, Unwrapper> = {
  sudo: (c) => {
    const valueOptions = [
      '-u',
      '-g',
      '-h',
      '-p',
      '-C',
      '-D',
      '-r',
      '-t',
      '-T',
      '-U',
      '--user',
      '--group',
      '--host',
      '--prompt',
      '--chdir',
      '--role',
      '--type',
      '--other-user',
      '--close-from',
      '--command-timeout',
    ];
    const index = commandIndex(c.args, new Set(valueOptions), 0, true);
    const { flags } = parseFlags(c.args.slice(0, index), { withValue: valueOptions.map((o) => o.replace(/^-+/, '')) });
    const rest = c.args.slice(index);
    const shell = flags.has('s') || flags.has('i') || flags.has('shell') || flags.has('login');
    if (flags.has('e') || flags.has('edit'))
      return { commands: [innerCommand(c, [{ text: 'sudoedit', static: true }, ...rest], 'sudo -e')!], scripts: [] };
    if (shell && rest.length === 0) return { commands: [innerCommand(c, [{ text: 'sh', static: true }], 'sudo -s')!], scripts: [] };
    if (shell) return { commands: [], scripts: [{ source: joined(rest), via: 'sudo -s' }] };
    const inner = innerCommand(c, rest, 'sudo');
    return inner ? { commands: [inner], scripts: [] } : NONE;
  },
  doas: (c) => {
    const index = commandIndex(c.args, new Set(['-u', '-C']));
    const { flags } = parseFlags(c.args.slice(0, index), { withValue: ['u', 'C'] });
    if (flags.has('s')) return { commands: [innerCommand(c, [{ text: 'sh', static: true }], 'doas -s')!], scripts: [] };
    const inner = innerCommand(c, c.args.slice(index), 'doas');
    return inner ? { commands: [inner], scripts: [] } : NONE;
  },
  env: (c) => {
    const split = parseFlags(c.args, {
      aliases: { S: 'split-string', 'split-string': 'split-string' },
      withValue: ['split-string', 'u', 'unset', 'C', 'chdir'],
    });
    const script = split.values.get('split-string');
    if (script) return { commands: [], scripts: [{ source: splitStringLine(script, c.args), via: 'env -S' }] };
    return wrap(c, 'env', ['-u', '--unset', '-C', '--chdir'], 0, true);
  },
  nice: (c) => wrap(c, 'nice', ['-n', '--adjustment']),
  ionice: (c) =>
    ownOptions(c, IONICE_VALUES).some((a) => a.text === '-p' || a.text === '-P' || a.text === '-u')
      ? NONE
      : wrap(c, 'ionice', IONICE_VALUES),
  nohup: (c) => wrap(c, 'nohup', []),
  setsid: (c) => wrap(c, 'setsid', []),
  time: (c) => wrap(c, 'time', ['-f', '--format', '-o', '--output']),
  timeout: (c) => wrap(c, 'timeout', ['-k', '--kill-after', '-s', '--signal'], 1),
  stdbuf: (c) => wrap(c, 'stdbuf', ['-i', '-o', '-e', '--input', '--output', '--error']),
  unbuffer: (c) => wrap(c, 'unbuffer', []),
  chroot: (c) => wrap(c, 'chroot', ['--userspec', '--groups'], 1),
  // Stryker disable next-line ArrayDeclaration: chrt has no value options; no argument is the mutant's text, so an entry changes nothing
  chrt: (c) => (ownOptions(c, []).some((a) => a.text === '-p') ? NONE : wrap(c, 'chrt', [], 1)),
  taskset: (c) => (ownOptions(c, []).some((a) => /^-\w*p/.test(a.text)) ? NONE : wrap(c, 'taskset', [], 1)),
  flock: (c) => {
    const { values } = parseFlags(c.args, { aliases: { c: 'command', command: 'command' }, withValue: ['command', 'w', 'E'] });
    const script = values.get('command');
    if (script) return { commands: [], scripts: [{ source: script, via: 'flock -c' }] };
    return wrap(c, 'flock', ['-w', '-E', '--timeout', '--conflict-exit-code'], 1);
  },
  strace: (c) => (ownOptions(c, STRACE_VALUES).some((a) => a.text === '-p') ? NONE : wrap(c, 'strace', STRACE_VALUES)),
  ltrace: (c) => (ownOptions(c, LTRACE_VALUES).some((a) => a.text === '-p') ? NONE : wrap(c, 'ltrace', LTRACE_VALUES)),
  setarch: (c) => wrap(c, 'setarch', [], 1),
  unshare: (c) => wrap(c, 'unshare', ['--propagation', '--setgroups', '--map-user', '--map-group', '-S', '-G', '--wd', '-R', '--root']),
  nsenter: (c) => wrap(c, 'nsenter', ['-t', '--target', '-S', '--setuid', '-G', '--setgid', '-w', '--wd', '-r', '--root']),
  proxychains: (c) => wrap(c, 'proxychains', ['-f']),
  proxychains4: (c) => wrap(c, 'proxychains4', ['-f']),
  // Stryker disable next-line ArrayDeclaration: torsocks has no value options; no argument is the mutant's text, so an entry changes nothing
  torsocks: (c) => wrap(c, 'torsocks', []),
  catchsegv: (c) => wrap(c, 'catchsegv', []),
  // Stryker disable next-line ArrayDeclaration: rlwrap has no value options; no argument is the mutant's text, so an entry changes nothing
  rlwrap: (c) => wrap(c, 'rlwrap', []),
  command: (c) => (ownOptions(c, []).some((a) => a.text === '-v' || a.text === '-V') ? NONE : wrap(c, 'command', [])),
  // Stryker disable next-line ArrayDeclaration: builtin has no value options; no argument is the mutant's text, so an entry changes nothing
  builtin: (c) => wrap(c, 'builtin', []),
  exec: (c) => wrap(c, 'exec', ['-a']),
  busybox: (c) => wrap(c, 'busybox', []),
  xargs: (c) => {
    const index = commandIndex(
      c.args,
      new Set([
        '-a',
        '-d',
        '-E',
        '-I',
        '-L',
        '-n',
        '-P',
        '-s',
        '--arg-file',
        '--delimiter',
        '--eof',
        '--max-lines',
        '--max-args',
        '--max-procs',
        '--max-chars',
        '--process-slot-var',
      ]),
    );
    const inner = innerCommand(c, c.args.slice(index), 'xargs', { argsFromInput: true, input: undefined });
    if (inner && SHELLS.has(inner.program)) {
      // `xargs -I{} sh -c '… {} …'` pastes each input line into the code; `sh -c '… "$1"' _` passes it as data.
      const replace = replaceString(c.args.slice(0, index));
      const script = inner.args[shellCommandIndex(inner.args)];
      if (replace !== undefined && script?.text.includes(replace))
        return {
          commands: [],
          scripts: [{ source: { text: script.text, static: false }, via: `xargs ${replace} (its input pasted into shell code)` }],
        };
      return { commands: [{ ...inner, input: 'pipe' }], scripts: [] };
    }
    return inner ? { commands: [inner], scripts: [] } : NONE;
  },
  watch: (c) => {
    const index = commandIndex(c.args, new Set(['-n', '--interval', '-d', '-q', '--equexit']));
    const rest = c.args.slice(index);
    if (rest.length === 0) return NONE;
    if (c.args.slice(0, index).some((a) => a.text === '-x' || a.text === '--exec'))
      return { commands: [innerCommand(c, rest, 'watch')!], scripts: [] };
    return { commands: [], scripts: [{ source: joined(rest), via: 'watch' }] };
  },
  eval: (c) => ({ commands: [], scripts: [{ source: joined(c.args), via: 'eval' }] }),
  parallel: (c) => unwrapParallel(c, 'parallel'),
  sem: (c) => unwrapParallel(c, 'sem'),
  // An alias runs its value as shell code the next time its name is typed.
  alias: (c) => ({
    commands: [],
    scripts: c.args
      .filter((word) => word.text.includes('='))
      .map((word) => ({ source: { text: word.text.slice(word.text.indexOf('=') + 1), static: word.static }, via: 'alias' })),
  }),
  su: (c) => {
    const { values } = parseFlags(c.args, {
      aliases: { c: 'command', command: 'command' },
      withValue: ['command', 's', 'shell', 'g', 'group', 'G', 'supp-group', 'w', 'whitelist-environment'],
    });
    const script = values.get('command');
    if (script) return { commands: [], scripts: [{ source: script, via: 'su -c' }] };
    return { commands: [innerCommand(c, [{ text: 'sh', static: true }], 'su')!], scripts: [] };
  },
  runuser: (c) => {
    const { values } = parseFlags(c.args, {
      aliases: { c: 'command', command: 'command' },
      withValue: ['command', 'u', 'user', 's', 'shell', 'g', 'group', 'G'],
    });
    const script = values.get('command');
    if (script) return { commands: [], scripts: [{ source: script, via: 'runuser -c' }] };
    return wrap(c, 'runuser', ['-u', '--user', '-s', '--shell', '-g', '--group', '-G']);
  },
  script: (c) => {
    const { values } = parseFlags(c.args, {
      aliases: { c: 'command', command: 'command' },
      withValue: [
        'command',
        'E',
        'echo',
        'I',
        'log-in',
        'O',
        'log-out',
        'B',
        'log-io',
        'T',
        'log-timing',
        'm',
        'logging-format',
        'o',
        'output-limit',
      ],
    });
    const script = values.get('command');
    return script ? { commands: [], scripts: [{ source: script, via: 'script -c' }] } : NONE;
  },
  ssh: (c) => {
    const scripts: Array<{ source: Word; via: string }> = [];
    const withValue = new Set([
      '-b',
      '-c',
      '-D',
      '-E',
      '-e',
      '-F',
      '-I',
      '-i',
      '-J',
      '-L',
      '-l',
      '-m',
      '-O',
      '-o',
      '-p',
      '-Q',
      '-R',
      '-S',
      '-W',
      '-w',
      '-B',
    ]);
    for (let index = 0; index < c.args.length; index++) {
      const match = /^(?:-o)?\s*(?:ProxyCommand|LocalCommand|RemoteCommand|KnownHostsCommand)\s*[= ]\s*(.*)$/i.exec(
        c.args[index]!.text === '-o' ? (c.args[index + 1]?.text ?? '') : c.args[index]!.text,
      );
      if (match) scripts.push({ source: { text: match[1]!, static: c.args[index]!.static }, via: 'ssh -o ProxyCommand' });
    }
    const index = commandIndex(c.args, withValue, 1);
    const remote = c.args.slice(index);
    if (remote.length > 0) scripts.push({ source: joined(remote), via: 'ssh (remote command)' });
    return { commands: [], scripts };
  },
  find: (c) => {
    const starts: Word[] = [];
    for (const arg of c.args) {
      if (arg.static && (arg.text.startsWith('-') || arg.text === '(' || arg.text === '!')) break;
      starts.push(arg);
    }
    const commands: SimpleCommand[] = [];
    for (let index = 0; index < c.args.length; index++) {
      const text = c.args[index]!.text;
      if (!['-exec', '-execdir', '-ok', '-okdir'].includes(text)) continue;
      let end = index + 1;
      while (end < c.args.length && c.args[end]!.text !== ';' && c.args[end]!.text !== '+') end++;
      const body = c.args.slice(index + 1, end);
      // `{}` stands for every path find visits, starting with the start points themselves.
      for (const start of starts.length > 0 ? starts : [{ text: '.', static: true }]) {
        const substituted = body.map((word) =>
          word.text.includes('{}') ? { text: word.text.replaceAll('{}', start.text), static: word.static && start.static } : word,
        );
        const inner = innerCommand(c, substituted, `find ${text}`, { input: undefined });
        if (inner) commands.push(inner);
      }
      index = end;
    }
    return { commands, scripts: [] };
  },
};

/** Commands that take a shell command string as an option value (GTFOBins "shell" entries). */
const EMBEDDED_COMMAND_OPTIONS: ReadonlyArray<{ program: RegExp; option: RegExp; separate?: string[] }> = [
  {
    program: /^g?tar$/,
    option: /^--(?:checkpoint-action=exec=|to-command=|use-compress-program=|info-script=|new-volume-script=|rsh-command=)(.*)$/s,
    separate: ['-I', '-F'],
  },
  { program: /^rsync$/, option: /^--rsh=(.*)$/s, separate: ['-e', '--rsh'] },
  { program: /^zip$/, option: /^--unzip-command=(.*)$/s, separate: ['-TT', '--unzip-command'] },
  {
    program: /^git$/,
    option: /^(?:--upload-pack=|--receive-pack=|--exec=|core\.(?:sshCommand|pager|editor|fsmonitor|hooksPath)=|-c\s*core\.\w+=)(.*)$/is,
    separate: ['--upload-pack', '--receive-pack', '--exec'],
  },
  { program: /^(?:scp|sftp)$/, option: /^(?:ProxyCommand|-oProxyCommand)=(.*)$/is, separate: ['-S'] },
];

/** Expands a wrapper into what it runs. Returns no commands and no scripts for ordinary commands. */
export function unwrap(command: SimpleCommand): Unwrapped {
  if (!command.nameIsStatic) return NONE;
  if (SHELLS.has(command.program)) {
    const index = shellCommandIndex(command.args);
    const source = index >= 0 ? command.args[index] : undefined;
    // The script's commands read what the shell reads: a piped-into `sh -c 'sh'` still runs its input.
    if (source)
      return { commands: [], scripts: [{ source, via: `${command.program} -c`, ...(command.input ? { input: command.input } : {}) }] };
    const heredoc = staticHeredoc(command);
    return heredoc === undefined
      ? NONE
      : { commands: [], scripts: [{ source: { text: heredoc, static: true }, via: `${command.program} <<heredoc` }] };
  }
  // awk's `system("…")` and `print | "…"` run their literal strings as shell lines: checked as such.
  if (AWKS.has(command.program)) {
    const scripts = inlineCode(command)
      .filter((code) => code.static)
      .flatMap((code) =>
        awkShellCommands(code.text).literal.map((text) => ({ source: { text, static: true }, via: `${command.program} system` })),
      );
    return scripts.length > 0 ? { commands: [], scripts } : NONE;
  }
  const unwrapper = Object.hasOwn(UNWRAPPERS, command.program) ? UNWRAPPERS[command.program] : undefined;
  if (unwrapper) return unwrapper(command);
  for (const embedded of EMBEDDED_COMMAND_OPTIONS) {
    if (!embedded.program.test(command.program)) continue;
    const scripts: Array<{ source: Word; via: string }> = [];
    command.args.forEach((arg, index) => {
      const match = embedded.option.exec(arg.text);
      if (match) scripts.push({ source: { text: match[1]!, static: arg.static }, via: `${command.program} ${arg.text.split('=')[0]}` });
      const next = command.args[index + 1];
      if (embedded.separate?.includes(arg.text) && next) scripts.push({ source: next, via: `${command.program} ${arg.text}` });
      if (command.program === 'git' && arg.text === '-c' && next) {
        const config = /^core\.(?:sshCommand|pager|editor|fsmonitor)=(.*)$/is.exec(next.text);
        if (config) scripts.push({ source: { text: config[1]!, static: next.static }, via: 'git -c' });
      }
    });
    return { commands: [], scripts };
  }
  return NONE;
}
