import { describe, expect, it } from 'vitest';
import { OpsgateError } from '../../../core/errors/index.ts';
import { ReadMeter, resolveReadBudget } from './read-budget.ts';

// The SQLite engine meters in its read process and PostgreSQL in its cursor loop; here the meter
// itself, at each limit's exact edge.
describe('ReadMeter: the row and byte limits every engine applies to one read, and the budget they come from', () => {
  it('defaults to 10 s, 10,000 rows and 16 MiB and rejects budgets that are not positive whole numbers', () => {
    expect(resolveReadBudget()).toEqual({ timeMs: 10_000, maxRows: 10_000, maxBytes: 16 * 1024 * 1024 });
    expect(resolveReadBudget({ timeMs: 50 })).toEqual({ timeMs: 50, maxRows: 10_000, maxBytes: 16 * 1024 * 1024 });
    expect(() => resolveReadBudget({ maxRows: 0 })).toThrow(RangeError);
    expect(() => resolveReadBudget({ timeMs: 1.5 })).toThrow(RangeError);
  });
  function stopped(meter: ReadMeter, row: unknown): OpsgateError {
    try {
      meter.count(row);
    } catch (error) {
      if (OpsgateError.isInstance(error)) return error;
      throw error;
    }
    throw new Error('the row was counted without a refusal');
  }

  it('lets exactly maxRows rows through and stops the next one, naming the row limit', () => {
    const meter = new ReadMeter({ maxRows: 2, maxBytes: 1_000 });
    meter.count({ id: 1 });
    meter.count({ id: 2 });
    const error = stopped(meter, { id: 3 });
    expect(error.code).toBe('READ_BUDGET_EXCEEDED');
    expect(error.fields).toEqual({ detail: 'it returned more than 2 rows', limit: 'rows', maxRows: 2 });
    expect(error.message).toBe(
      'The read was stopped: it returned more than 2 rows. The database is unchanged. Add a LIMIT or a narrower WHERE clause, or configure a larger read budget.',
    );
  });

  it('lets rows up to exactly maxBytes of JSON through and stops the row that passes it, counting bytes, not characters', () => {
    // {"id":1} is 8 bytes: two rows are exactly 16.
    const meter = new ReadMeter({ maxRows: 100, maxBytes: 16 });
    meter.count({ id: 1 });
    meter.count({ id: 2 });
    const error = stopped(meter, { id: 3 });
    expect(error.fields).toEqual({ detail: 'its rows came to more than 16 bytes', limit: 'bytes', maxBytes: 16 });
    // {"s":"é"} is 9 characters and 10 bytes.
    expect(stopped(new ReadMeter({ maxRows: 100, maxBytes: 9 }), { s: 'é' }).fields).toMatchObject({ limit: 'bytes' });
    new ReadMeter({ maxRows: 100, maxBytes: 10 }).count({ s: 'é' });
  });

  it('names the row limit when a row passes both limits at once', () => {
    const meter = new ReadMeter({ maxRows: 1, maxBytes: 8 });
    meter.count({ id: 1 });
    expect(stopped(meter, { id: 2 }).fields).toMatchObject({ limit: 'rows' });
  });

  it('refuses each budget that is not a positive whole number, naming it', () => {
    expect(() => resolveReadBudget({ maxBytes: -1 })).toThrow('read budget maxBytes must be a positive whole number, got -1');
    expect(() => resolveReadBudget({ timeMs: 0 })).toThrow('read budget timeMs must be a positive whole number, got 0');
    expect(resolveReadBudget({ maxRows: 1, maxBytes: 1, timeMs: 1 })).toEqual({ maxRows: 1, maxBytes: 1, timeMs: 1 });
  });
});
