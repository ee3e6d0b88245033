import { availableParallelism } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { commitSlotsOf } from './commit-slots.ts';

describe('the commit slots of the database (commitSlotsOf)', () => {
  const saved = process.env.OPSGATE_COMMIT_SLOTS;
  afterEach(() => {
    if (saved === undefined) delete process.env.OPSGATE_COMMIT_SLOTS;
    else process.env.OPSGATE_COMMIT_SLOTS = saved;
  });

  it('follows the cores of this machine by default (at least 2), OPSGATE_COMMIT_SLOTS when set, and the option above both', () => {
    delete process.env.OPSGATE_COMMIT_SLOTS;
    expect(commitSlotsOf(undefined)).toBe(Math.max(2, availableParallelism()));
    process.env.OPSGATE_COMMIT_SLOTS = '12';
    expect(commitSlotsOf(undefined)).toBe(12);
    expect(commitSlotsOf(3)).toBe(3);
  });

  it.each(['0', '-1', '2.5', 'many', '257'])('refuses OPSGATE_COMMIT_SLOTS=%s with CONFIG_INVALID saying what to give', (value) => {
    process.env.OPSGATE_COMMIT_SLOTS = value;
    expect(() => commitSlotsOf(undefined)).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringMatching(/whole number from 1 to 256/) }),
    );
  });
});
