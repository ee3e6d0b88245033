/** Limits on one read-path statement. A read past either is stopped with `READ_BUDGET_EXCEEDED`. */
export interface ReadBudget {
  /** Wall-clock time one read may run, in milliseconds. Default 10,000. */
  readonly timeMs: number;
  /** Rows one read may return. Default 10,000. */
  readonly maxRows: number;
}

export const DEFAULT_READ_BUDGET: ReadBudget = { timeMs: 10_000, maxRows: 10_000 };

/** Fills a partial budget from the defaults; rejects budgets that are not positive whole numbers. */
export function resolveReadBudget(budget: Partial<ReadBudget> = {}): ReadBudget {
  const resolved = { ...DEFAULT_READ_BUDGET, ...budget };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isInteger(value) || value <= 0) throw new RangeError(`read budget ${name} must be a positive whole number, got ${value}`);
  }
  return resolved;
}
