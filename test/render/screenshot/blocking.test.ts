// @module-tag chromium
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { ensureLists } from '../../../src/render/screenshot/blocking/build.js';
import {
  type Blocker,
  type BlockingOptions,
  createBlocker,
  defaultBlockingConfig,
} from '../../../src/render/screenshot/blocking/index.js';
import {
  AD_REQUESTS,
  type AdSite,
  ALL_HOSTS,
  OWN_REQUESTS,
  SITE,
  startAdSite,
} from '../../helpers/ad-site.js';
import { chromiumAvailable } from '../../helpers/browser.js';
import { capturedLogger } from '../../helpers/logs.js';
import { closeCapture, type ProxiedBrowser, startProxiedBrowser } from '../../helpers/proxied-browser.js';

const WHITE = [255, 255, 255];
const RED = [255, 0, 0];
const GREEN = [0, 255, 0];
const BLUE = [0, 0, 255];

/** RGB at (x, y) of a screenshot. */
async function colorsOf(png: Buffer) {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return (x: number, y: number) => {
    const i = (y * info.width + x) * 3;
    return [data[i], data[i + 1], data[i + 2]];
  };
}

describe.skipIf(!chromiumAvailable())(
  'blocking engine (blockAds, blockCookieBanners) in real Chromium',
  () => {
    let site: AdSite;
    let browser: ProxiedBrowser;
    let blocker: Blocker;
    const logs = capturedLogger({ logLevel: 'debug', nodeEnv: 'test' });

    beforeAll(async () => {
      // What `npm run setup` does; a no-op when the engines are already built for these packages.
      await ensureLists(defaultBlockingConfig().listsDir, () => {});
      site = await startAdSite();
      browser = await startProxiedBrowser(ALL_HOSTS, site.port);
      blocker = await createBlocker(defaultBlockingConfig(), { log: logs.log });
    });
    afterAll(async () => {
      await blocker?.close();
      await browser?.close();
      await site?.close();
    });

    /**
     * Loads `path` in a fresh capture context, with the blocking attached as the capture path
     * attaches it (after the lease, before navigation; `beforeCapture` right before the shot),
     * and returns the screenshot and the requests the site saw.
     */
    async function capture(
      pathname: string,
      opts?: BlockingOptions,
      inspect?: (page: Page) => Promise<void>,
    ) {
      const ctx = await browser.open();
      site.log.length = 0;
      try {
        const blocking = opts ? await blocker.attach(ctx.page, opts) : undefined;
        await ctx.page.goto(site.url(pathname), { waitUntil: 'load' });
        await blocking?.beforeCapture();
        const png = await ctx.page.screenshot();
        if (process.env.BLOCKING_SHOTS) {
          const name = `${pathname.replace(/\W+/g, '_')}-${opts ? `${opts.ads ? 'ads' : ''}${opts.cookieBanners ? 'cookies' : ''}` : 'none'}.png`;
          writeFileSync(path.join(process.env.BLOCKING_SHOTS, name), png);
        }
        await inspect?.(ctx.page);
        await blocking?.detach();
        return { png, color: await colorsOf(png), seen: [...site.log] };
      } finally {
        await closeCapture(ctx);
      }
    }

    const ADS = { ads: true, cookieBanners: false };
    const COOKIES = { ads: false, cookieBanners: true };

    it('without blocking, every ad and tracker of the fixture loads and paints (the control)', async () => {
      const { png, color } = await capture('/article');
      for (const r of [...AD_REQUESTS, ...OWN_REQUESTS])
        expect(site.hits(r.host, r.path), `${r.host}${r.path}`).toBe(1);
      // The ad script painted over the content; every ad slot is red, in the page's own frame too.
      expect(color(550, 50)).toEqual(RED);
      expect(color(550, 500)).toEqual(RED);
      expect(color(550, 550)).toEqual(BLUE);
      for (const [x, y] of [
        [150, 170],
        [550, 170],
        [150, 290],
        [550, 290],
        [150, 410],
        [550, 410],
      ] as const) {
        expect(color(x, y), `${x},${y}`).toEqual(RED);
      }
      expect(png.length).toBeGreaterThan(0);
    });

    it('blockAds: ad and tracker requests never reach their hosts, the page keeps its own, and ad slots are hidden', async () => {
      let appLoaded: unknown;
      const { color } = await capture('/article', ADS, async (page) => {
        appLoaded = await page.evaluate('window.appLoaded');
      });
      for (const r of AD_REQUESTS) expect(site.hits(r.host, r.path), `${r.host}${r.path}`).toBe(0);
      for (const r of OWN_REQUESTS) expect(site.hits(r.host, r.path), `${r.host}${r.path}`).toBe(1);
      expect(appLoaded).toBe(true);
      expect(color(150, 50)).toEqual(BLUE); // the page's own image
      expect(color(550, 50)).toEqual(BLUE); // its content, with no ad script painting over it
      // The slot in the site's own frame is hidden there, the frame's content moves up into its place.
      expect(color(550, 500)).toEqual(BLUE);
      expect(color(550, 560)).toEqual(WHITE);
      // Blocked image and frame collapsed (no broken-image box, no "blocked" page), and the
      // #ad_banner, ins.adsbygoogle and .banner-ad slots hidden by the list's element rules.
      for (const [x, y] of [
        [150, 170],
        [550, 170],
        [150, 290],
        [550, 290],
        [150, 410],
        [550, 410],
      ] as const) {
        expect(color(x, y), `${x},${y}`).toEqual(WHITE);
      }
    });

    it('blockAds hides ad slots on a page whose Content-Security-Policy forbids inline styles', async () => {
      const { color, seen } = await capture('/strict', ADS);
      expect(seen).toContain(`${SITE} /static/site.css`);
      expect(color(150, 50)).toEqual(BLUE);
      expect(color(150, 170)).toEqual(WHITE);
    });

    it('blockCookieBanners: OneTrust is refused (its "Reject All" handler ran) and the banner is gone', async () => {
      const before = await capture('/consent/onetrust');
      expect(before.color(400, 500)).toEqual(GREEN);
      expect(before.seen.filter((l) => l.includes('/consent-record'))).toEqual([]);

      const { color, seen } = await capture('/consent/onetrust', COOKIES);
      expect(seen.filter((l) => l.includes('/consent-record'))).toEqual([
        `${SITE} /consent-record?onetrust-reject`,
      ]);
      expect(color(400, 500)).toEqual(WHITE);
      // The dark overlay went with it: the content is its own blue again.
      expect(color(400, 100)).toEqual(BLUE);
    });

    it('blockCookieBanners: Cookiebot, found through its script API, is refused with "Deny"', async () => {
      const before = await capture('/consent/cookiebot');
      expect(before.color(400, 500)).toEqual(GREEN);

      const { color, seen } = await capture('/consent/cookiebot', COOKIES);
      expect(seen.filter((l) => l.includes('/consent-record'))).toEqual([
        `${SITE} /consent-record?cookiebot-decline`,
      ]);
      expect(color(400, 500)).toEqual(WHITE);
      expect(color(400, 100)).toEqual(BLUE);
    });

    it('blockCookieBanners hides a cookie notice no consent manager runs, by the cookie-notice list', async () => {
      const before = await capture('/consent/generic');
      expect(before.color(400, 520)).toEqual(GREEN);

      const { color } = await capture('/consent/generic', COOKIES);
      expect(color(400, 520)).toEqual(WHITE);
      expect(color(400, 100)).toEqual(BLUE);
    });

    it('blockCookieBanners alone leaves ads alone (each option is its own list)', async () => {
      await capture('/article', COOKIES);
      for (const r of AD_REQUESTS) expect(site.hits(r.host, r.path), `${r.host}${r.path}`).toBe(1);
    });

    it('with both options off, attaching installs nothing: ads load, no binding, no engine loaded', async () => {
      const quiet = capturedLogger({ logLevel: 'debug', nodeEnv: 'test' });
      const fresh = await createBlocker(defaultBlockingConfig(), { log: quiet.log });
      const ctx = await browser.open();
      site.log.length = 0;
      try {
        const blocking = await fresh.attach(ctx.page, { ads: false, cookieBanners: false });
        await ctx.page.goto(site.url('/article'), { waitUntil: 'load' });
        await blocking.beforeCapture();
        for (const r of AD_REQUESTS) expect(site.hits(r.host, r.path), `${r.host}${r.path}`).toBe(1);
        expect(await ctx.page.evaluate('typeof window.autoconsentSendMessage')).toBe('undefined');
        await blocking.detach();
        expect(quiet.lines).toEqual([]);
      } finally {
        await closeCapture(ctx);
        await fresh.close();
      }
    });

    it('detach takes the request handler off: the same page then loads ads again', async () => {
      const ctx = await browser.open();
      try {
        const blocking = await blocker.attach(ctx.page, ADS);
        site.log.length = 0;
        await ctx.page.goto(site.url('/article'), { waitUntil: 'load' });
        expect(site.hits('pagead2.googlesyndication.com', '/pagead/imgad')).toBe(0);
        await blocking.detach();
        site.log.length = 0;
        await ctx.page.goto(site.url('/article'), { waitUntil: 'load' });
        expect(site.hits('pagead2.googlesyndication.com', '/pagead/imgad')).toBe(1);
        const detached = logs.lines.filter((l) => l.msg === 'blocking detached').at(-1);
        expect(detached).toMatchObject({ blockedRequests: 5, ads: true, cookieBanners: false });
      } finally {
        await closeCapture(ctx);
      }
    });

    it('waits for the consent manager at most consentWaitMs; the cookie list hides its banner meanwhile', async () => {
      const brief = await createBlocker(
        { ...defaultBlockingConfig(), consentWaitMs: 200 },
        { log: logs.log },
      );
      const ctx = await browser.open();
      try {
        const blocking = await brief.attach(ctx.page, COOKIES);
        await ctx.page.goto(site.url('/consent/onetrust'), { waitUntil: 'domcontentloaded' });
        const started = performance.now();
        await blocking.beforeCapture();
        // 0.2 s of waiting and one hiding pass; OneTrust's refusal alone waits 0.5 s before its click.
        expect(performance.now() - started).toBeLessThan(600);
        const color = await colorsOf(await ctx.page.screenshot());
        expect(color(400, 500)).toEqual(WHITE);
        expect(color(400, 100)).toEqual(BLUE);
        await blocking.detach();
      } finally {
        await closeCapture(ctx);
        await brief.close();
      }
    });

    it('does nothing that would run past the request deadline', async () => {
      const ctx = await browser.open();
      try {
        // Less than the half second the hiding keeps for the capture is left by the time the page is in.
        const blocking = await blocker.attach(ctx.page, {
          ads: true,
          cookieBanners: true,
          deadline: Date.now() + 400,
        });
        await ctx.page.goto(site.url('/consent/onetrust'), { waitUntil: 'domcontentloaded' });
        const started = performance.now();
        await blocking.beforeCapture();
        expect(performance.now() - started).toBeLessThan(100);
        await blocking.detach();
      } finally {
        await closeCapture(ctx);
      }
    });

    it("runs autoconsent out of the page's reach: the page sees neither it nor its channel to us", async () => {
      const ctx = await browser.open();
      site.log.length = 0;
      try {
        const blocking = await blocker.attach(ctx.page, COOKIES);
        await ctx.page.goto(site.url('/consent/cookiebot'), { waitUntil: 'load' });
        await blocking.beforeCapture();
        // Refused (found through Cookiebot's script API, which runs in the page's own world) ...
        expect(site.log.filter((l) => l.includes('/consent-record'))).toEqual([
          `${SITE} /consent-record?cookiebot-decline`,
        ]);
        // ... while the page's world has no autoconsent, no binding and no Playwright binding to call.
        const seen =
          await ctx.page.evaluate(`[typeof window.autoconsentSendMessage, typeof window.autoconsentReceiveMessage,
          typeof window.cardshotConsentMessage, typeof window.__playwright__binding__,
          Object.getOwnPropertyNames(window).filter((n) => /consent|binding/i.test(n)).join()]`);
        expect(seen).toEqual(['undefined', 'undefined', 'undefined', 'undefined', '']);
        await blocking.detach();
      } finally {
        await closeCapture(ctx);
      }
    });

    it('answers 503 naming the option when set-up has not built the lists', async () => {
      const empty = mkdtempSync(path.join(os.tmpdir(), 'cardshot-lists-'));
      const unbuilt = await createBlocker({ ...defaultBlockingConfig(), listsDir: empty }, { log: logs.log });
      const ctx = await browser.open();
      try {
        for (const [opts, name] of [
          [ADS, 'blockAds'],
          [COOKIES, 'blockCookieBanners'],
        ] as const) {
          const err = await unbuilt.attach(ctx.page, opts).catch((e: unknown) => e);
          expect(err).toBeInstanceOf(AppError);
          expect(err).toMatchObject({
            code: 'unavailable',
            message: `${name} is not available on this server: its filter lists are not built (run \`npm run setup\`)`,
          });
        }
      } finally {
        await closeCapture(ctx);
        await unbuilt.close();
        rmSync(empty, { recursive: true, force: true });
      }
    });
  },
);
