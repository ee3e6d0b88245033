import { SandboxErrors } from '../errors.ts';

/** Limits on one read-path statement. A read past any of them is stopped with `READ_BUDGET_EXCEEDED`. */
export interface ReadBudget {
  /** Wall-clock time one read may run, in milliseconds. Default 10,000. */
  readonly timeMs: number;
  /** Rows one read may return. Default 10,000. */
  readonly maxRows: number;
  /** Bytes of the rows one read may return, counted as their JSON. Default 16 MiB. */
  readonly maxBytes: number;
}

const DEFAULT_READ_BUDGET: ReadBudget = { timeMs: 10_000, maxRows: 10_000, maxBytes: 16 * 1024 * 1024 };

/** Fills a partial budget from the defaults; rejects budgets that are not positive whole numbers. */
export function resolveReadBudget(budget: Partial<ReadBudget> = {}): ReadBudget {
  const resolved = { ...DEFAULT_READ_BUDGET, ...budget };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isInteger(value) || value <= 0) throw new RangeError(`read budget ${name} must be a positive whole number, got ${value}`);
  }
  return resolved;
}

/**
 * Counts the rows and bytes of one read as they arrive and stops it at the budget, the same way on
 * every engine: the person sees which limit was hit and that the database is unchanged.
 */
export class ReadMeter {
  readonly #budget: Pick<ReadBudget, 'maxRows' | 'maxBytes'>;
  #rows = 0;
  #bytes = 0;

  constructor(budget: Pick<ReadBudget, 'maxRows' | 'maxBytes'>) {
    this.#budget = budget;
  }

  /** Counts one row; throws when it is past the row or byte budget. */
  count(row: unknown): void {
    this.#rows += 1;
    if (this.#rows > this.#budget.maxRows) {
      throw SandboxErrors.READ_BUDGET_EXCEEDED({
        detail: `it returned more than ${this.#budget.maxRows} rows`,
        limit: 'rows',
        maxRows: this.#budget.maxRows,
      });
    }
    this.#bytes += Buffer.byteLength(JSON.stringify(row));
    if (this.#bytes > this.#budget.maxBytes) {
      throw SandboxErrors.READ_BUDGET_EXCEEDED({
        detail: `its rows came to more than ${this.#budget.maxBytes} bytes`,
        limit: 'bytes',
        maxBytes: this.#budget.maxBytes,
      });
    }
  }
}
