/** How a batcher starts a batch when a slot is free. */
export interface SlotBatcherOptions {
  /**
   * Wait for the end of the current turn of the event loop (`setImmediate`) before starting, so
   * that every request added in that turn joins one batch: the members of a finished batch resume
   * together and reach their next request in the same turn. Without it the first of them starts a
   * batch alone and the rest wait for the next one. Default false (start at once).
   */
  readonly gatherTurn?: boolean;
}

/**
 * Batching by busy slots: requests run at once while fewer than `slots` batches are under way;
 * those that arrive while every slot is busy wait and then run together, up to `maxBatch` in one.
 * A lone request pays no delay (with `gatherTurn`, one hop of the event loop), and under load many
 * requests share one round trip to the store.
 */
export class SlotBatcher<T> {
  #slots: number;
  readonly #maxBatch: number;
  readonly #run: (batch: T[]) => Promise<void>;
  readonly #waiting: T[] = [];
  #busy = 0;
  readonly #gatherTurn: boolean;
  #gathering = false;

  /** `run` settles every item of its batch itself and must not throw. */
  constructor(slots: number, maxBatch: number, run: (batch: T[]) => Promise<void>, options: SlotBatcherOptions = {}) {
    this.#slots = Math.max(1, slots);
    this.#maxBatch = maxBatch;
    this.#run = run;
    this.#gatherTurn = options.gatherTurn ?? false;
  }

  /** Changes how many batches may be under way at once (from the next batch on). */
  set slots(slots: number) {
    this.#slots = Math.max(1, slots);
    this.#next();
  }

  add(item: T): void {
    this.#waiting.push(item);
    if (!this.#gatherTurn) this.#next();
    else if (!this.#gathering) {
      this.#gathering = true;
      setImmediate(() => {
        this.#gathering = false;
        this.#next();
      });
    }
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
