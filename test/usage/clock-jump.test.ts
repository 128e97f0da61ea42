import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';

// Issue 16 §5: a clock jump. Usage is counted per UTC day of the node's wall clock at the
// moment of the request (a day is a calendar fact, not a duration), and counts add up: a jump
// over midnight and back loses nothing. Rate-limit windows are durations and do not stretch
// (test/ratelimit/limiter-contract.test.ts 'when the wall clock jumps').
let t: TestApp;
let clock: FakeClock;
beforeAll(async () => {
  clock = fakeClock(Date.UTC(2026, 0, 15, 23, 59, 50));
  t = await startTestApp({}, { clock });
});
afterAll(async () => t?.close());

const card = async (title: string) =>
  (
    await t.inject({
      method: 'GET',
      url: `/render/template?${new URLSearchParams({ template: 'blog', title })}`,
    })
  ).statusCode;

describe('a wall clock that jumps over midnight and back', () => {
  it('counts each request on the day the clock showed, and every request is counted', async () => {
    expect(await card('Before midnight 1')).toBe(200);
    expect(await card('Before midnight 2')).toBe(200);
    clock.set(Date.UTC(2026, 0, 16, 0, 0, 10)); // forward over midnight
    expect(await card('After midnight')).toBe(200);
    clock.set(Date.UTC(2026, 0, 15, 23, 59, 55)); // stepped back (NTP correction)
    expect(await card('Before midnight again')).toBe(200);
    await t.modules.usage.flush();
    const rows = await t.store.usage(t.account.id, '2026-01-15', '2026-01-16');
    const count = (day: string) =>
      rows.filter((r) => r.day === day && r.kind === 'template').reduce((s, r) => s + r.count, 0);
    expect(count('2026-01-15')).toBe(3);
    expect(count('2026-01-16')).toBe(1);
  });
});
