import { describe, expect, it } from 'vitest';
import { DEFAULT_PLANS } from '../../../src/auth/plans.js';
import { createMemoryCache } from '../../../src/cache/memory.js';
import type { AppError } from '../../../src/errors.js';
import type {
  CaptureJob,
  CaptureTerms,
  ScreenshotEngine,
} from '../../../src/render/screenshot/engine/engine.js';
import type { ScreenshotRequest } from '../../../src/render/screenshot/request.js';
import { createScreenshotService } from '../../../src/render/screenshot/service/service.js';
import { viewportCatalogue } from '../../../src/render/screenshot/viewports.js';
import { capturedLogger } from '../../helpers/logs.js';

// The seam between the screenshot service and its engine (issue 29 §0): the service turns a
// plan into what the engine needs, and asks for a capture whose last step it names. An engine
// that records what it is handed shows that no plan crosses the seam.

const viewports = viewportCatalogue([]);
const og = viewports.get('og')!;
const free = DEFAULT_PLANS.find((p) => p.name === 'free')!;
const pro = DEFAULT_PLANS.find((p) => p.name === 'pro')!;

function recordingEngine() {
  const calls: Array<{ job: CaptureJob; terms: CaptureTerms }> = [];
  const engine: ScreenshotEngine = {
    executablePath: '/fake/chromium',
    available: () => true,
    capture: async (job, terms) => {
      calls.push({ job, terms });
      return {
        image: Buffer.from(`img ${calls.length}`),
        format: 'png',
        targetStatus: 200,
        finalUrl: job.url,
        timings: {},
      };
    },
    status: () => ({
      installed: true,
      executablePath: '/fake/chromium',
      browser: {} as never,
      queue: { active: 0, waiting: 0, concurrency: 1 },
    }),
    warm: async () => {},
  };
  const service = createScreenshotService(
    { timeoutMs: 2000, cacheShared: false, cacheTtlSeconds: 0, errorTtlSeconds: 0, viewports },
    {
      cache: createMemoryCache({ maxBytes: 1e6 }),
      log: capturedLogger().log,
      guard: { check: async () => ({}) as never },
      engine,
    },
  );
  return { service, calls };
}

/** Every key anywhere in `value`, nested. */
function keysOf(value: unknown, out = new Set<string>()): Set<string> {
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keysOf(v, out);
    }
  }
  return out;
}

describe('the engine seam', () => {
  it("hands the engine the owner's label, queue share and pixel bound, never the plan", async () => {
    const { service, calls } = recordingEngine();
    const req: ScreenshotRequest = { url: 'https://a.test/', viewport: og, waitUntil: 'load' };
    await service.resolve(req, { owner: { accountId: 'acc_a', plan: free } });
    const { job, terms } = calls[0]!;
    expect(job).toEqual({ ...req, last: 'viewport-image' });
    const shots = free.screenshots as Exclude<typeof free.screenshots, false>;
    expect(terms.owner).toEqual({
      label: 'free',
      share: {
        id: 'acc_a',
        concurrency: shots.concurrency,
        maxWaiting: shots.queue,
        overShare: expect.any(Function),
      },
    });
    // free's maxPixels is `viewport`: og at scale 1.
    expect(terms.maxPixels).toBe(1200 * 630);
    expect(keysOf(terms).has('plan')).toBe(false);
    expect(keysOf(terms).has('screenshots')).toBe(false);
    const over = terms.owner!.share!.overShare!() as AppError;
    expect([over.code, over.message, over.retryAfter]).toEqual([
      'rate_limited',
      `Too many screenshots in progress for your account: your plan allows ${shots.concurrency} at a time; retry when one has finished`,
      2,
    ]);
  });

  it('names the last step the options ask for: the viewport image without options, the area image with them', async () => {
    const { service, calls } = recordingEngine();
    await service.resolve({ url: 'https://a.test/', viewport: og, waitUntil: 'load' });
    await service.resolve({
      url: 'https://a.test/',
      viewport: og,
      waitUntil: 'load',
      options: { darkMode: true },
    });
    await service.capture({
      url: 'https://b.test/',
      viewport: og,
      waitUntil: 'load',
      options: { fullPage: true },
    });
    expect(calls.map((c) => c.job.last)).toEqual(['viewport-image', 'area-image', 'area-image']);
  });

  it('gives a plan without screenshots a label and no share, and a request without an account neither', async () => {
    const { service, calls } = recordingEngine();
    const noShots = { ...pro, name: 'templates-only', screenshots: false as const };
    await service.resolve(
      { url: 'https://a.test/', viewport: og, waitUntil: 'load' },
      { owner: { accountId: 'acc_b', plan: noShots } },
    );
    await service.resolve({ url: 'https://c.test/', viewport: og, waitUntil: 'load' });
    expect(calls.map((c) => c.terms.owner)).toEqual([{ label: 'templates-only' }, undefined]);
    expect(calls[1]!.terms.maxPixels).toBe(40_000_000);
  });
});
