// @module-tag chromium
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/errors.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';

// What a caller hears when an option is wrong (400, before any plan, rate limit or browser),
// not on its plan (403), or cannot be met by the page (422, 504): every body exactly.
let t: TestApp;
let pages: PageServer;
let freeKey: string;

const shot = (query: Record<string, string | string[]>, key?: string, app: TestApp = t) => {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const v of Array.isArray(value) ? value : [value]) params.append(name, v);
  }
  return app.inject({
    method: 'GET',
    url: `/render/url?${params}`,
    ...(key ? { headers: { 'x-api-key': key } } : {}),
  });
};

beforeAll(async () => {
  pages = await startPageServer();
  // Room for the captures that succeed on a busy node (several options at once took over 3 s in a
  // full CI run); the waits that never end use the short app below.
  t = await startTestApp({ allowPrivateHosts: [pages.hostPort], screenshotTimeoutMs: 10_000 });
  const account = await t.modules.accounts.accounts.createAccount({
    name: 'Free account',
    email: 'free-options@example.com',
    plan: 'free',
  });
  freeKey = (
    await t.modules.accounts.accounts.createKey({ accountId: account.id, name: 'k', environment: 'test' })
  ).key;
});
afterAll(async () => {
  await t?.close();
  await pages?.close();
});

