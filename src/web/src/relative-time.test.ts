import { describe, expect, it } from 'vitest';
import { askedAndExpiry, spanInWords } from './relative-time.ts';

describe('inbox times in words (issue 31, item 9)', () => {
  const now = Date.parse('2026-11-27T10:00:00Z');
  it('says when a request was asked and when it expires', () => {
    expect(askedAndExpiry('2026-11-27T09:57:00Z', '2026-11-28T09:57:00Z', now)).toBe('asked 3 min ago · expires in 24 h');
    expect(askedAndExpiry('2026-11-27T09:59:50Z', undefined, now)).toBe('asked just now · does not expire');
    expect(askedAndExpiry('2026-11-25T10:00:00Z', '2026-11-27T09:00:00Z', now)).toBe('asked 2 days ago · expired');
  });
  it('rounds spans to what a person says', () => {
    expect([30_000, 90 * 60_000, 5 * 3_600_000, 72 * 3_600_000].map(spanInWords)).toEqual([
      'less than a minute',
      '90 min',
      '5 h',
      '3 days',
    ]);
  });
});
