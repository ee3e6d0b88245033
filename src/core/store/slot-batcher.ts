/**
 * Batching by busy slots: requests run at once while fewer than `slots` batches are under way;
 * those that arrive while every slot is busy wait and then run together, up to `maxBatch` in one.
 * A lone request pays no delay, and under load many requests share one round trip to the store.
 */
export class SlotBatcher<T> {
  #slots: number;
  readonly #maxBatch: number;
  readonly #run: (batch: T[]) => Promise<void>;
  readonly #waiting: T[] = [];
  #busy = 0;

  /** `run` settles every item of its batch itself and must not throw. */
  constructor(slots: number, maxBatch: number, run: (batch: T[]) => Promise<void>) {
    this.#slots = Math.max(1, slots);
    this.#maxBatch = maxBatch;
    this.#run = run;
  }

  /** Changes how many batches may be under way at once (from the next batch on). */
  set slots(slots: number) {
    this.#slots = Math.max(1, slots);
    this.#next();
  }

  add(item: T): void {
    this.#waiting.push(item);
    this.#next();
  }

  #next(): void {
    while (this.#busy < this.#slots && this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, this.#maxBatch);
      this.#busy += 1;
      void this.#run(batch).finally(() => {
        this.#busy -= 1;
        this.#next();
      });
    }
  }
}
