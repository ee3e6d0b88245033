/** The operating systems the validator knows. */
export type TargetOs = 'linux' | 'windows';

/** What a rule protects against; shown to the person and to the model. */
export type RuleCategory =
  | 'destructive-delete'
  | 'disk-destruction'
  | 'fork-bomb'
  | 'system-power'
  | 'process-kill'
  | 'permissions'
  | 'critical-file'
  | 'remote-code'
  | 'reverse-shell'
  | 'shell-escape'
  | 'obfuscation'
  | 'defense-evasion'
  | 'firewall'
  | 'persistence'
  | 'credential-access';

/** One word of a command after quote removal. `static` is false when it depends on run time. */
export interface Word {
  /** The resolved text when static; the source text otherwise. */
  readonly text: string;
  readonly static: boolean;
  /** Set when the word is a process substitution `<(…)` / `>(…)`. */
  readonly processSubstitution?: boolean;
}

export interface Redirect {
  /** `>`, `>>`, `<`, `>&`, `&>`, `&>>`, `<>`, `>|`, `<<`, `<<<`, `<&`. */
  readonly operator: string;
  readonly target: Word;
}

/** How a simple command gets its standard input, when not from the terminal. */
export type CommandInput = 'pipe' | 'file' | 'heredoc' | 'herestring';

/** One simple command, normalised: the unit every rule looks at. */
export interface SimpleCommand {
  /** The command word as resolved (`/usr/bin/rm`, `Remove-Item`); '' for a bare assignment. */
  readonly name: string;
  /** What to match on: base name, for Windows lower-cased with aliases and extensions resolved. */
  readonly program: string;
  /** False when the command word is not known before run time (expansion, substitution, glob…). */
  readonly nameIsStatic: boolean;
  readonly args: readonly Word[];
  readonly redirects: readonly Redirect[];
  readonly input?: CommandInput;
  /** Leading `NAME=value` assignments (also the arguments of `export`/`declare`). */
  readonly assignments: readonly { readonly name: string; readonly value: Word }[];
  /** Arguments arrive from standard input at run time (the command was run by `xargs`). */
  readonly argsFromInput?: boolean;
  /** The command runs the shell function it is defined in, in a pipeline or in the background. */
  readonly recursiveSpawn?: boolean;
  /** Working directory set by an earlier `cd` on the same line, when known (`/`, `~`, `/etc`). */
  readonly cwd?: string;
  /** Variables set from `$(mktemp …)` earlier on the same line: deleting them is harmless. */
  readonly temporaryVariables?: ReadonlySet<string>;
  /** Wrappers it was found inside, outermost first (`sudo`, `find -exec`, `sh -c`…). */
  readonly via: readonly string[];
  /** The source text of this command, for the verdict. */
  readonly segment: string;
}

/** One entry of a blocklist: a named check over one normalised simple command. */
export interface CommandRule {
  readonly id: string;
  readonly category: RuleCategory;
  readonly description: string;
  /** Returns why the command is blocked, or undefined when this rule does not apply. */
  match(command: SimpleCommand): string | undefined;
}

export interface Verdict {
  readonly verdict: 'block' | 'allow';
  /** The rule that blocked, or null when allowed. */
  readonly rule: string | null;
  readonly category: RuleCategory | null;
  /** The part of the command line that was blocked (the whole line when allowed). */
  readonly segment: string;
  readonly reason: string;
}
