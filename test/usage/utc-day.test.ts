import { describe, expect, it } from 'vitest';
import { utcDay } from '../../src/usage/recorder.js';

describe('utcDay', () => {
  it('names the UTC day of a time, also across midnight and back again', () => {
    const midnight = Date.UTC(2026, 10, 22);
    expect(utcDay(midnight - 1)).toBe('2026-11-21');
    expect(utcDay(midnight)).toBe('2026-11-22');
    expect(utcDay(midnight + 86_399_999)).toBe('2026-11-22');
    expect(utcDay(midnight + 86_400_000)).toBe('2026-11-23');
    // The reused string must not stick when the clock goes back (tests, NTP steps).
    expect(utcDay(midnight - 1)).toBe('2026-11-21');
    expect(utcDay(Date.UTC(1969, 11, 31, 23))).toBe('1969-12-31');
    expect(utcDay(0)).toBe('1970-01-01');
  });
});
