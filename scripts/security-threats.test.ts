import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { threatRows, threatTestProblems } from './security-threats.ts';

const root = resolve(import.meta.dirname, '..');
const read = (file: string) => (existsSync(join(root, file)) ? readFileSync(join(root, file), 'utf8') : undefined);

describe('docs/security.md: each threat with the test that proves it', () => {
  it('every threat row names tests that exist and run', () => {
    const markdown = readFileSync(join(root, 'docs/security.md'), 'utf8');
    expect(threatRows(markdown).length).toBeGreaterThanOrEqual(20);
    expect(threatTestProblems(markdown, read)).toEqual([]);
  });

  it('a row without a test, a missing file and a title no test has are each named', () => {
    const doc = [
      '| threat | what stops it | test |',
      '| --- | --- | --- |',
      '| a | b | `demo.test.ts` › it runs |',
      '| c \\| d | e | only words |',
      '| f | g | `gone.test.ts` › x<br>`demo.test.ts` › it never was |',
    ].join('\n');
    const files: Record<string, string> = { 'demo.test.ts': "it('it runs', () => {});" };
    expect(threatTestProblems(doc, (file) => files[file])).toEqual([
      '"c | d": names no test as `file.test.ts` › title',
      '"f": gone.test.ts does not exist',
      '"f": no running it(), test() or describe() in demo.test.ts is titled "it never was"',
    ]);
  });
});
