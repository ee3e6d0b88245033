import type { Risk } from '../../../core/tools/index.ts';
import type { Word } from '../validator/index.ts';
import { isHarmlessSink, PATH_KIND_NAMES, pathKind } from './target-paths.ts';

/** What one simple command does, as far as risk goes: a level and the words that say why. */
export interface Effect {
  readonly level: Risk;
  /** A verb phrase: "writes to /etc/x", "kills processes". */
  readonly does: string;
}

export const RANK: Readonly<Record<Risk, number>> = { low: 0, medium: 1, high: 2, critical: 3 };

function higher(a: Risk, b: Risk): Risk {
  return RANK[b] > RANK[a] ? b : a;
}

export function effect(level: Risk, does: string): Effect {
  return { level, does };
}

/** The worst of several effects (the first of equals, so the reason names the earliest cause). */
export function worstEffect(effects: readonly (Effect | undefined)[]): Effect | undefined {
  let worst: Effect | undefined;
  for (const candidate of effects) if (candidate && (!worst || RANK[candidate.level] > RANK[worst.level])) worst = candidate;
  return worst;
}

/**
 * Changing a path: high at least; critical when it holds credentials, boot files, a data directory
 * or is a disk device. A target only known at run time is high. Standard streams and /dev/null
 * change nothing, so they give no effect.
 */
export function changes(verb: string, target: Word, floor: Risk = 'high'): Effect | undefined {
  if (!target.static) return effect(higher(floor, 'high'), `${verb} ${target.text} (a path known only at run time)`);
  if (isHarmlessSink(target.text)) return undefined;
  const kind = pathKind(target.text);
  if (kind && kind !== 'system') return effect('critical', `${verb} ${target.text} (${PATH_KIND_NAMES[kind]})`);
  return effect(floor, `${verb} ${target.text}`);
}

/** The worst change over several targets (`cp a b c DIR` writes DIR; `rm a b` deletes both). */
export function changesAny(verb: string, targets: readonly Word[], floor: Risk = 'high'): Effect | undefined {
  return worstEffect(targets.map((target) => changes(verb, target, floor)));
}

/** Reading credentials sends secrets to the model and the screen: high. Other reads add nothing. */
export function readsCredentials(words: readonly Word[]): Effect | undefined {
  const secret = words.find((word) => word.static && !word.text.startsWith('-') && pathKind(word.text) === 'credentials');
  return secret ? effect('high', `reads ${secret.text} (credentials)`) : undefined;
}
