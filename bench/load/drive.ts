// Runs `total` scenarios with `concurrency` of them in flight at once and records each one's
// latency or error. Shared by opsgate's worker processes and the in-process anchors.

/** The replicas' heartbeat in the benchmark (the default is 10 s; a run lasts a few, and replicas find each other at a beat). One process keeps the default. */
export const HEARTBEAT_MS = 1000;

export interface DriveResult {
  readonly samples: number[];
  readonly errors: string[];
  readonly completed: number;
  readonly elapsedMs: number;
}

export async function drive(total: number, concurrency: number, scenario: (index: number) => Promise<void>): Promise<DriveResult> {
  const samples: number[] = [];
  const errors: string[] = [];
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < total) {
      const index = next;
      next += 1;
      const t0 = performance.now();
      try {
        await scenario(index);
        samples.push(performance.now() - t0);
      } catch (error) {
        errors.push(error instanceof Error ? error.message : String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, total)) }, lane));
  return { samples, errors, completed: samples.length, elapsedMs: performance.now() - started };
}
