import type { Parser } from 'web-tree-sitter';
import { collectSimpleCommands } from './bash-commands.ts';
import { loadBashParser } from './bash-parser.ts';
import { closeOpenHeredocs, shieldLineStartBackslashes } from './bash-source-fixes.ts';
import { DEFAULT_LINUX_BLOCKLIST } from './linux-blocklist.ts';
import { changeDirectory } from './linux-paths.ts';
import { unwrap } from './linux-wrappers.ts';
import { STRICT_LINUX_BLOCKLIST, STRICT_WINDOWS_BLOCKLIST } from './strict-blocklist.ts';
import type { CommandInput, CommandRule, RuleCategory, SimpleCommand, TargetOs, Verdict } from './types.ts';
import { DEFAULT_WINDOWS_BLOCKLIST } from './windows-blocklist.ts';
import { scanWindowsCommandLine, type WindowsScan } from './windows-commands.ts';

/** Checks the validator makes itself, beside the blocklists' rules. */
export const STRUCTURAL_RULES: Readonly<Record<string, { category: RuleCategory; description: string }>> = {
  unparseable: { category: 'obfuscation', description: 'The shell parser found a syntax error; what would run cannot be known.' },
  'dynamic-script': {
    category: 'obfuscation',
    description: 'Code for sh -c, eval, su -c, ssh or -EncodedCommand is computed at run time.',
  },
  'nesting-too-deep': { category: 'obfuscation', description: 'More than 8 levels of wrappers (sh -c inside eval inside sudo …).' },
  'too-long': { category: 'obfuscation', description: 'Longer than 64 KiB or contains NUL bytes.' },
  'undecodable-encoded-command': {
    category: 'obfuscation',
    description: 'A PowerShell -EncodedCommand value that is not UTF-16LE base64.',
  },
  'cmd-variable-obfuscation': {
    category: 'obfuscation',
    description: 'cmd.exe substring or replacement expansion (%VAR:~0,1%, %VAR:a=b%, !VAR:~1!) builds the command at run time.',
  },
};

/** `core` blocks what destroys the host; `strict` adds data loss and service stops (logs, DROP DATABASE, prune…). */
export type ValidatorTier = 'core' | 'strict';

export interface CommandValidatorOptions {
  /** Rules for Linux; default `DEFAULT_LINUX_BLOCKLIST`. */
  readonly linuxBlocklist?: readonly CommandRule[];
  /** Rules for Windows; default `DEFAULT_WINDOWS_BLOCKLIST`. */
  readonly windowsBlocklist?: readonly CommandRule[];
  /** Tier used when `validate` is not given one. Default `core`. */
  readonly tier?: ValidatorTier;
}

export interface ValidateOptions {
  /** `strict` adds `STRICT_LINUX_BLOCKLIST` / `STRICT_WINDOWS_BLOCKLIST`, for a host or policy that asks for it. */
  readonly tier?: ValidatorTier;
}

/** Longest command line checked, in characters (64 KiB). Longer ones are blocked. */
export const MAX_COMMAND_LENGTH = 65_536;
/** Wrapper nesting beyond this many levels is blocked. */
export const MAX_NESTING = 8;

const IFS = /\$(?:IFS\b|\{IFS[^}]*\})/;
const IFS_ALL = new RegExp(IFS.source, 'g');

class Blocked {
  readonly verdict: Verdict;
  constructor(verdict: Verdict) {
    this.verdict = verdict;
  }
}

/**
 * The floor no approval can override (AR-01, AR-06). Linux commands are parsed with tree-sitter-bash;
 * every simple command — in lists, pipelines, subshells, substitutions, heredocs, functions, and
 * inside wrappers (`sudo`, `xargs`, `find -exec`, `sh -c`, `eval`, …) — is checked against the
 * blocklist. Windows lines are split into cmd.exe and PowerShell segments with a careful tokenizer.
 * Create it with `createCommandValidator()`; `validate` is synchronous after that.
 */
export class CommandValidator {
  readonly #parser: Parser;
  readonly linuxBlocklist: readonly CommandRule[];
  readonly windowsBlocklist: readonly CommandRule[];
  readonly tier: ValidatorTier;
  readonly #strictLinux: readonly CommandRule[];
  readonly #strictWindows: readonly CommandRule[];
  /** The rules of the call in progress (`validate` is synchronous, so one call runs at a time). */
  #linuxRules: readonly CommandRule[];
  #windowsRules: readonly CommandRule[];

  constructor(parser: Parser, options: CommandValidatorOptions = {}) {
    this.#parser = parser;
    this.linuxBlocklist = options.linuxBlocklist ?? DEFAULT_LINUX_BLOCKLIST;
    this.windowsBlocklist = options.windowsBlocklist ?? DEFAULT_WINDOWS_BLOCKLIST;
    this.tier = options.tier ?? 'core';
    this.#strictLinux = [...this.linuxBlocklist, ...STRICT_LINUX_BLOCKLIST];
    this.#strictWindows = [...this.windowsBlocklist, ...STRICT_WINDOWS_BLOCKLIST];
    this.#linuxRules = this.linuxBlocklist;
    this.#windowsRules = this.windowsBlocklist;
  }

