import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { selectorProblem, splitSelectorList } from '../../../src/render/screenshot/engine/page/selectors.js';
import { imageIdentity, optionsInUse } from '../../../src/render/screenshot/options.js';
import { parseScreenshotRequest } from '../../../src/render/screenshot/request.js';
import { screenshotCacheKey } from '../../../src/render/screenshot/service/cache-key.js';
import { viewportCatalogue } from '../../../src/render/screenshot/viewports.js';

const catalogue = viewportCatalogue([]);
const parse = (query: Record<string, string>) =>
  parseScreenshotRequest({ url: 'https://example.com/a', ...query }, catalogue);
const key = (query: Record<string, string>) => screenshotCacheKey(parse(query), 'acc_1');

describe('screenshot options: normalised, and absent at their defaults', () => {
  it('gives a request without options no options at all, and the cache key it had before options', () => {
    const plain = parse({});
    expect(plain).not.toHaveProperty('options');
    // The key exactly as it was computed before options existed (issue 17: old entries stay valid).
    const legacy = createHash('sha256')
      .update(
        JSON.stringify([
          'cardshot-screenshot',
          1,
          'https://example.com/a',
          'og',
          1200,
          630,
          1,
          false,
          'load',
          'acc_1',
        ]),
      )
      .digest('hex');
    expect(screenshotCacheKey(plain, 'acc_1')).toBe(legacy);
  });

  it('drops every option given at its default', () => {
    const defaults = parse({
      fullPage: 'false',
      darkMode: '0',
      blockAds: 'false',
      blockCookieBanners: '0',
      fresh: 'false',
      delay: '0',
      scale: '1',
      format: 'png',
      selector: '  ',
      hideSelectors: '',
    });
    expect(defaults).not.toHaveProperty('options');
    // The viewport's own scale is no option either: mobile is drawn at 3.
    expect(
      parseScreenshotRequest({ url: 'https://example.com/', viewport: 'mobile', scale: '3' }, catalogue),
    ).not.toHaveProperty('options');
  });

  it('reads booleans as true, false, 1 or 0, so fullPage=1 and fullPage=true are one entry', () => {
    expect(parse({ fullPage: '1' }).options).toEqual({ fullPage: true });
    expect(key({ fullPage: '1' })).toBe(key({ fullPage: 'true' }));
    expect(key({ darkMode: '1', fullPage: '1' })).toBe(key({ fullPage: 'true', darkMode: 'true' }));
  });

  it("makes a format's default quality the same request as no quality", () => {
    expect(parse({ format: 'jpeg', quality: '80' }).options).toEqual({ output: { format: 'jpeg' } });
    expect(parse({ format: 'avif', quality: '50' }).options).toEqual({ output: { format: 'avif' } });
    expect(parse({ format: 'webp', quality: '60' }).options).toEqual({
      output: { format: 'webp', quality: 60 },
    });
    expect(key({ format: 'webp', quality: '80' })).toBe(key({ format: 'webp' }));
  });

  it('sorts hideSelectors and drops repeats: the same set is one entry', () => {
    expect(parse({ hideSelectors: ' .b , #a,.b ' }).options).toEqual({ hideSelectors: ['#a', '.b'] });
    expect(key({ hideSelectors: '#a,.b' })).toBe(key({ hideSelectors: '.b, #a' }));
  });

  it('keys apart every option that changes the image, and none that only changes caching', () => {
    const sets: Record<string, string>[] = [
      {},
      { fullPage: 'true' },
      { selector: '#a' },
      { waitForSelector: '#a' },
      { delay: '100' },
      { darkMode: 'true' },
      { hideSelectors: '#a' },
      { blockAds: 'true' },
      { blockCookieBanners: 'true' },
      { scale: '2' },
      { format: 'jpeg' },
      { format: 'jpeg', quality: '50' },
      { format: 'webp' },
      { format: 'avif' },
    ];
    const images = sets.map(key);
    expect(new Set(images).size).toBe(images.length);
    expect(key({ ttl: '3600' })).toBe(key({}));
    expect(key({ fresh: 'true', darkMode: 'true' })).toBe(key({ darkMode: 'true' }));
    expect(imageIdentity(parse({ ttl: '3600', fresh: '1' }).options)).toBeUndefined();
  });

  it('names the options a request turns on, for the plan check', () => {
    expect(optionsInUse(parse({}).options)).toEqual([]);
    expect(optionsInUse(parse({ fullPage: 'false', format: 'png' }).options)).toEqual([]);
    expect(
      optionsInUse(
        parse({ fresh: '1', format: 'jpeg', quality: '70', fullPage: 'true', scale: '2', ttl: '3600' })
          .options,
      ),
    ).toEqual(['fullPage', 'scale', 'ttl', 'fresh', 'format', 'quality']);
  });
});

describe('CSS selectors', () => {
  it.each([
    'a',
    '#main',
    '.card.featured',
    'div > p + span ~ em',
    'a[href^="https://"]',
    '[title="a, b; c { d }"]',
    ':is(h1, h2) .x',
    'li:nth-child(2n+1)',
    'figure:has(> img)',
    '.a\\{b',
    'h1, h2',
    '*',
  ])('accepts %s', (selector) => {
    expect(selectorProblem(selector)).toBeUndefined();
  });

  it.each([
    ['', 'it is empty'],
    ['a{}', 'it contains "{"'],
    ['a; b', 'it contains ";"'],
    ['<img>', 'it contains "<"'],
    ['a !important', 'it contains "!"'],
    ['@media', 'it contains "@"'],
    ['a\u0000b', 'it contains "\\u0000"'],
    ['> a', 'it starts or ends with a combinator (>, +, ~)'],
    ['a,', 'it has an empty part between commas'],
    ['a[x', "Attribute selector didn't terminate"],
  ])('refuses %j: %s', (selector, problem) => {
    expect(selectorProblem(selector)).toBe(problem);
  });

  it('splits a list at its top-level commas only', () => {
    expect(splitSelectorList(':is(a, b), [title="x,y"], .c\\,d')).toEqual([
      ':is(a, b)',
      '[title="x,y"]',
      '.c\\,d',
    ]);
  });
});
