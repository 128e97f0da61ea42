import { describe, expect, it } from 'vitest';
import { eventBody } from '../../src/webhooks/events.js';
import { backoffMs, retryAfterMs } from '../../src/webhooks/schedule.js';

describe('retry schedule', () => {
  it('triples from 10 s up to 2 h, each delay within ±20%', () => {
    const mid = [1, 2, 3, 4, 8, 30].map((n) => backoffMs(n, () => 0.5));
    expect(mid).toEqual([10_000, 30_000, 90_000, 270_000, 7_200_000, 7_200_000]);
    expect(backoffMs(1, () => 0)).toBe(8_000);
    expect(backoffMs(1, () => 0.999_999)).toBe(12_000);
    // Attempts in 24 h at the middle of the jitter: the "retries for 24 h".
    let t = 0;
    let attempts = 1;
    while (t + backoffMs(attempts, () => 0.5) <= 24 * 3_600_000) t += backoffMs(attempts++, () => 0.5);
    expect(attempts).toBe(18);
  });

  it('reads Retry-After as seconds or an HTTP date; ignores anything else', () => {
    const now = Date.UTC(2026, 0, 15, 12, 0, 0);
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs(['5', '9'], now)).toBe(5000);
    expect(retryAfterMs('Thu, 15 Jan 2026 12:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('Thu, 15 Jan 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-5', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});

describe('event bodies', () => {
  it('are {"type","timestamp","data"} and refused at 20 KB', () => {
    const at = Date.UTC(2026, 0, 15, 12, 0, 0);
    expect(eventBody('job.completed', { id: 'job_1' }, at)).toBe(
      '{"type":"job.completed","timestamp":"2026-01-15T12:00:00.000Z","data":{"id":"job_1"}}',
    );
    expect(() => eventBody('job.completed', { blob: 'x'.repeat(20 * 1024) }, at)).toThrow(
      /^a job\.completed webhook body would be \d+ bytes; events must stay under 20 KB \(links, not content\)$/,
    );
  });
});
