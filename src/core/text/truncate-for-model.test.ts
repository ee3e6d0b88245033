import { describe, expect, it } from 'vitest';
import { createOutputCollector, truncateForModel, truncateForModelWithInfo } from './truncate-for-model.ts';

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

describe('createOutputCollector', () => {
  it('AR-14 gives the same result as truncating the whole stream, in bounded memory', () => {
    let seed = 3;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (const size of [0, 10, 4999, 5000, 5001, 7000, 9999, 10_001, 60_000]) {
      let text = '';
      while (text.length < size) text += random(5) === 0 ? '\n' : String.fromCharCode(97 + random(26));
      text = text.slice(0, size);
      const collector = createOutputCollector();
      for (let at = 0; at < text.length; ) {
        const step = 1 + random(3000);
        collector.push(text.slice(at, at + step));
        at += step;
      }
      expect(collector.length).toBe(size);
      expect(collector.finish(), `size ${size}`).toEqual(truncateForModelWithInfo(text));
    }
  });
});
