// `npm run test:mutation MODULE --sample PERCENT`: mutate only a seeded random share of a module's
// lines. On the shared 2-core machine a mutant costs ~7 s (vitest starts a worker and imports the
// module for each run), so the command validator's and risk scorer's thousands of mutants take
// hours; a sample of lines gives an estimate in minutes. Only mutants that start and end on a
// sampled line are tested: multi-line mutants (a whole block or table emptied) are left out, and
// those are the easiest to kill, so the sampled score leans low.
//
// A line's draw depends on its own text, not its position: a fix that adds or removes a line
// elsewhere must leave the rest of the sample alone, or a re-run after the fix measures other lines
// and the two scores cannot be compared (session 10's validator sample moved 67 of 155 lines so).
import { createHash } from 'node:crypto';
import { globSync, readFileSync } from 'node:fs';

/** A line range in Stryker's `file.ts:FROM-TO` form, or a plain pattern. */
const RANGED = /^(.*):(\d+)-(\d+)$/;

/** Whether a trimmed line holds code Stryker can mutate: not blank, a comment or an import. */
function isCode(trimmed: string): boolean {
  return (
    trimmed !== '' && !trimmed.startsWith('//') && !trimmed.startsWith('*') && !trimmed.startsWith('/*') && !trimmed.startsWith('import ')
  );
}

/** One line of code: its number, its trimmed text, and how many lines with that text come before it in the file. */
interface CodeLine {
  readonly line: number;
  readonly text: string;
  readonly occurrence: number;
}

/** The files a module's mutate patterns name (globs expanded, `!` patterns removed), each with the lines to draw from. */
function mutatedLines(patterns: readonly string[], root: string): { readonly file: string; readonly lines: readonly CodeLine[] }[] {
  const excluded = new Set(patterns.filter((p) => p.startsWith('!')).flatMap((p) => globSync(p.slice(1), { cwd: root })));
  return patterns
    .filter((p) => !p.startsWith('!'))
    .flatMap((pattern) => {
      const ranged = RANGED.exec(pattern);
      const glob = ranged ? ranged[1]! : pattern;
      return globSync(glob, { cwd: root })
        .filter((file) => !excluded.has(file))
        .sort()
        .map((file) => {
          const text = readFileSync(`${root}/${file}`, 'utf8').split('\n');
          const from = ranged ? Number(ranged[2]) : 1;
          const to = ranged ? Number(ranged[3]) : text.length;
          const seen = new Map<string, number>();
          const lines: CodeLine[] = [];
          for (let line = 1; line <= Math.min(to, text.length); line++) {
            const code = text[line - 1]!.trim();
            if (!isCode(code)) continue;
            const occurrence = seen.get(code) ?? 0;
            seen.set(code, occurrence + 1);
            if (line >= from) lines.push({ line, text: code, occurrence });
          }
          return { file, lines };
        });
    });
}

/** Where a line falls in [0, 100): a hash of the seed, the file, the line's text and its occurrence, so the same line draws the same way wherever it moves. */
function drawOf(seed: number, file: string, line: CodeLine): number {
  const digest = createHash('sha256')
    .update(JSON.stringify([seed, file, line.text, line.occurrence]))
    .digest();
  return (digest.readUInt32BE(0) / 4294967296) * 100;
}

/**
 * Stryker mutate patterns for a seeded random `percent` of the lines of code the module's patterns
 * name, one `file.ts:L-L` per drawn line. A line is drawn by its own text (and its occurrence of
 * that text in the file), so the same seed gives the same lines, and adding or removing a line
 * leaves every other line's draw as it was.
 */
export function sampleMutatePatterns(patterns: readonly string[], root: string, percent: number, seed: number): string[] {
  return mutatedLines(patterns, root).flatMap(({ file, lines }) =>
    lines.filter((line) => drawOf(seed, file, line) < percent).map(({ line }) => `${file}:${line}-${line}`),
  );
}
