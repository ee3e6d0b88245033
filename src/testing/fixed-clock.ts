import type { Clock } from '../core/agent/index.ts';

/** A clock that stands still until moved: `clock.advance(ms)`. */
export function fixedClock(start = '2026-01-01T00:00:00.000Z'): Clock & { advance(ms: number): void; set(iso: string): void } {
  let current = new Date(start).getTime();
  return {
    now: () => new Date(current),
    advance(ms) {
      current += ms;
    },
    set(iso) {
      current = new Date(iso).getTime();
    },
  };
}
