import { runInNewContext } from 'node:vm';
import type { Request as FilterRequest, FiltersEngine, RequestType } from '@ghostery/adblocker';
import type { Frame, Request } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureLists } from '../../../src/render/screenshot/blocking/build.js';
import { settled, snippetExpression } from '../../../src/render/screenshot/blocking/consent.js';
import { rulesFor, splitStyles } from '../../../src/render/screenshot/blocking/cosmetics.js';
import { defaultBlockingConfig } from '../../../src/render/screenshot/blocking/index.js';
import { type ListsManifest, loadEngine } from '../../../src/render/screenshot/blocking/lists.js';
import { judge } from '../../../src/render/screenshot/blocking/network.js';

// The blocking policy without Chromium: the real engines built from the bundled lists, and
// requests and frames shaped like Playwright's.

const NEWS = 'https://www.news.example/article';
let ads: FiltersEngine;
let cookies: FiltersEngine;
let manifest: ListsManifest | undefined;
let make: (d: { url: string; sourceUrl?: string; type?: RequestType }) => FilterRequest;

beforeAll(async () => {
  const dir = defaultBlockingConfig().listsDir;
  manifest = await ensureLists(dir, () => {});
  [ads, cookies] = await Promise.all([loadEngine(dir, 'ads'), loadEngine(dir, 'cookieBanners')]);
  const { Request } = await import('@ghostery/adblocker');
  make = (d) => Request.fromRawDetails(d);
});

function frame(url: string, parent: Frame | null = null): Frame {
  return { url: () => url, parentFrame: () => parent } as unknown as Frame;
}

function request(url: string, type: string, from: Frame | 'service-worker'): Request {
  return {
    url: () => url,
    resourceType: () => type,
    frame: () => {
      if (from === 'service-worker')
        throw new Error('Service Worker requests do not have an associated frame.');
      return from;
    },
  } as unknown as Request;
}

describe('which requests blockAds blocks', () => {
  const page = frame(NEWS);

  it('blocks ad and tracker hosts and ad paths of any type, and leaves the page its own resources', () => {
    for (const [url, type] of [
      ['https://pagead2.googlesyndication.com/pagead/js/adsbygoogle.js', 'script'],
      ['https://securepubads.g.doubleclick.net/tag/js/gpt.js', 'script'],
      ['https://c.amazon-adsystem.com/aax2/apstag.js', 'script'],
      ['https://sb.scorecardresearch.com/beacon.js', 'script'],
      ['https://static.hotjar.com/c/hotjar-1.js', 'script'],
      ['https://www.news.example/ads/banners/top.png', 'image'],
    ]) {
      expect(judge(request(url!, type!, page), [ads], make), url).toEqual({ kind: 'block' });
    }
    for (const [url, type] of [
      ['https://www.news.example/static/app.js', 'script'],
      ['https://cdn.news.example/photos/lead.jpg', 'image'],
      ['https://fonts.news.example/inter.woff2', 'font'],
    ]) {
      expect(judge(request(url!, type!, page), [ads], make), url).toBeUndefined();
    }
  });

  it('never blocks the page itself, even at an ad host, but judges a frame by the page embedding it', () => {
    const adUrl = 'https://ads.pubmatic.com/AdServer/frame';
    expect(judge(request(adUrl, 'document', frame(adUrl)), [ads], make)).toBeUndefined();
    expect(judge(request(adUrl, 'document', frame(adUrl, page)), [ads], make)).toEqual({ kind: 'block' });
  });

  it('applies third-party rules by the document that asked: a tag is blocked on a news page, not at home', () => {
    // ||criteo.net^$third-party
    const tag = 'https://static.criteo.net/js/ld/publishertag.js';
    expect(judge(request(tag, 'script', page), [ads], make)).toEqual({ kind: 'block' });
    expect(judge(request(tag, 'script', frame('https://www.criteo.net/')), [ads], make)).toBeUndefined();
  });

  it("answers a redirect rule with the list's harmless stand-in instead of an error", () => {
    const verdict = judge(
      request('https://www.google-analytics.com/analytics.js', 'script', page),
      [ads],
      make,
    );
    expect(verdict).toMatchObject({ kind: 'stub', contentType: 'text/plain' });
    expect(verdict?.kind === 'stub' && verdict.body.length).toBe(0);
  });

  it('judges a request without a frame (a service worker) by its URL alone', () => {
    const url = 'https://pagead2.googlesyndication.com/pagead/js/adsbygoogle.js';
    expect(judge(request(url, 'script', 'service-worker'), [ads], make)).toEqual({ kind: 'block' });
  });

  it('blockCookieBanners blocks consent-manager scripts loaded from their own hosts, not ads', () => {
    const cmp = request('https://cdn.cookielaw.org/scripttemplates/otSDKStub.js', 'script', page);
    expect(judge(cmp, [cookies], make)).toEqual({ kind: 'block' });
    expect(judge(cmp, [ads], make)).toBeUndefined();
    const ad = request('https://c.amazon-adsystem.com/aax2/apstag.js', 'script', page);
    expect(judge(ad, [cookies], make)).toBeUndefined();
  });
});

