import { describe, expect, it } from 'vitest';
import { SlotBatcher, type SlotBatcherOptions } from './slot-batcher.ts';

/** A batcher whose batches stay under way until the test lets them finish. */
function heldBatcher(slots: number, options: SlotBatcherOptions = {}) {
  const batches: string[][] = [];
  const finishers: Array<() => void> = [];
  const batcher = new SlotBatcher<string>(
    slots,
    3,
    (batch) => {
      batches.push(batch);
      return new Promise<void>((resolve) => finishers.push(resolve));
    },
    options,
  );
  const finishOldest = async () => {
    finishers.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { batcher, batches, finishOldest };
}

describe('SlotBatcher', () => {
  it('runs a request at once while a slot is free, and batches what arrives while every slot is busy (at most maxBatch)', async () => {
    const { batcher, batches, finishOldest } = heldBatcher(1);
    for (const item of ['a', 'b', 'c', 'd', 'e']) batcher.add(item);
    expect(batches).toEqual([['a']]);
    await finishOldest();
    expect(batches).toEqual([['a'], ['b', 'c', 'd']]);
    await finishOldest();
    expect(batches).toEqual([['a'], ['b', 'c', 'd'], ['e']]);
  });

  it('takes a new slot count from the next batch on (replicas sharing the database)', async () => {
    const { batcher, batches, finishOldest } = heldBatcher(1);
    batcher.add('a');
    batcher.add('b');
    expect(batches).toEqual([['a']]);
    batcher.slots = 2;
    expect(batches).toEqual([['a'], ['b']]);
    batcher.slots = 0;
    batcher.add('c');
    await finishOldest();
    await finishOldest();
    expect(batches).toEqual([['a'], ['b'], ['c']]);
  });

  it('with gatherTurn, runs what is added in one turn of the event loop as one batch, even while a slot is free', async () => {
    const { batcher, batches, finishOldest } = heldBatcher(2, { gatherTurn: true });
    for (const item of ['a', 'b', 'c', 'd']) batcher.add(item);
    expect(batches).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([['a', 'b', 'c'], ['d']]);
    batcher.add('e');
    batcher.add('f');
    await finishOldest();
    expect(batches).toEqual([['a', 'b', 'c'], ['d'], ['e', 'f']]);
  });
});
