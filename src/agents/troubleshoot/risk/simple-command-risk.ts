import type { Redirect, SimpleCommand } from '../validator/index.ts';
import { SHELLS } from '../validator/linux-programs.ts';
import { changes, type Effect, effect, readsCredentials, worstEffect } from './effect.ts';
import { codeEffect, FILE_EFFECTS } from './file-effects.ts';
import { classEffect, DISK, NETWORK_READS, READS, SCRIPT_RUNNERS } from './program-classes.ts';
import { SYSTEM_EFFECTS } from './system-effects.ts';

const OUTPUT = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);

function redirectEffect(redirect: Redirect): Effect | undefined {
  if (!OUTPUT.has(redirect.operator)) {
    if (redirect.operator === '<' || redirect.operator === '<&') return readsCredentials([redirect.target]);
    return undefined;
  }
  // `2>&1`, `>&2`, `2>&-`: duplicating or closing a descriptor writes no file (`> 12` writes the file 12).
  if (redirect.operator === '>&' && /^\d*-?$/.test(redirect.target.text) && redirect.target.static) return undefined;
  return changes(redirect.operator.includes('>>') ? 'appends to' : 'writes to', redirect.target);
}

/** What the program itself does (its redirections and wrapped commands are scored apart). */
function programEffect(c: SimpleCommand, wraps: boolean): Effect {
  if (c.recursiveSpawn) return effect('critical', 'starts copies of itself without end (a fork bomb)');
  const hides = [...c.assignments.map((a) => a.name), ...(c.program === 'unset' ? c.args.map((a) => a.text) : [])].find((name) =>
    /^(?:HIST\w*|LD_PRELOAD|LD_LIBRARY_PATH|PROMPT_COMMAND)$/.test(name),
  );
  if (hides) return effect('high', `changes ${hides}, which hides what runs or changes what programs load`);
  if (c.name === '') return effect('low', 'sets variables');
  if (!c.nameIsStatic) return effect('high', 'runs a program known only at run time');
  const program = c.program.toLowerCase();
  const own = Object.hasOwn(FILE_EFFECTS, program)
    ? FILE_EFFECTS[program]
    : Object.hasOwn(SYSTEM_EFFECTS, program)
      ? SYSTEM_EFFECTS[program]
      : undefined;
  const known = worstEffect([classEffect(c), own?.(c), codeEffect(c)]);
  if (known) return known;
  if (wraps) return effect('low', 'runs the command it wraps');
  if (SHELLS.has(program))
    return effect('high', c.args.length > 0 ? `runs the shell script ${c.args[0]!.text}` : 'starts a shell that runs what it reads');
  if (SCRIPT_RUNNERS.has(program))
    return c.args.length > 0 && c.args.every((a) => /^(?:-V|--version|-h|--help)$/.test(a.text))
      ? effect('low', 'prints its version')
      : effect('high', `runs a ${program} script`);
  if (NETWORK_READS.has(program)) return effect('medium', 'talks to the network or another service');
  if (own || READS.has(program) || DISK.has(program)) return effect('low', 'reads');
  return effect('high', 'is a program opsgate does not know; it could change anything');
}

/**
 * The risk of one simple command: the worst of what its program does with these arguments, the
 * files its output redirections write, and any credentials it reads. `wraps` is true when the
 * command only runs others (`timeout 5 …`, `sudo …`, `sh -c …`): those are scored on their own.
 */
export function scoreSimpleCommand(c: SimpleCommand, wraps: boolean): Effect {
  return worstEffect([programEffect(c, wraps), ...c.redirects.map(redirectEffect), readsCredentials(c.args)])!;
}
