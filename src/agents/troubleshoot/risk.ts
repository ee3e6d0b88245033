import type { Parser } from 'web-tree-sitter';
import type { RiskAssessment } from '../../core/tools/index.ts';
import { type Effect, effect, RANK } from './risk/effect.ts';
import { embeddedShellCommands } from './risk/embedded-commands.ts';
import { scoreSimpleCommand } from './risk/simple-command-risk.ts';
import { collectSimpleCommands } from './validator/bash-commands.ts';
import { loadBashParser } from './validator/bash-parser.ts';
import { closeOpenHeredocs, shieldLineStartBackslashes } from './validator/bash-source-fixes.ts';
import { MAX_NESTING, type SimpleCommand, type TargetOs } from './validator/index.ts';
import { unwrap } from './validator/linux-wrappers.ts';
import { scanWindowsCommandLine } from './validator/windows-commands.ts';

interface Scored extends Effect {
  readonly command: string;
}

const MAX_SHOWN = 120;

/** The Windows tokenizer leaves `>` and its target among the arguments: make them redirections. */
function withWindowsRedirects(command: SimpleCommand): SimpleCommand {
  const redirects = command.args.flatMap((arg, index) => {
    const next = command.args[index + 1];
    const glued = /^\d?(>>?)(.+)$/.exec(arg.text);
    if (glued) return [{ operator: glued[1]!, target: { text: glued[2]!, static: arg.static } }];
    return /^\d?>>?$/.test(arg.text) && next ? [{ operator: arg.text.replace(/^\d/, ''), target: next }] : [];
  });
  return redirects.length > 0 ? { ...command, redirects: [...command.redirects, ...redirects] } : command;
}

function shown(c: SimpleCommand): string {
  const text = [c.name === '' ? c.segment : c.program, ...c.args.map((a) => a.text)].join(' ');
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}

/**
 * Troubleshoot command risk from what the command does, with the validator's own parser: every
 * simple command in lists, pipelines, substitutions and functions, and every command a wrapper
 * runs (`timeout`, `sudo`, `xargs`, `sh -c`, `find -exec`, `watch`…), is scored by its program,
 * options, redirections and target paths; the worst decides. It scores; it never allows or blocks.
 */
export class CommandRiskAssessor {
  readonly #parser: Parser;

  constructor(parser: Parser) {
    this.#parser = parser;
  }

  assess(command: string, os: TargetOs = 'linux'): RiskAssessment {
    const scored: Scored[] = [];
    if (os === 'windows') this.#windows(command, 0, scored);
    else this.#bash(command, 0, [], scored);
    if (scored.length === 0) return { level: 'medium', reason: 'empty command' };
    const worst = scored.reduce((a, b) => (RANK[b.level] > RANK[a.level] ? b : a));
    if (worst.level === 'low') {
      const programs = [
        ...new Set(scored.filter((s) => s.does !== 'sets variables' && s.does !== 'runs the command it wraps').map((s) => s.command)),
      ];
      return { level: 'low', reason: `read-only diagnostics: ${programs.join(', ') || 'variable assignments'}` };
    }
    return { level: worst.level, reason: worst.does };
  }

  #bash(line: string, depth: number, via: readonly string[], out: Scored[]): void {
    const source = shieldLineStartBackslashes(line);
    if (depth > MAX_NESTING) return void out.push({ ...effect('high', `\`${source}\` nests wrappers too deep to read`), command: '' });
    const tree = this.#parser.parse(source);
    try {
      const closed = tree?.rootNode.hasError ? closeOpenHeredocs(source) : source;
      if (closed !== source && !this.#parser.parse(closed)?.rootNode.hasError) {
        this.#bash(closed, depth + 1, via, out);
        return;
      }
      if (!tree || tree.rootNode.hasError)
        return void out.push({
          ...effect('high', `\`${source}\` has a shell syntax error, so what would run cannot be known`),
          command: '',
        });
      for (const command of collectSimpleCommands(tree.rootNode)) this.#command({ ...command, via: [...via, ...command.via] }, depth, out);
    } finally {
      tree?.delete();
    }
  }

  #command(command: SimpleCommand, depth: number, out: Scored[]): void {
    const inner = unwrap(command);
    const wraps = inner.commands.length > 0 || inner.scripts.length > 0;
    this.#push(command, scoreSimpleCommand(command, wraps), out);
    for (const child of inner.commands) this.#command(child, depth + 1, out);
    for (const line of embeddedShellCommands(command)) this.#bash(line, depth + 1, [...command.via, `${command.program} code`], out);
    for (const script of inner.scripts) {
      if (script.source.static) this.#bash(script.source.text, depth + 1, [...command.via, script.via], out);
      else this.#push(command, effect('high', `runs code known only at run time (${script.via})`), out);
    }
  }

  #windows(line: string, depth: number, out: Scored[]): void {
    const scan = depth > MAX_NESTING ? undefined : scanWindowsCommandLine(line);
    if (!scan || scan.blocked) return void out.push({ ...effect('high', `\`${line}\` cannot be read safely`), command: '' });
    // A wrapper (`cmd /c dir`) is scored by what it runs, which is scored on its own below, as `sh -c` is.
    const wrappers = new Set(
      scan.nested.filter((nested) => nested.wrapped && nested.source.text.trim() !== '').map((nested) => nested.segment),
    );
    for (const command of scan.commands)
      this.#push(command, scoreSimpleCommand(withWindowsRedirects(command), wrappers.has(command.segment)), out);
    for (const nested of scan.nested) {
      if (nested.source.static) this.#windows(nested.source.text, depth + 1, out);
      else out.push({ ...effect('high', `runs code known only at run time (${nested.via})`), command: '' });
    }
  }

  #push(command: SimpleCommand, scored: Effect, out: Scored[]): void {
    const text = shown(command);
    const via = command.via.length > 0 ? ` (via ${command.via.join(' → ')})` : '';
    out.push({
      level: scored.level,
      does: scored.level === 'low' ? scored.does : `\`${text}\` ${scored.does}${via}`,
      command: text.split(' ')[0]!,
    });
  }
}

/** Loads the shell grammar (once per process, shared with the validator) and returns a synchronous assessor. */
export async function createCommandRiskAssessor(): Promise<CommandRiskAssessor> {
  return new CommandRiskAssessor(await loadBashParser());
}
