import { describe, expect, it } from 'vitest';
import { sanitizeOutputForModel } from './sanitize-output.ts';

describe('sanitizeOutputForModel', () => {
  it('AR-09 AR-14 AR-15 strips, truncates and flags in one call', () => {
    const raw = `\u001b[31mERROR\u001b[0m start\n${'ok line\n'.repeat(2000)}done: failed\n`;
    const result = sanitizeOutputForModel(raw);
    expect(result.text).not.toContain('\u001b');
    expect(result.text.length).toBeLessThanOrEqual(5000);
    expect(result.truncated).toBe(true);
    expect(result.text).toContain('[truncated ');
    expect(result.errorKeywords).toEqual(['error', 'failed']);
  });
});
