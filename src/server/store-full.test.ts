import { describe, expect, it } from 'vitest';
import { isStoreFull } from './store-full.ts';

const withCode = (fields: Record<string, unknown>) => Object.assign(new Error('x'), fields);

describe('isStoreFull', () => {
  it('recognises SQLITE_FULL and ENOSPC, also as a cause', () => {
    expect(isStoreFull(withCode({ code: 'ERR_SQLITE_ERROR', errcode: 13 }))).toBe(true);
    expect(isStoreFull(new Error('flush failed', { cause: withCode({ code: 'ENOSPC' }) }))).toBe(true);
  });
  it('leaves other errors alone', () => {
    expect(isStoreFull(withCode({ code: 'ERR_SQLITE_ERROR', errcode: 1 }))).toBe(false);
    expect(isStoreFull('text')).toBe(false);
  });
});
