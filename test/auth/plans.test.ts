import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertScreenshotAllowed, assertTemplateAllowed, loadPlans } from '../../src/auth/plans.js';
import { parseDuration, parseExpiry } from '../../src/cli/admin.js';
import { isAppError } from '../../src/errors.js';
import { TEMPLATE_NAMES } from '../../src/render/template/registry.js';

/** What the built-in free plan, and a plans-file plan that names none, may turn on. */
const FREE = [
  'selector',
  'waitForSelector',
  'delay',
  'darkMode',
  'hideSelectors',
  'scale',
  'format',
  'quality',
  // Issue 29: the PDF, reader and sign-in options cost no more than a plain capture (a PDF stops
  // at CARDSHOT_PDF_MAX_PAGES), so a plan without its own list has them.
  'paper',
  'landscape',
  'margin',
  'printBackground',
  'pageRanges',
  'media',
  'locale',
  'timezone',
  'reducedMotion',
  'css',
  'clip',
  'headers',
  'cookies',
  'basicAuth',
  'userAgent',
  'response',
  'ttl',
];

async function withFile(content: string, fn: (file: string) => void) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-plans-'));
  try {
    const file = path.join(dir, 'plans.json');
    await writeFile(file, content);
    fn(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const thrown = (fn: () => void) => {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('did not throw');
};

describe('plans', () => {
  it('has the documented defaults', () => {
    const plans = loadPlans(TEMPLATE_NAMES);
    expect(plans.get('free')).toEqual({
      name: 'free',
      templates: ['blog'],
      screenshots: { viewports: ['og'], concurrency: 1, queue: 2, options: FREE, maxPixels: 'viewport' },
      rateLimit: { requests: 60, windowSeconds: 60 },
      signedRateLimit: { requests: 60, windowSeconds: 60 },
      jobs: { maxItems: 100, concurrency: 1, maxWaiting: 1000, retentionDays: 1 },
    });
    expect(plans.get('pro')?.jobs).toEqual({
      maxItems: 10_000,
      concurrency: 8,
      maxWaiting: 50_000,
      retentionDays: 7,
    });
    expect(plans.get('pro')?.rateLimit).toEqual({ requests: 600, windowSeconds: 60 });
    expect(plans.get('pro')?.signedRateLimit).toEqual({ requests: 600, windowSeconds: 60 });
    expect(plans.get('pro')?.screenshots).toEqual({
      viewports: '*',
      concurrency: 4,
      queue: 8,
      options: '*',
      maxPixels: 40_000_000,
    });
  });

  it("reads screenshots.concurrency and queue; without them a plan keeps its built-in's or pro's share", async () => {
    await withFile(
      JSON.stringify({
        team: {
          templates: '*',
          screenshots: { viewports: '*', concurrency: 3 },
          rateLimit: { requests: 5000, windowSeconds: 3600 },
        },
        solo: {
          templates: '*',
          screenshots: { viewports: ['og'], queue: 0 },
          rateLimit: { requests: 50, windowSeconds: 60 },
        },
        // Written before the per-account share existed: not cut to one capture at a time.
        enterprise: {
          templates: '*',
          screenshots: { viewports: '*' },
          rateLimit: { requests: 50000, windowSeconds: 60 },
        },
        free: {
          templates: ['blog'],
          screenshots: { viewports: ['og', 'mobile'] },
          rateLimit: { requests: 60, windowSeconds: 60 },
        },
      }),
      (file) => {
        const plans = loadPlans(TEMPLATE_NAMES, file);
        const share = (concurrency: number, queue: number, maxPixels: number | 'viewport' = 40_000_000) => ({
          concurrency,
          queue,
          options: FREE,
          maxPixels,
        });
        expect(plans.get('team')?.screenshots).toEqual({ viewports: '*', ...share(3, 6) });
        expect(plans.get('solo')?.screenshots).toEqual({ viewports: ['og'], ...share(4, 0) });
        expect(plans.get('enterprise')?.screenshots).toEqual({ viewports: '*', ...share(4, 8) });
        expect(plans.get('free')?.screenshots).toEqual({
          viewports: ['og', 'mobile'],
          ...share(1, 2, 'viewport'),
        });
      },
    );
  });

  it('reads screenshots.maxPixels: "viewport" or a pixel count up to 40 million', async () => {
    const plan = (maxPixels: unknown) =>
      JSON.stringify({
        team: {
          templates: '*',
          screenshots: { viewports: '*', maxPixels },
          rateLimit: { requests: 50, windowSeconds: 60 },
        },
      });
    await withFile(plan('viewport'), (file) => {
      expect(loadPlans(TEMPLATE_NAMES, file).get('team')?.screenshots).toMatchObject({
        maxPixels: 'viewport',
      });
    });
    await withFile(plan(8_000_000), (file) => {
      expect(loadPlans(TEMPLATE_NAMES, file).get('team')?.screenshots).toMatchObject({
        maxPixels: 8_000_000,
      });
    });
    for (const bad of [0, 40_000_001, 1.5, 'all']) {
      await withFile(plan(bad), (file) => {
        expect(() => loadPlans(TEMPLATE_NAMES, file)).toThrow(
          'plan "team": screenshots.maxPixels must be "viewport" or an integer 1…40000000',
        );
      });
    }
  });

  it('merges a plans file over the defaults by name', async () => {
    await withFile(
      JSON.stringify({
        free: {
          templates: ['blog', 'product'],
          screenshots: false,
          rateLimit: { requests: 10, windowSeconds: 60 },
        },
        team: {
          templates: '*',
          screenshots: { viewports: ['og', 'desktop'] },
          rateLimit: { requests: 5000, windowSeconds: 3600 },
          jobs: { concurrency: 2 },
        },
      }),
      (file) => {
        const plans = loadPlans(TEMPLATE_NAMES, file);
        expect([...plans.keys()]).toEqual(['free', 'pro', 'team']);
        expect(plans.get('free')?.screenshots).toBe(false);
        expect(plans.get('team')?.rateLimit.windowSeconds).toBe(3600);
        // Left out: the signed-URL budget has rateLimit's numbers (counted apart).
        expect(plans.get('team')?.signedRateLimit).toEqual({ requests: 5000, windowSeconds: 3600 });
        // Jobs: a field given replaces pro's; the rest are pro's. A plan that names none keeps its own.
        expect(plans.get('team')?.jobs).toEqual({
          maxItems: 10_000,
          concurrency: 2,
          maxWaiting: 50_000,
          retentionDays: 7,
        });
        expect(plans.get('free')?.jobs.retentionDays).toBe(1);
      },
    );
  });

  it('refuses a bad plans file with a message naming the plan and the field', async () => {
    const cases: Array<[unknown, string]> = [
      [[], 'must hold a JSON object of plans by name'],
      [{ Gold: {} }, 'plan "Gold": names are lower-case'],
      [
        { gold: { templates: ['blogg'], screenshots: false, rateLimit: { requests: 1, windowSeconds: 1 } } },
        'unknown template "blogg"',
      ],
      [
        { gold: { templates: '*', screenshots: true, rateLimit: { requests: 1, windowSeconds: 1 } } },
        'screenshots must be false or',
      ],
      [
        { gold: { templates: '*', screenshots: false, rateLimit: { requests: 0, windowSeconds: 1 } } },
        'rateLimit must be',
      ],
      [
        {
          gold: {
            templates: '*',
            screenshots: false,
            rateLimit: { requests: 1, windowSeconds: 1 },
            signedRateLimit: { requests: 5 },
          },
        },
        'plan "gold": signedRateLimit must be { "requests": 1…1000000, "windowSeconds": 1…86400 }',
      ],
      [
        {
          gold: {
            templates: '*',
            screenshots: false,
            rateLimit: { requests: 1, windowSeconds: 1 },
            price: 1,
          },
        },
        'unknown field "price"',
      ],
      [
        {
          gold: {
            templates: '*',
            screenshots: { viewports: '*', concurrency: 0 },
            rateLimit: { requests: 1, windowSeconds: 1 },
          },
        },
        'plan "gold": screenshots.concurrency must be an integer 1…64',
      ],
      [
        {
          gold: {
            templates: '*',
            screenshots: { viewports: '*', queue: -1 },
            rateLimit: { requests: 1, windowSeconds: 1 },
          },
        },
        'plan "gold": screenshots.queue must be an integer 0…10000',
      ],
      [
        {
          gold: {
            templates: '*',
            screenshots: { viewports: '*', parallel: 2 },
            rateLimit: { requests: 1, windowSeconds: 1 },
          },
        },
        'screenshots has an unknown field "parallel"',
      ],
      [
        {
          gold: {
            templates: '*',
            screenshots: false,
            rateLimit: { requests: 1, windowSeconds: 1 },
            jobs: { maxItems: 10_001 },
          },
        },
        'plan "gold": jobs.maxItems must be an integer 1…10000',
      ],
      [
        {
          gold: {
            templates: '*',
            screenshots: false,
            rateLimit: { requests: 1, windowSeconds: 1 },
            jobs: { workers: 2 },
          },
        },
        'plan "gold": jobs has an unknown field "workers" (allowed: maxItems, concurrency, maxWaiting, retentionDays)',
      ],
      [
        {
          gold: {
            templates: '*',
            screenshots: { viewports: '*', options: 'all' },
            rateLimit: { requests: 1, windowSeconds: 1 },
          },
        },
        'plan "gold": screenshots.options must be "*" or a list of option names (fullPage, selector, waitForSelector, delay, darkMode, hideSelectors, blockAds, blockCookieBanners, scale, format, quality, paper, landscape, margin, printBackground, pageRanges, media, locale, timezone, reducedMotion, css, clip, headers, cookies, basicAuth, userAgent, response, ttl, fresh)',
      ],
      [
        {
          gold: {
            templates: '*',
            screenshots: { viewports: '*', options: ['fullPage', 'full_page'] },
            rateLimit: { requests: 1, windowSeconds: 1 },
          },
        },
        'plan "gold": screenshots.options has an unknown option "full_page" (known: fullPage,',
      ],
    ];
    for (const [doc, message] of cases) {
      await withFile(JSON.stringify(doc), (file) =>
        expect(thrown(() => loadPlans(TEMPLATE_NAMES, file)).message).toContain(message),
      );
    }
    await withFile('{', (file) =>
      expect(thrown(() => loadPlans(TEMPLATE_NAMES, file)).message).toContain(
        'CARDSHOT_PLANS_FILE: cannot read',
      ),
    );
  });

  it('knows the templates it is given: a registry with one more template lets a plan name it', async () => {
    const doc = {
      brand: {
        templates: ['blog', 'poster'],
        screenshots: false,
        rateLimit: { requests: 5, windowSeconds: 60 },
      },
    };
    await withFile(JSON.stringify(doc), (file) => {
      expect(loadPlans([...TEMPLATE_NAMES, 'poster'], file).get('brand')?.templates).toEqual([
        'blog',
        'poster',
      ]);
      expect(thrown(() => loadPlans(TEMPLATE_NAMES, file)).message).toBe(
        `${file}: plan "brand": unknown template "poster" (known: blog, product, saas)`,
      );
    });
  });

  it('checks templates and screenshot viewports with clear 403 messages', () => {
    const plans = loadPlans(TEMPLATE_NAMES);
    const free = plans.get('free')!;
    expect(() => assertTemplateAllowed(free, 'blog')).not.toThrow();
    const t = thrown(() => assertTemplateAllowed(free, 'saas'));
    expect(isAppError(t, 'forbidden') && t.message).toBe('Template not available on your plan');
    expect(() => assertScreenshotAllowed(free, 'og')).not.toThrow();
    expect(thrown(() => assertScreenshotAllowed(free, 'desktop')).message).toBe(
      'Viewport "desktop" is not available on your plan; use og',
    );
    expect(() => assertScreenshotAllowed(plans.get('pro')!, 'my-custom')).not.toThrow();
    const none = { ...free, screenshots: false as const };
    expect(thrown(() => assertScreenshotAllowed(none, 'og')).message).toBe(
      'Screenshots are not available on your plan',
    );
  });

  it('lets each plan turn on its screenshot options and names the first one it may not', async () => {
    const plans = loadPlans(TEMPLATE_NAMES);
    const free = plans.get('free')!;
    expect(() => assertScreenshotAllowed(free, 'og', ['darkMode', 'format', 'scale', 'ttl'])).not.toThrow();
    for (const option of ['fullPage', 'blockAds', 'blockCookieBanners', 'fresh'] as const) {
      const err = thrown(() => assertScreenshotAllowed(free, 'og', ['darkMode', option]));
      expect(isAppError(err, 'forbidden') && err.message).toBe(
        `Option "${option}" not available on your plan`,
      );
    }
    expect(() =>
      assertScreenshotAllowed(plans.get('pro')!, 'og', [
        'fullPage',
        'blockAds',
        'blockCookieBanners',
        'fresh',
      ]),
    ).not.toThrow();
    await withFile(
      JSON.stringify({
        pages: {
          templates: '*',
          screenshots: { viewports: '*', options: ['fullPage', 'fullPage', 'format'] },
          rateLimit: { requests: 60, windowSeconds: 60 },
        },
        everything: {
          templates: '*',
          screenshots: { viewports: '*', options: '*' },
          rateLimit: { requests: 60, windowSeconds: 60 },
        },
      }),
      (file) => {
        const loaded = loadPlans(TEMPLATE_NAMES, file);
        const pages = loaded.get('pages')!;
        expect(pages.screenshots ? pages.screenshots.options : 'none').toEqual(['fullPage', 'format']);
        expect(() => assertScreenshotAllowed(pages, 'og', ['fullPage', 'format'])).not.toThrow();
        expect(thrown(() => assertScreenshotAllowed(pages, 'og', ['fullPage', 'darkMode'])).message).toBe(
          'Option "darkMode" not available on your plan',
        );
        const all = loaded.get('everything')!;
        expect(all.screenshots ? all.screenshots.options : 'none').toBe('*');
      },
    );
  });
});

describe('CLI durations', () => {
  it('reads 90s, 15m, 24h, 30d, 2w, 1y and ISO dates', () => {
    expect(parseDuration('24h', 'x')).toBe(86_400_000);
    expect(parseDuration('90s', 'x')).toBe(90_000);
    expect(parseDuration('2w', 'x')).toBe(14 * 86_400_000);
    expect(parseExpiry('30d', 1000)).toBe(1000 + 30 * 86_400_000);
    expect(parseExpiry('2027-01-01T00:00:00Z')).toBe(Date.UTC(2027, 0, 1));
    expect(thrown(() => parseDuration('soon', '--grace')).message).toBe(
      '--grace must be a duration such as 90s, 15m, 24h, 30d, 2w or 1y (got "soon")',
    );
  });
});
