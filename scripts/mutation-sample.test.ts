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

  it('draws a line by its own text: adding or removing a line elsewhere leaves every other line drawn as it was', () => {
    const lines = Array.from({ length: 200 }, (_, i) => `export const b${i} = ${i};`);
    const drawnTexts = (file: string, code: readonly string[]) => {
      writeFileSync(join(root, file), code.join('\n'));
      return sampleMutatePatterns([file], root, 30, 36).map((pattern) => code[Number(/:(\d+)-/.exec(pattern)![1]) - 1]);
    };
    const before = drawnTexts('src/moved.ts', lines);
    const inserted = drawnTexts('src/moved.ts', ['export const added = 1;', ...lines.slice(0, 50), 'run();', ...lines.slice(50)]);
    const removed = drawnTexts('src/moved.ts', [...lines.slice(0, 10), ...lines.slice(11)]);
    rmSync(join(root, 'src/moved.ts'));
    expect(before.length).toBeGreaterThan(20);
    expect(inserted.filter((text) => text !== 'export const added = 1;' && text !== 'run();')).toEqual(before);
    expect(removed).toEqual(before.filter((text) => text !== lines[10]));
  });

  it('tells apart lines with the same text by their occurrence in the file, and draws near the percentage asked', () => {
    writeFileSync(join(root, 'src/same.ts'), Array.from({ length: 2000 }, () => 'run();').join('\n'));
    const drawn = sampleMutatePatterns(['src/same.ts'], root, 10, 36);
    rmSync(join(root, 'src/same.ts'));
    expect(drawn.length).toBeGreaterThan(160);
    expect(drawn.length).toBeLessThan(240);
  });

  it('keeps to the line range a module names', () => {
    expect(sampleMutatePatterns(['src/a.ts:10-12'], root, 100, 36)).toEqual(['src/a.ts:10-10', 'src/a.ts:11-11', 'src/a.ts:12-12']);
  });
});
