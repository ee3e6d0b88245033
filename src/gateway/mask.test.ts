import { describe, expect, it } from 'vitest';
import { masked } from './mask.ts';

describe('masked', () => {
  it('replaces a secret anywhere in a JSON value, including where JSON escapes it', () => {
    const value = { text: 'token s3cr"et here', nested: [{ message: 'again s3cr"et' }] };
    expect(masked(value, ['s3cr"et'])).toEqual({ text: 'token [masked] here', nested: [{ message: 'again [masked]' }] });
  });

  it('leaves the value alone without secrets, and masks plain strings', () => {
    const value = { a: 1 };
    expect(masked(value, [])).toBe(value);
    expect(masked('Bearer abcd1234', ['abcd1234'])).toBe('Bearer [masked]');
  });
});
