import { describe, expect, it } from 'vitest';
import { LocalTurns } from './local-turns.ts';

describe('LocalTurns', () => {
  it('a turn is alone until another on its session begins while it runs, and stays crowded after', () => {
    const turns = new LocalTurns();
    const first = turns.begin('s1');
    expect(first.alone).toBe(true);
    const elsewhere = turns.begin('s2');
    expect(first.alone).toBe(true);
    const second = turns.begin('s1');
    expect(first.alone).toBe(false);
    expect(second.alone).toBe(false);
    second.end();
    expect(first.alone).toBe(false);
    first.end();
    expect(elsewhere.alone).toBe(true);
  });

  it('a turn that begins after the others ended is alone again; ending twice counts once', () => {
    const turns = new LocalTurns();
    const first = turns.begin('s1');
    first.end();
    first.end();
    const later = turns.begin('s1');
    expect(later.alone).toBe(true);
    const other = turns.begin('s1');
    later.end();
    later.end();
    other.end();
    expect(turns.begin('s1').alone).toBe(true);
  });
});
