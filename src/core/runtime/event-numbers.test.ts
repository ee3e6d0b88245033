import { describe, expect, it } from 'vitest';
import { LastEventNumbers } from './event-numbers.ts';

describe('LastEventNumbers', () => {
  it('knows nothing until a session is created here or a number is stored', () => {
    const numbers = new LastEventNumbers();
    expect(numbers.get('s1')).toBeUndefined();
    numbers.created('s1');
    expect(numbers.get('s1')).toBe(0);
    numbers.stored('s2', 7);
    expect(numbers.get('s2')).toBe(7);
  });

  it('keeps the highest number stored (after-commit actions may run out of order) until told to forget', () => {
    const numbers = new LastEventNumbers();
    numbers.stored('s1', 5);
    numbers.stored('s1', 3);
    expect(numbers.get('s1')).toBe(5);
    numbers.stored('s1', 6);
    expect(numbers.get('s1')).toBe(6);
    numbers.forget('s1');
    expect(numbers.get('s1')).toBeUndefined();
  });

  it('forgets the session used longest ago when full', () => {
    const numbers = new LastEventNumbers(2);
    numbers.stored('old', 1);
    numbers.stored('middle', 1);
    numbers.stored('old', 2);
    numbers.created('new');
    expect(numbers.get('middle')).toBeUndefined();
    expect(numbers.get('old')).toBe(2);
    expect(numbers.get('new')).toBe(0);
  });
});
