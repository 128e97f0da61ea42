/**
 * What Cardshot does inside the page: wait for its web fonts (every capture), and what the
 * screenshot options ask for: wait for a selector, hide selectors, scroll through a long page,
 * find an element. Every function here is our own constant code; the options' run in an
 * isolated world (the page's scripts cannot see or patch it), and the caller's selectors reach
 * it only as arguments (`Runtime.callFunctionOn`), never as script text. Values come back by
 * value and are checked before use: the page controls the DOM they were read from.
 *
 * The functions are strings because this code is type-checked without the DOM library.
 */
import { settleWithin } from '../../../../lib/timeout.js';
import type { Lease } from '../browser/lease.js';

/** One waiting step's poll interval inside the page. */
const POLL_MS = 50;

/** A context of our own in the page's main frame (the DOM is shared, the JavaScript is not). */
export async function isolatedWorld(lease: Lease): Promise<number> {
  const { frameTree } = await lease.cdp.send('Page.getFrameTree');
  const { executionContextId } = await lease.cdp.send('Page.createIsolatedWorld', {
    frameId: frameTree.frame.id,
    worldName: 'cardshot',
    grantUniveralAccess: false,
  });
  return executionContextId;
}

/** Calls `fn` (a function expression of our own) in `world` with `args` as data. */
async function call<T>(lease: Lease, world: number, fn: string, args: unknown[]): Promise<T> {
  const res = await lease.cdp.send('Runtime.callFunctionOn', {
    functionDeclaration: fn,
    executionContextId: world,
    arguments: args.map((value) => ({ value })),
    returnByValue: true,
    awaitPromise: true,
  });
  if (res.exceptionDetails) {
    throw new Error(
      `in-page step failed: ${res.exceptionDetails.exception?.description ?? res.exceptionDetails.text}`,
    );
  }
  return res.result.value as T;
}

/** How a selector wait ended. `invalid`: the browser's own parser refused the selector. */
export type SelectorState = 'visible' | 'present' | 'missing' | 'invalid';

const WAIT_FOR = `async function (selector, visible, ms, poll) {
  const until = performance.now() + ms;
  for (;;) {
    let el;
    try { el = document.querySelector(selector); } catch (e) { return 'invalid'; }
    if (el) {
      if (!visible) return 'present';
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && el.checkVisibility({ visibilityProperty: true })) return 'visible';
    }
    if (performance.now() >= until) return el ? 'present' : 'missing';
    await new Promise((done) => setTimeout(done, poll));
  }
}`;

/**
 * Waits up to `ms` for the first element matching `selector` to exist (`visible` false) or to be
 * visible: a box of some size, and not hidden by `visibility` or a hidden ancestor.
 */
export async function waitForSelector(
  lease: Lease,
  world: number,
  selector: string,
  visible: boolean,
  ms: number,
): Promise<SelectorState> {
  const state = await call<unknown>(lease, world, WAIT_FOR, [selector, visible, Math.max(0, ms), POLL_MS]);
  if (state === 'visible' || state === 'present' || state === 'missing' || state === 'invalid') return state;
  throw new Error('selector wait returned an unexpected value');
}

const REFUSED = `function (selectors) {
  const refused = [];
  for (const s of selectors) {
    try { document.querySelector(s); } catch (e) { refused.push(s); }
  }
  return refused;
}`;

/**
 * The selectors of `selectors` the browser's own parser refuses, asked in the blank page before
 * navigation: the last word on a selector our checks let through, and the page is not fetched
 * for a request that would fail on it.
 */
export async function refusedSelectors(lease: Lease, selectors: readonly string[]): Promise<string[]> {
  const refused = await call<unknown>(lease, await isolatedWorld(lease), REFUSED, [selectors]);
  return Array.isArray(refused) ? refused.filter((s): s is string => typeof s === 'string') : [];
}

const HIDE = `function (selectors) {
  const sheet = new CSSStyleSheet();
  const refused = [];
  for (const s of selectors) {
    try { sheet.insertRule(s + ' { display: none !important; }', sheet.cssRules.length); }
    catch (e) { refused.push(s); }
  }
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  return refused;
}`;

/**
 * Hides every element matching `selectors` with `display: none !important` (what urlbox and
 * ScreenshotOne do: the element and its space go, so a hidden banner leaves no gap). One rule
 * per selector through `insertRule`, which parses exactly one rule: a selector can neither
 * smuggle in a second rule nor spoil the others. Returns the selectors the browser refused.
 */
