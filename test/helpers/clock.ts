import type { Clock } from '../../src/lib/clock.js';

/** A clock that moves only when told to. */
export interface FakeClock extends Clock {
  advance(ms: number): void;
  set(ms: number): void;
}

/** Starts at `start` (a fixed, realistic unix ms time by default). */
export function fakeClock(start = Date.UTC(2026, 0, 15, 12, 0, 0)): FakeClock {
  let t = start;
  return {
    now: () => t,
    advance(ms) {
      t += ms;
    },
    set(ms) {
      t = ms;
    },
  };
}
