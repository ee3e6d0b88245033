// The exact verdict for every dangerous corpus line: the rule that blocks it, the part of the line
// it names and the reason shown to the approver (corpus/dangerous-verdicts.json). The corpus test
// checks only that each line is blocked by some rule; this one notices when another rule takes a
// line over or a reason loses its words (issue 36: such mutants survived). A deliberate change
// updates the JSON: the failure lists each line with the verdict it now gets.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CommandValidator, createCommandValidator } from './command-validator.ts';
import { DANGEROUS_COMMANDS } from './corpus/index.ts';
import type { TargetOs } from './types.ts';

interface PinnedVerdict {
  readonly os: TargetOs;
  readonly command: string;
  readonly rule: string;
  readonly segment: string;
  readonly reason: string;
}

const PINNED = JSON.parse(readFileSync(new URL('./corpus/dangerous-verdicts.json', import.meta.url), 'utf8')) as PinnedVerdict[];

let validator: CommandValidator;
beforeAll(async () => {
  validator = await createCommandValidator();
});

describe('CommandValidator verdicts of the dangerous corpus, pinned', () => {
  it('pins one verdict for each dangerous corpus line, and none for a line the corpus no longer holds', () => {
    expect(PINNED.map((p) => `${p.os} ${p.command}`)).toEqual(DANGEROUS_COMMANDS.map((c) => `${c.os} ${c.command}`));
  });

  it('AR-01 blocks each dangerous line by its rule, naming its segment and reason', () => {
    const changed = PINNED.flatMap((pinned) => {
      const { rule, segment, reason } = validator.validate(pinned.command, pinned.os);
      return rule === pinned.rule && segment === pinned.segment && reason === pinned.reason
        ? []
        : [{ os: pinned.os, command: pinned.command, rule, segment, reason }];
    });
    expect(changed).toEqual([]);
  });
});
