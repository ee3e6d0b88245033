import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds per test file from a recorded run (`npm run test:durations`), keyed by repo-relative path. */
type Durations = Record<string, number>;

const unknownFileSeconds = 1;

function recordedDurations(path: URL): Durations {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Durations;
  } catch {
    return {};
  }
}

/**
 * Starts the longest files first. Vitest's own order needs its cache, which a clean clone (CI) does
 * not have; it then falls back to file size, and the real-binary Helm suites (small files, ~50 s
 * each) started last and ran alone for the final 50 s of a 270 s run. The recorded durations stand
 * in for the cache; a file missing from them counts as short.
 */
export class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const recorded = recordedDurations(new URL('test-durations.json', import.meta.url));
    const root = this.ctx.config.root;
    const cache = this.ctx.cache;
    const seconds = (spec: TestSpecification): number =>
      (cache.getTestSpecificationResult(spec)?.duration ?? 0) / 1000 || recorded[relative(root, spec.moduleId)] || unknownFileSeconds;
    return [...files].sort((a, b) => seconds(b) - seconds(a));
  }
}
