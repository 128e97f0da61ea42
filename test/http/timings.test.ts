import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TEMPLATE_CACHE_CONTROL } from '../../src/http/cache-control.js';
import { retryAfterHeader } from '../../src/http/errors.js';
import { loggedTimings, serverTiming } from '../../src/http/timings.js';
import { parseServerTiming } from '../helpers/server-timing.js';

describe('the timings record', () => {
  it('writes each phase once, a description on the entry of the same name, in record order', () => {
    expect(
      serverTiming({ cache: 0.04, render: 8.25, wait: undefined, total: 9 }, { cache: 'MISS', encode: 'x' }),
    ).toBe('cache;dur=0.0;desc="MISS", render;dur=8.3, total;dur=9.0, encode;desc="x"');
    expect(serverTiming({})).toBe('');
  });

  it('logs exactly the numbers its Server-Timing header carries (what the log line used to parse back)', () => {
    const name = fc.constantFrom('cache', 'queue', 'layout', 'render', 'navigate', 'total', 'fetch');
    const ms = fc.oneof(
      fc.double({ min: 0, max: 1e6, noNaN: true }),
      fc.constant(undefined),
      fc.constant(Number.NaN),
    );
    fc.assert(
      fc.property(
        fc.dictionary(name, ms),
        fc.dictionary(name, fc.constantFrom('HIT', 'MISS', 'included in render')),
        (phases, notes) => {
          const record = { phases, notes, cache: null };
          expect(loggedTimings(record)).toEqual(parseServerTiming(serverTiming(phases, notes)));
        },
      ),
    );
  });

  it('reads back as a client would: durations only, descriptions left out', () => {
    expect(
      parseServerTiming('cache;dur=0.1, render;dur=8.2, encode;desc="included in render", cache;desc="MISS"'),
    ).toEqual({ cache: 0.1, render: 8.2 });
  });

  it('leaves out phases without a finite duration', () => {
    expect(
      loggedTimings({ phases: { a: 1.04, b: undefined, c: Number.NaN, d: 2.06 }, notes: {}, cache: 'HIT' }),
    ).toEqual({ a: 1, d: 2.1 });
  });
});

describe('single homes', () => {
  it('documents the Cache-Control a keyed card gets', () => {
    expect(TEMPLATE_CACHE_CONTROL).toBe('public, max-age=31536000, immutable');
  });

  it('rounds Retry-After up to whole seconds, never below one', () => {
    expect(retryAfterHeader(0.2)).toBe('1');
    expect(retryAfterHeader(0)).toBe('1');
    expect(retryAfterHeader(5)).toBe('5');
    expect(retryAfterHeader(59.01)).toBe('60');
  });
});
