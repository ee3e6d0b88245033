import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleMutatePatterns } from './mutation-sample.ts';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'opsgate-mutation-sample-'));
  mkdirSync(join(root, 'src'));
  const code = ["import { x } from './x.ts';", '', '// why', ...Array.from({ length: 40 }, (_, i) => `export const a${i} = ${i};`)];
  writeFileSync(join(root, 'src/a.ts'), code.join('\n'));
  writeFileSync(join(root, 'src/b.ts'), code.join('\n'));
  writeFileSync(join(root, 'src/a.test.ts'), code.join('\n'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('mutation line sample (npm run test:mutation MODULE --sample PERCENT)', () => {
  it('at 100 % names every line of code once, skipping blank, comment and import lines and excluded files', () => {
    const all = sampleMutatePatterns(['src/*.ts', '!src/*.test.ts'], root, 100, 36);
    expect(all).toHaveLength(80);
    expect(all[0]).toBe('src/a.ts:4-4');
    expect(all.some((pattern) => pattern.startsWith('src/a.test.ts'))).toBe(false);
  });

  it('draws the same lines for the same seed and others for another seed', () => {
    const first = sampleMutatePatterns(['src/*.ts', '!src/*.test.ts'], root, 25, 36);
    expect(sampleMutatePatterns(['src/*.ts', '!src/*.test.ts'], root, 25, 36)).toEqual(first);
    expect(sampleMutatePatterns(['src/*.ts', '!src/*.test.ts'], root, 25, 37)).not.toEqual(first);
    expect(first.length).toBeGreaterThan(5);
    expect(first.length).toBeLessThan(40);
  });

  it('keeps to the line range a module names', () => {
    expect(sampleMutatePatterns(['src/a.ts:10-12'], root, 100, 36)).toEqual(['src/a.ts:10-10', 'src/a.ts:11-11', 'src/a.ts:12-12']);
  });
});
