/** Wall-clock milliseconds; injected so tests can move time (rate windows, expiry) on demand. */
export interface Clock {
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * `clock` as seen by something that measures durations with it (rate-limit windows): when the
 * wall clock steps back (an NTP correction, an operator's `date -s`), time here carries on from
 * where it was instead, at the real rate; a step forward is kept (windows then end early, never
 * late). Without this, a step back of an hour left every account at its limit refused for that
 * hour, its window's requests dated in the "future".
 */
export function steadyClock(clock: Clock): Clock {
  let offset = 0;
  let last = Number.NEGATIVE_INFINITY;
  return {
    now() {
      let t = clock.now() + offset;
      if (t < last) {
        offset += last - t;
        t = last;
      }
      last = t;
      return t;
    },
  };
}
