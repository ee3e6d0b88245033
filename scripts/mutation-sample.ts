// `npm run test:mutation MODULE --sample PERCENT`: mutate only a seeded random share of a module's
// lines. On the shared 2-core machine a mutant costs ~7 s (vitest starts a worker and imports the
// module for each run), so the command validator's and risk scorer's thousands of mutants take
// hours; a sample of lines gives an estimate in minutes. Only mutants that start and end on a
// sampled line are tested: multi-line mutants (a whole block or table emptied) are left out, and
// those are the easiest to kill, so the sampled score leans low.
import { globSync, readFileSync } from 'node:fs';

/** A line range in Stryker's `file.ts:FROM-TO` form, or a plain pattern. */
const RANGED = /^(.*):(\d+)-(\d+)$/;

/** mulberry32: a small seeded generator, so a sample can be drawn again. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The files a module's mutate patterns name (globs expanded, `!` patterns removed), each with the lines to draw from. */
function mutatedLines(patterns: readonly string[], root: string): { readonly file: string; readonly lines: readonly number[] }[] {
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
          const lines: number[] = [];
          for (let line = from; line <= to; line++) {
            const code = text[line - 1]?.trim() ?? '';
            if (code !== '' && !code.startsWith('//') && !code.startsWith('*') && !code.startsWith('/*') && !code.startsWith('import '))
              lines.push(line);
          }
          return { file, lines };
        });
    });
}

/**
 * Stryker mutate patterns for a seeded random `percent` of the lines of code the module's patterns
 * name, one `file.ts:L-L` per drawn line (the same seed and files give the same lines).
 */
export function sampleMutatePatterns(patterns: readonly string[], root: string, percent: number, seed: number): string[] {
  const random = seededRandom(seed);
  return mutatedLines(patterns, root).flatMap(({ file, lines }) =>
    lines.filter(() => random() * 100 < percent).map((line) => `${file}:${line}-${line}`),
  );
}
