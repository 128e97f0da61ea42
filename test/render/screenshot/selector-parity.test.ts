// @module-tag chromium
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FUNCTIONAL_PSEUDO_CLASSES,
  FUNCTIONAL_PSEUDO_ELEMENTS,
  PSEUDO_CLASSES,
  PSEUDO_ELEMENTS,
} from '../../../src/render/screenshot/engine/page/selector-names.js';
import { selectorProblem } from '../../../src/render/screenshot/engine/page/selectors.js';
import { chromiumAvailable, launchChromium } from '../../helpers/browser.js';

// Issue 26 §4: a selector the browser refuses is refused before the page is fetched. Our check
// (css-what plus Chromium's rules) must refuse everything Chromium's own parser refuses; the
// browser is asked about every selector generated here.
let browser: Browser;
let page: Page;

/** Which of `selectors` Chromium's querySelector throws on. */
async function chromiumRefuses(selectors: string[]): Promise<Set<string>> {
  // This code is type-checked without the DOM library: the document is reached through globalThis.
  const refused = await page.evaluate((list) => {
    const doc = (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document;
    return list.filter((s) => {
      try {
        doc.querySelector(s);
        return false;
      } catch {
        return true;
      }
    });
  }, selectors);
  return new Set(refused);
}

/** Selectors people paste that are not CSS: Playwright's engines, jQuery's and Sizzle's extensions, typos. */
function hostileSelectors(): string[] {
  const bases = ['div', '.card', '#main', 'a[href]', '*'];
  const notCss = [
    ':has-text("Buy")',
    ':text("x")',
    ':text-is("x")',
    ':visible',
    ':hidden',
    ':contains(x)',
    ':eq(2)',
    ':first',
    ':last',
    ':gt(1)',
    ':checkbox',
    ':input',
    ':nth-match(div, 2)',
    ':left-of(div)',
    ':near(a)',
    ':matches(b)',
    ':-moz-any(a)',
    ':blank',
    ':playing',
    ':first-child()',
    ':nth-child()',
    ':nth-child(foo)',
    ':nth-child(2 n)',
    ':nth-of-type(2 of p)',
    ':lang("en")',
    ':has(:has(a))',
    ':has(::before)',
    ':not(::after)',
    '::before:hover',
    '::before span',
    '::foo',
    '::scroll-button(a)',
    ' >> span',
    ' >> nth=0',
    '..x',
    '.1x',
    '#1x',
    ' > > p',
    '[a=b s]',
  ];
  const engines = [
    'text=Buy',
    'xpath=//div',
    'css=div',
    'id=main',
    'data-testid=x',
    'internal:role=button',
    '//div',
  ];
  const namespaced = ['svg|rect', 'html|div', 'x|*', '[xlink|href]'];
  return [...bases.flatMap((b) => notCss.map((s) => `${b}${s}`)), ...engines, ...namespaced];
}

const VALID = [
  'div',
  '.card > h1 + p ~ span',
  'a[href^="https:"][data-x="=/?%" i]',
  ':nth-child(-n + 3)',
  'li:nth-child(2n+1 of .x, p)',
  'ul li:nth-last-of-type(odd)',
  ':is(h1, h2):not(.skip)',
  'section:has(> img, + aside)',
  ':where(main) article:first-of-type',
  'a:not([href])',
  'p::first-line',
  '::-webkit-scrollbar',
  '*|div',
  '|p',
  '.-a.--b#_c',
  '#\\31 23',
  'a\\:b',
  ':lang(en)',
  ':dir(rtl)',
  ':host(.x)',
  ':state(open)',
  'dialog:modal',
];

beforeAll(async () => {
  if (!chromiumAvailable()) return;
  browser = await launchChromium();
  page = await browser.newPage();
  await page.setContent('<main><div class="card"><p>x</p></div></main>');
}, 30_000);
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!chromiumAvailable())('selectors: our check and Chromium agree', () => {
  it('every selector Chromium refuses is refused by our check, before any page is fetched', async () => {
    const generated = hostileSelectors();
    const refused = await chromiumRefuses(generated);
    // The generator must actually produce what the browser refuses, or this test proves nothing.
    expect(refused.size).toBeGreaterThan(generated.length * 0.9);
    const slipped = [...refused].filter((s) => selectorProblem(s) === undefined);
    expect(slipped).toEqual([]);
  });

  it('accepts the valid selectors Chromium accepts', async () => {
    expect([...(await chromiumRefuses(VALID))]).toEqual([]);
    expect(VALID.filter((s) => selectorProblem(s) !== undefined)).toEqual([]);
  });

  it("names only pseudo-classes and pseudo-elements Chromium's parser knows", async () => {
    const forms = [
      ...[...PSEUDO_CLASSES].map((n) => `:${n}`),
      ...[...FUNCTIONAL_PSEUDO_CLASSES].map((n) =>
        /^nth-/.test(n)
          ? `:${n}(2n+1)`
          : ['dir', 'lang', 'state', 'active-view-transition-type'].includes(n)
            ? `:${n}(rtl)`
            : `:${n}(a)`,
      ),
      ...[...PSEUDO_ELEMENTS].map((n) => `::${n}`),
      ...[...FUNCTIONAL_PSEUDO_ELEMENTS].map((n) => (n === 'picker' ? '::picker(select)' : `::${n}(a)`)),
    ];
    expect([...(await chromiumRefuses(forms))]).toEqual([]);
    expect(forms.filter((s) => selectorProblem(s) !== undefined)).toEqual([]);
  });
});