export async function hideSelectors(
  lease: Lease,
  world: number,
  selectors: readonly string[],
): Promise<string[]> {
  const refused = await call<unknown>(lease, world, HIDE, [selectors]);
  return Array.isArray(refused) ? refused.filter((s): s is string => typeof s === 'string') : [];
}

const SCROLL = `async function (maxCss, budgetMs) {
  const root = document.scrollingElement || document.documentElement;
  const frame = () => new Promise((done) => {
    const late = setTimeout(done, 100);
    requestAnimationFrame(() => setTimeout(() => { clearTimeout(late); done(); }, 0));
  });
  const started = performance.now();
  const step = Math.max(100, innerHeight);
  let y = 0;
  while (performance.now() - started < budgetMs) {
    const end = Math.min(root.scrollHeight, maxCss);
    if (y + innerHeight >= end) {
      // At the end: an observer may still be adding to the page (infinite scroll). One more
      // frame for it, and the end is believed only if the page did not grow.
      await frame();
      if (Math.min(root.scrollHeight, maxCss) > end) continue;
      break;
    }
    y = Math.min(y + step, end);
    scrollTo({ top: y, left: 0, behavior: 'instant' });
    await frame();
  }
  scrollTo({ top: 0, left: 0, behavior: 'instant' });
  await frame();
  return y;
}`;

/**
 * Scrolls through the page one viewport at a time, a frame each (IntersectionObserver reports
 * after the frame is drawn, and a lazy image is asked for when it comes near the viewport), down
 * to `maxCss` or the end, then back to the top. Pages that grow as they are scrolled stop at
 * `maxCss`; a slow page stops at `budgetMs`. Each step waits past the frame's rendering (a task
 * after requestAnimationFrame): a position set in a frame callback and replaced in the next was
 * never drawn, and a one-step page (a phone's zoomed-out view) never showed its lazy image.
 */
export async function scrollThrough(
  lease: Lease,
  world: number,
  maxCss: number,
  budgetMs: number,
): Promise<void> {
  await call<unknown>(lease, world, SCROLL, [maxCss, Math.max(0, budgetMs)]);
}

const IMAGES = `async function (maxCss, ms) {
  const pending = Array.from(document.images).filter((img) => {
    if (img.complete || img.getClientRects().length === 0) return false;
    return img.getBoundingClientRect().top + scrollY < maxCss;
  });
  if (pending.length === 0) return 0;
  const all = Promise.all(pending.map((img) => img.decode().catch(() => {})));
  await Promise.race([all, new Promise((done) => setTimeout(done, ms))]);
  return pending.length;
}`;

/** Waits up to `ms` for the images above `maxCss` that are still loading (lazy ones just asked for). */
export async function waitForImages(lease: Lease, world: number, maxCss: number, ms: number): Promise<void> {
  await call<unknown>(lease, world, IMAGES, [maxCss, Math.max(0, ms)]);
}

const LOCATE = `function (selector) {
  let el;
  try { el = document.querySelector(selector); } catch (e) { return 'invalid'; }
  if (!el) return 'missing';
  el.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' });
  const r = el.getBoundingClientRect();
  return [r.left + scrollX, r.top + scrollY, r.width, r.height];
}`;

/** The first element matching `selector`, scrolled into view: its box in document CSS pixels. */
export async function locate(
  lease: Lease,
  world: number,
  selector: string,
): Promise<{ x: number; y: number; width: number; height: number } | 'missing' | 'invalid'> {
  const got = await call<unknown>(lease, world, LOCATE, [selector]);
  if (got === 'missing' || got === 'invalid') return got;
  if (
    !Array.isArray(got) ||
    got.length !== 4 ||
    !got.every((n) => typeof n === 'number' && Number.isFinite(n))
  ) {
    throw new Error('element box returned an unexpected value');
  }
  const [x, y, width, height] = got as [number, number, number, number];
  return { x, y, width, height };
}

/** Waits up to `ms` for the page's web fonts; a font still loading is drawn with its fallback. */
export async function waitForFonts(lease: Lease, ms: number): Promise<void> {
  // A string, not a function: this code is type-checked without the DOM library.
  // A navigation in the meantime destroys the context the promise lived in: nothing to wait for.
  // Straight over the page's CDP session: Playwright's evaluate took ~12 ms of a capture here
  // (its main-world bookkeeping), this ~4 ms.
  // The expression returns nothing, so no value the page controls is copied back to us.
  const ready = lease.cdp
    .send('Runtime.evaluate', {
      expression: '(async () => { await document.fonts.ready; })()',
      awaitPromise: true,
      returnByValue: true,
    })
    .catch(() => {});
  // A font that is still loading after the wait is drawn with its fallback, as a visitor would see it.
  await settleWithin(ready, ms);
}
