import { describe, expect, it } from 'vitest';
import { Memo } from './memo.ts';

describe('Memo', () => {
  it('loads a key once while it is fresh, and again when it is older than maxAgeMs', async () => {
    let now = 0;
    let loads = 0;
    const memo = new Memo<number>({ maxEntries: 4, maxAgeMs: 100, now: () => now });
    const load = async () => ++loads;
    expect(await memo.get('a', load)).toBe(1);
    now = 100;
    expect(await memo.get('a', load)).toBe(1);
    now = 101;
    expect(await memo.get('a', load)).toBe(2);
  });

  it('forgets a failed load, so the next call asks again', async () => {
    const memo = new Memo<string>({ maxEntries: 4 });
    await expect(memo.get('a', () => Promise.reject(new Error('unreachable')))).rejects.toThrow('unreachable');
    expect(await memo.get('a', async () => 'answer')).toBe('answer');
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    let loads = 0;
    const memo = new Memo<number>({ maxEntries: 2 });
    const load = async () => ++loads;
    await memo.get('a', load);
    await memo.get('b', load);
    await memo.get('c', load);
    expect(await memo.get('b', load)).toBe(2);
    expect(await memo.get('a', load)).toBe(4);
  });

  it('clear drops every entry', async () => {
    let loads = 0;
    const memo = new Memo<number>({ maxEntries: 2 });
    await memo.get('a', async () => ++loads);
    memo.clear();
    expect(await memo.get('a', async () => ++loads)).toBe(2);
  });
});