describe('GET /render/url: every bad option value is a 400 naming the option and its values', () => {
  const url = 'https://example.com/';
  const ALLOWED =
    'url, viewport, waitUntil, fullPage, selector, waitForSelector, delay, darkMode, hideSelectors, blockAds, blockCookieBanners, scale, format, quality, paper, landscape, margin, printBackground, pageRanges, media, locale, timezone, reducedMotion, css, clip, headers, cookies, basicAuth, userAgent, response, ttl, fresh';
  const cases: Array<[string, Record<string, string | string[]>, string]> = [
    [
      'a boolean that is not one',
      { fullPage: 'yes' },
      'fullPage must be true or false (or 1 or 0) (got "yes")',
    ],
    ['darkMode TRUE', { darkMode: 'TRUE' }, 'darkMode must be true or false (or 1 or 0) (got "TRUE")'],
    ['blockAds 2', { blockAds: '2' }, 'blockAds must be true or false (or 1 or 0) (got "2")'],
    [
      'blockCookieBanners on',
      { blockCookieBanners: 'on' },
      'blockCookieBanners must be true or false (or 1 or 0) (got "on")',
    ],
    ['fresh yes', { fresh: 'yes' }, 'fresh must be true or false (or 1 or 0) (got "yes")'],
    [
      'delay over 10 s',
      { delay: '20000' },
      'delay must be a whole number of milliseconds from 0 to 10000 (got "20000")',
    ],
    [
      'delay negative',
      { delay: '-1' },
      'delay must be a whole number of milliseconds from 0 to 10000 (got "-1")',
    ],
    [
      'delay 1.5',
      { delay: '1.5' },
      'delay must be a whole number of milliseconds from 0 to 10000 (got "1.5")',
    ],
    ['scale 4', { scale: '4' }, 'scale must be 1, 2 or 3 (got "4")'],
    ['scale 1.5', { scale: '1.5' }, 'scale must be 1, 2 or 3 (got "1.5")'],
    ['format gif', { format: 'gif' }, 'format must be one of: png, jpeg, webp, avif, pdf (got "gif")'],
    ['format jpg', { format: 'jpg' }, 'format must be one of: png, jpeg, webp, avif, pdf (got "jpg")'],
    ['quality 0', { format: 'jpeg', quality: '0' }, 'quality must be a whole number from 1 to 100 (got "0")'],
    [
      'quality 101',
      { format: 'webp', quality: '101' },
      'quality must be a whole number from 1 to 100 (got "101")',
    ],
    [
      'quality high',
      { format: 'avif', quality: 'high' },
      'quality must be a whole number from 1 to 100 (got "high")',
    ],
    [
      'quality with png',
      { quality: '80' },
      'quality applies to jpeg, webp and avif only; leave it out, or add format=jpeg, webp or avif',
    ],
    [
      'quality with format=png',
      { format: 'png', quality: '80' },
      'quality applies to jpeg, webp and avif only; leave it out, or add format=jpeg, webp or avif',
    ],
    [
      'ttl under an hour',
      { ttl: '60' },
      'ttl must be a whole number of seconds from 3600 to 2592000 (got "60")',
    ],
    [
      'ttl over 30 days',
      { ttl: '2592001' },
      'ttl must be a whole number of seconds from 3600 to 2592000 (got "2592001")',
    ],
    [
      'selector over 500 characters',
      { selector: `#${'a'.repeat(500)}` },
      'selector must be at most 500 characters (got 501)',
    ],
    [
      'selector with a rule in it',
      { selector: 'a{color:red}' },
      'selector must be a CSS selector: "a{color:red}" is not one (it contains "{")',
    ],
    [
      'selector closing a rule',
      { selector: 'a}body{display:none' },
      'selector must be a CSS selector: "a}body{display:none" is not one (it contains "}")',
    ],
    [
      'selector that is script',
      { selector: '<script>alert(1)</script>' },
      'selector must be a CSS selector: "<script>alert(1)</script>" is not one (it contains "<")',
    ],
    [
      'selector with an unclosed bracket',
      { selector: 'a[href' },
      'selector must be a CSS selector: "a[href" is not one (Attribute selector didn\'t terminate)',
    ],
    [
      'selector ending in a combinator',
      { selector: 'main >' },
      'selector must be a CSS selector: "main >" is not one (it starts or ends with a combinator (>, +, ~))',
    ],
    // Issue 26 §4: what css-what accepted and only the browser refused, after the page's download.
    [
      'a Playwright text engine',
      { selector: 'text=Buy' },
      'selector must be a CSS selector: "text=Buy" is not one ("=" belongs only inside [attribute] brackets)',
    ],
    [
      'a Playwright chain',
      { selector: 'div >> span' },
      'selector must be a CSS selector: "div >> span" is not one (it chains with >> (Playwright\'s, not CSS))',
    ],
    [
      'a Playwright pseudo-class',
      { waitForSelector: 'button:visible' },
      'waitForSelector must be a CSS selector: "button:visible" is not one (:visible is not a CSS pseudo-class or pseudo-element browsers know)',
    ],
    [
      'an unclosed :nth-child',
      { selector: 'a:nth-child(' },
      'selector must be a CSS selector: "a:nth-child(" is not one (Parenthesis not matched)',
    ],
    [
      'a :nth-child that is not An+B',
      { selector: 'li:nth-child(first)' },
      'selector must be a CSS selector: "li:nth-child(first)" is not one (:nth-child(first) is not An+B (odd, even, 3, 2n+1))',
    ],
    [
      'an id that starts with a digit',
      { selector: '#1a' },
      'selector must be a CSS selector: "#1a" is not one (an id must start with a letter, _ or - (write it escaped otherwise))',
    ],
    [
      'an undeclared namespace',
      { selector: 'svg|rect' },
      'selector must be a CSS selector: "svg|rect" is not one (the namespace prefix "svg" is not declared)',
    ],
    [
      'waitForSelector with an empty part',
      { waitForSelector: 'a,,b' },
      'waitForSelector must be a CSS selector: "a,,b" is not one (it has an empty part between commas)',
    ],
    [
      'hideSelectors with 21 selectors',
      { hideSelectors: Array.from({ length: 21 }, (_, i) => `.x${i}`).join(',') },
      'hideSelectors must list at most 20 CSS selectors, comma-separated (got 21)',
    ],
    [
      'hideSelectors with a long one',
      { hideSelectors: `.a, #${'b'.repeat(500)}` },
      'hideSelectors: each selector must be at most 500 characters (got 501)',
    ],
    [
      'hideSelectors with a bad one',
      { hideSelectors: '.a, b;c' },
      'hideSelectors must be comma-separated CSS selectors (it contains ";")',
    ],
    [
      'hideSelectors with an unclosed string',
      { hideSelectors: '[title="a]' },
      'hideSelectors must be comma-separated CSS selectors (a quoted string is not closed)',
    ],
    ['an option given twice', { fullPage: ['true', 'true'] }, 'fullPage must be given once'],
    ['format given twice', { format: ['png', 'jpeg'] }, 'format must be given once'],
    [
      'an unknown option',
      { fullpage: 'true' },
      `Unknown query parameter "fullpage" (did you mean "fullPage"?). Allowed: ${ALLOWED}`,
    ],
    [
      'a typo',
      { hideSelector: '.a' },
      `Unknown query parameter "hideSelector" (did you mean "hideSelectors"?). Allowed: ${ALLOWED}`,
    ],
    [
      "ScreenshotOne's name for it",
      { full_page: 'true' },
      `Unknown query parameter "full_page" (did you mean "fullPage"?). Allowed: ${ALLOWED}`,
    ],
    [
      'an option Cardshot does not have',
      { device_scale_factor: '2' },
      `Unknown query parameter "device_scale_factor". Allowed: ${ALLOWED}`,
    ],
  ];

  it.each(cases)('%s', async (_name, query, message) => {
    const res = await shot({ url, ...query });
    await expectError(res, 400, message);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('checks the options before the plan: a bad value on a free key is still a 400', async () => {
    await expectError(
      await shot({ url, fullPage: 'maybe' }, freeKey),
      400,
      'fullPage must be true or false (or 1 or 0) (got "maybe")',
    );
  });
});

describe('GET /render/url: options the plan does not include', () => {
  it.each(['fullPage', 'blockAds', 'blockCookieBanners', 'fresh'])(
    'the free plan refuses %s with a 403 naming it',
    async (option) => {
      const res = await shot({ url: `${pages.url}/split?plan=${option}`, [option]: 'true' }, freeKey);
      await expectError(res, 403, `Option "${option}" not available on your plan`);
    },
  );

  it('the free plan takes the other options; one given at its default needs no permission', async () => {
    const res = await shot(
      {
        url: `${pages.url}/split?free-options`,
        darkMode: 'true',
        format: 'webp',
        quality: '60',
        hideSelectors: '.nothing',
        selector: 'body',
        waitForSelector: 'body',
        delay: '10',
        scale: '1',
        ttl: '3600',
        fullPage: 'false',
        fresh: '0',
      },
      freeKey,
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/webp');
  });

  it('the pro plan takes fullPage and fresh', async () => {
    const res = await shot({ url: `${pages.url}/split?pro-options`, fullPage: 'true', fresh: 'true' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-page-height']).toBe('630');
  });
});

describe('GET /render/url: what a page cannot give the options', () => {
  // A short time-out: the waits for a selector that never comes end in about 2 s.
  let short: TestApp;
  beforeAll(async () => {
    short = await startTestApp({ allowPrivateHosts: [pages.hostPort], screenshotTimeoutMs: 3000 });
  });
  afterAll(async () => {
    await short?.close();
  });

  it('504 naming waitForSelector when it never becomes visible', async () => {
    const res = await shot(
      { url: `${pages.url}/opt/element?never`, waitForSelector: '#never' },
      undefined,
      short,
    );
    await expectError(res, 504, 'waitForSelector "#never" did not become visible within 3 s');
  });

  it('422 naming the selector when nothing matches it before the time-out', async () => {
    const res = await shot(
      { url: `${pages.url}/opt/element?missing`, selector: '.missing' },
      undefined,
      short,
    );
    await expectError(res, 422, 'selector ".missing" matched no element within 3 s');
  });

  it('400 when the browser refuses a hidden selector our checks let through', async () => {
    const before = pages.hits('/opt/hide');
    const res = await shot({ url: `${pages.url}/opt/hide?refused`, hideSelectors: '.ad, select::picker(a)' });
    await expectError(
      res,
      400,
      'hideSelectors must be a CSS selector: "select::picker(a)" is not one (the browser does not accept it)',
    );
    // Refused in the blank page, before navigation: the page was never asked for.
    expect(pages.hits('/opt/hide')).toBe(before);
  });
});