  /** Returns the verdict for one command line on the given OS. Never throws for any input string. */
  validate(command: string, os: TargetOs, options: ValidateOptions = {}): Verdict {
    if (command.length > MAX_COMMAND_LENGTH || command.includes('\0'))
      return structural('too-long', command.slice(0, 200), 'the command is too long or contains NUL bytes');
    const strict = (options.tier ?? this.tier) === 'strict';
    this.#linuxRules = strict ? this.#strictLinux : this.linuxBlocklist;
    this.#windowsRules = strict ? this.#strictWindows : this.windowsBlocklist;
    try {
      if (os === 'windows') this.#checkWindows(command, 0);
      else this.#checkBash(command, 0, []);
    } catch (error) {
      if (error instanceof Blocked) return error.verdict;
      throw error;
    }
    return {
      verdict: 'allow',
      rule: null,
      category: null,
      segment: command,
      reason: 'No blocklist rule matched; the command still needs approval before it runs.',
    };
  }

  #checkBash(line: string, depth: number, via: readonly string[], input?: CommandInput): void {
    const source = shieldLineStartBackslashes(line);
    if (depth > MAX_NESTING) throw new Blocked(structural('nesting-too-deep', source, `more than ${MAX_NESTING} nested wrappers`));
    // `$IFS` between words splits them at run time (`rm -rf$IFS/etc`): check the line as split too.
    if (IFS.test(source)) this.#checkBash(source.replace(IFS_ALL, ' '), depth + 1, [...via, '$IFS split'], input);
    const tree = this.#parser.parse(source);
    if (!tree) throw new Blocked(structural('unparseable', source, 'the shell parser gave up'));
    try {
      if (tree.rootNode.hasError) {
        // bash reads a heredoc with no closing line up to the end of the input (with a warning), so
        // `python3 <<EOF` is that line with an empty body, not an unknown one.
        const closed = closeOpenHeredocs(source);
        // Stryker disable next-line LogicalOperator,OptionalChaining: with no heredoc the closed line is the line itself; a closed line that still fails is refused one level down the same way; parse always returns a tree
        if (closed !== source && !this.#parser.parse(closed)?.rootNode.hasError) {
          this.#checkBash(closed, depth + 1, via, input);
          return;
        }
        throw new Blocked(structural('unparseable', source, 'the command has a shell syntax error, so what would run cannot be known'));
      }
      // `cd` earlier on the line makes relative paths known (`cd / && rm -rf *`).
      let cwd: string | undefined;
      const temporaryVariables = new Set<string>();
      for (const command of collectSimpleCommands(tree.rootNode, input)) {
        this.#checkLinuxCommand({ ...command, cwd, temporaryVariables, via: [...via, ...command.via] }, depth);
        for (const assignment of command.assignments)
          if (/^(?:\$\(\s*mktemp\b[^()`$;|&]*\)|`\s*mktemp\b[^`$;|&]*`)$/.test(assignment.value.text.replace(/"/g, '')))
            temporaryVariables.add(assignment.name);
          else temporaryVariables.delete(assignment.name);
        if (command.program === 'cd' || command.program === 'pushd') {
          const target = command.args.find((a) => !a.text.startsWith('-') || a.text === '-');
          cwd = target && !target.static ? undefined : changeDirectory(cwd, target?.text);
        }
      }
    } finally {
      tree.delete();
    }
  }

  #checkLinuxCommand(command: SimpleCommand, depth: number): void {
    if (depth > MAX_NESTING) throw new Blocked(structural('nesting-too-deep', command.segment, `more than ${MAX_NESTING} nested wrappers`));
    applyRules(this.#linuxRules, command);
    const inner = unwrap(command);
    for (const child of inner.commands) this.#checkLinuxCommand(child, depth + 1);
    for (const script of inner.scripts) {
      if (!script.source.static)
        throw new Blocked(
          structural('dynamic-script', command.segment, `${script.via} runs code that is only known at run time: ${script.source.text}`),
        );
      this.#checkBash(script.source.text, depth + 1, [...command.via, script.via], script.input);
    }
  }

  #checkWindows(line: string, depth: number): void {
    if (depth > MAX_NESTING) throw new Blocked(structural('nesting-too-deep', line, `more than ${MAX_NESTING} nested wrappers`));
    const scan: WindowsScan = scanWindowsCommandLine(line);
    if (scan.blocked) throw new Blocked(structural(scan.blocked.rule, scan.blocked.segment, scan.blocked.reason));
    for (const command of scan.commands) applyRules(this.#windowsRules, command);
    for (const nested of scan.nested) {
      if (!nested.source.static)
        throw new Blocked(structural('dynamic-script', nested.segment, `${nested.via} runs code that is only known at run time`));
      this.#checkWindows(nested.source.text, depth + 1);
    }
  }
}

function applyRules(rules: readonly CommandRule[], command: SimpleCommand): void {
  for (const rule of rules) {
    const reason = rule.match(command);
    if (reason !== undefined) {
      const via = command.via.length > 0 ? ` (via ${command.via.join(' → ')})` : '';
      throw new Blocked({ verdict: 'block', rule: rule.id, category: rule.category, segment: command.segment, reason: `${reason}${via}` });
    }
  }
}

function structural(rule: string, segment: string, reason: string): Verdict {
  return { verdict: 'block', rule, category: STRUCTURAL_RULES[rule]!.category, segment, reason };
}

/** Loads the shell grammar (once per process) and returns a validator whose `validate` is synchronous. */
export async function createCommandValidator(options: CommandValidatorOptions = {}): Promise<CommandValidator> {
  return new CommandValidator(await loadBashParser(), options);
}
