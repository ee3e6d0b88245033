import { availableParallelism } from 'node:os';
import { CoreErrors } from '../errors/index.ts';

/** More would only make many small transactions: a group commit needs units waiting for a slot. */
const MAX_COMMIT_SLOTS = 256;

/**
 * How many transactions PostgreSQL commits at once for all replicas together (the group commit's
 * slots, shared among the live replicas at each heartbeat). Chosen: `StoreOptions.commitSlots`, else
 * `OPSGATE_COMMIT_SLOTS`; by default one per core of this machine, at least 2 (measured on 2 cores:
 * one process 416 round trips/s with 1 slot, 557 with 2, 515 with 5 — more slots than cores make
 * smaller groups, not more parallel work). Set it to the database server's cores when it runs elsewhere.
 */
export function commitSlotsOf(chosen: number | undefined): number {
  const given = chosen ?? process.env.OPSGATE_COMMIT_SLOTS;
  if (given === undefined || given === '') return Math.max(2, availableParallelism());
  const slots = Number(given);
  if (!Number.isInteger(slots) || slots < 1 || slots > MAX_COMMIT_SLOTS)
    throw CoreErrors.CONFIG_INVALID({
      detail: `OPSGATE_COMMIT_SLOTS is "${given}"; use a whole number from 1 to ${MAX_COMMIT_SLOTS}: the commits the database runs at once for all replicas together (default: the cores of this machine, at least 2)`,
    });
  return slots;
}
