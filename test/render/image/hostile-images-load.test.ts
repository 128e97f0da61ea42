// @module-tag slow
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { hostileFlood } from '../../helpers/hostile-flood.js';
import { type HostileImageServer, startHostileImageServer } from '../../helpers/hostile-images.js';

// Issue 26 §1's target: 60 hostile images at once (imageUrl scan bombs from a pro key, scan-bomb
// and text-chunk logo uploads from a free account) leave the node's memory where it was, the
// victim's cards near their idle time and its sign-in (scrypt at full cost) under a second.
// Before the fix one such JPEG was 6.4 s of CPU here and two held both render slots; a victim's
// 17 ms card took ~10 s and a sign-in 41.9 s. Wall-clock bounds: in vitest.config.ts's TIMING.
let t: TestApp;
let fx: HostileImageServer;

beforeAll(async () => {
  fx = await startHostileImageServer();
  t = await startTestApp({ allowPrivateHosts: [fx.hostPort] }, { fullPasswordCost: true });
});
afterAll(async () => {
  await t?.close();
  await fx?.close();
});

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

it('a flood of hostile images: node RSS within 200 MB, victim cards within 2× idle, sign-in under 1 s', async () => {
  const f = await hostileFlood(t, fx, 30);
  expect(Object.keys(f.statuses).every((s) => s === '422' || s === '429')).toBe(true);
  expect(f.statuses[422]).toBeGreaterThanOrEqual(21);
  expect(f.rssAfter - f.rssBefore, `RSS +${Math.round((f.rssAfter - f.rssBefore) / 1e6)} MB`).toBeLessThan(
    200 * 1e6,
  );
  // 2× the idle p50 (the target), plus 20 ms: the flood's own HTTP work shares this process
  // with the victim, and other suites share the 2 cores (the bench measures the ratio alone).
  // Before the fix the victim's cards took ~10 s, so the bound still fails by far on a regression.
  const figures = `idle p50 ${p50(f.idle).toFixed(1)} ms, under the flood ${p50(f.loaded).toFixed(1)} ms`;
  expect(p50(f.loaded), figures).toBeLessThan(2 * p50(f.idle) + 20);
  expect(f.floodSignInMs, `sign-in ${Math.round(f.floodSignInMs)} ms`).toBeLessThan(1000);
  expect(t.modules.artwork.decoder.stats().killed).toBe(0);
});
