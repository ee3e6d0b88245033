import { describe, expect, it } from 'vitest';
import { detectErrorKeywords } from './error-keywords.ts';

describe('detectErrorKeywords', () => {
  it('AR-15 finds error, failed and denied as whole words in any case, with their lines', () => {
    const report = detectErrorKeywords('ok\nERROR: disk full\nmount: Permission denied\nJob for nginx.service Failed; error again\n');
    expect(report.keywords).toEqual(['error', 'failed', 'denied']);
    expect(report.lines.map((l) => [l.lineNumber, l.keywords])).toEqual([
      [2, ['error']],
      [3, ['denied']],
      [4, ['failed', 'error']],
    ]);
    expect(report.lines[1]!.line).toBe('mount: Permission denied');
  });

  it('AR-15 ignores the words inside other words', () => {
    expect(detectErrorKeywords('stderr redirected; errors=0; terror; undenied; unfailedx').keywords).toEqual([]);
  });

  it('AR-15 reports nothing for clean output', () => {
    expect(detectErrorKeywords('Filesystem Size Used\n/dev/sda1 20G 5G').lines).toEqual([]);
  });

  it('AR-15 caps the number of lines reported', () => {
    const report = detectErrorKeywords('error\n'.repeat(100), 5);
    expect(report.lines).toHaveLength(5);
    expect(report.lines[4]!.lineNumber).toBe(5);
  });
});
