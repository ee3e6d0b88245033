import { describe, expect, it } from 'vitest';
import { truncateForModel, truncateForModelWithInfo } from './truncate-for-model.ts';

describe('truncateForModel', () => {
  it('AR-14 leaves output of at most 5000 characters unchanged', () => {
    const text = 'x'.repeat(5000);
    expect(truncateForModel(text)).toBe(text);
    expect(truncateForModelWithInfo(text).truncated).toBe(false);
  });

  it('AR-14 truncates larger output to at most 5000 characters with a marker saying how much was cut', () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i + 1} of the log`);
    const text = lines.join('\n');
    const result = truncateForModelWithInfo(text);
    expect(result.truncated).toBe(true);
    expect(result.text.length).toBeLessThanOrEqual(5000);
    expect(result.text.startsWith('line 1 of the log\n')).toBe(true);
    expect(result.text.endsWith('line 2000 of the log')).toBe(true);
    const marker = /…\[truncated ([\d,]+) of ([\d,]+) characters\]…/.exec(result.text);
    expect(marker).not.toBeNull();
    expect(Number(marker![1]!.replaceAll(',', ''))).toBe(result.removedCharacters);
    expect(Number(marker![2]!.replaceAll(',', ''))).toBe(text.length);
    expect(result.text.length - marker![0].length - 2 + result.removedCharacters).toBe(text.length);
  });

  it('AR-14 formats the numbers with thousands separators', () => {
    const result = truncateForModel('a'.repeat(17_345));
    expect(result).toMatch(/…\[truncated 12,\d{3} of 17,345 characters\]…/);
  });

  it('AR-14 honours a custom limit and never splits a surrogate pair', () => {
    const text = '🚀'.repeat(1000);
    const result = truncateForModel(text, 500);
    expect(result.length).toBeLessThanOrEqual(500);
    expect(result).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});