describe('which elements are hidden', () => {
  it("gives each list's rules for the ids and classes a page has", () => {
    const hints = { ids: ['ad_banner', 'main'], classes: ['banner-ad', 'article'], hrefs: [] };
    const selectors = rulesFor(NEWS, hints, [ads], make).flatMap(([s]) => s);
    expect(selectors).toEqual(expect.arrayContaining(['#ad_banner', '.banner-ad']));
    expect(selectors).not.toContain('#main');
    const banners = rulesFor(
      NEWS,
      { ids: ['cookie-banner'], classes: ['cookie-notice:not(x)'], hrefs: [] },
      [cookies],
      make,
    );
    expect(banners.flatMap(([s]) => s)).toContain('#cookie-banner');
    expect(banners.every(([, body]) => body === 'display: none !important;')).toBe(true);
  });

  it('splits the engine stylesheet into rules, one selector per entry', () => {
    const css = '#a,\n.b[x="1,2"],\ndiv > .c { display: none !important; }\n\n.d:style(x) { color: red; }';
    expect(splitStyles(css)).toEqual([
      [['#a', '.b[x="1,2"]', 'div > .c'], 'display: none !important;'],
      [['.d:style(x)'], 'color: red;'],
    ]);
  });
});

describe('when a page is done with its consent pop-up', () => {
  const at = (lifecycle: string, attempts = 1, since = 0, mainFrame = true) => ({
    lifecycle,
    attempts,
    since,
    mainFrame,
  });

  it('waits while the top document has not searched yet, or a frame is refusing', () => {
    expect(settled([], undefined, 0, 10_000)).toBe(false);
    for (const busy of ['loading', 'waitingForInitResponse', 'initialized', 'started']) {
      // Just started its first search, or not even that.
      const main = at(busy, busy === 'started' ? 1 : 0, 10_000);
      expect(settled([main], main, 0, 10_000), busy).toBe(false);
    }
    const main = at('nothingDetected');
    for (const working of ['cmpDetected', 'openPopupDetected', 'runningOptOut']) {
      expect(settled([main, at(working, 1, 0, false)], main, 0, 10_000), working).toBe(false);
    }
  });

  it('is done when the top document finished, or began its search and went quiet for 150 ms', () => {
    for (const done of ['nothingDetected', 'done', 'optOutSucceeded', 'optOutFailed']) {
      const main = at(done);
      expect(settled([main, at('started', 1, 0, false)], main, 9_999, 10_000), done).toBe(true);
    }
    const searching = at('started', 1, 10_000);
    expect(settled([searching], searching, 0, 10_100)).toBe(false);
    expect(settled([searching], searching, 0, 10_150)).toBe(true);
    // Still answering its script checks: not quiet yet.
    expect(settled([searching], searching, 10_100, 10_200)).toBe(false);
    expect(settled([searching], searching, 10_100, 10_250)).toBe(true);
    expect(settled([searching], { ...searching, attempts: 0 }, 0, 20_000)).toBe(false);
  });
});

describe("the consent rules' snippets", () => {
  const snippets = { EVAL_COOKIEBOT_1: () => !!(globalThis as { Cookiebot?: unknown }).Cookiebot };

  it('runs a snippet the package has, by its id, as a boolean that a throw turns into false', () => {
    const expression = snippetExpression(snippets, 'EVAL_COOKIEBOT_1');
    expect(expression).toContain('Cookiebot');
    // In a fresh context with no Cookiebot: the snippet throws nothing and answers false.
    expect(runInNewContext(expression!, {})).toBe(false);
    expect(runInNewContext(expression!, { Cookiebot: {} })).toBe(true);
  });

  it('never turns anything else a message names into code', () => {
    for (const id of [
      'EVAL_UNKNOWN',
      'constructor',
      '__proto__',
      'toString',
      'hasOwnProperty',
      42,
      undefined,
      null,
    ]) {
      expect(snippetExpression(snippets, id), String(id)).toBeUndefined();
    }
  });
});

describe('the lists set-up built', () => {
  it('names each list with its version, and both engines hold their filters', () => {
    expect(manifest?.packages).toEqual({
      '@adguard/dnr-rulesets': '3.3.20260320140136',
      '@ghostery/adblocker': '2.18.2',
    });
    expect(manifest?.lists.map((l) => [l.engine, l.title])).toEqual([
      ['ads', 'AdGuard Base filter'],
      ['ads', 'AdGuard Tracking Protection filter'],
      ['cookieBanners', 'AdGuard Cookie Notices filter'],
    ]);
    for (const list of manifest?.lists ?? []) expect(list.version).toMatch(/^\d+(\.\d+)+$/);
    expect(manifest?.engines.ads.networkFilters).toBeGreaterThan(100_000);
    expect(manifest?.engines.ads.cosmeticFilters).toBeGreaterThan(10_000);
    expect(manifest?.engines.cookieBanners.cosmeticFilters).toBeGreaterThan(5_000);
  });

  it('is not rebuilt while the packages are the same', async () => {
    const started = performance.now();
    const again = await ensureLists(defaultBlockingConfig().listsDir, () => {});
    expect(again?.builtAt).toBe(manifest?.builtAt);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
