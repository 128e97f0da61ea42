/**
 * The screenshot options in a capture (issue 17), in the order a page sees them: emulation and
 * blocking before it loads; once it is ready, waitForSelector, delay, the blocker's last step,
 * hideSelectors, the full-page scroll and the element; then what to capture. A capture without
 * options never comes here (capture.ts), so the plain path makes no extra round trip.
 */
import { pause, settleWithin } from '../../../../lib/timeout.js';
import type { PageBlocking } from '../../blocking/index.js';
import type { Lease } from '../browser/lease.js';
import { maxHeightCss, pixelBound } from './bounds.js';
import type { CaptureInput } from './capture.js';
import {
  delayTooLong,
  notVisible,
  selectorEmpty,
  selectorMissing,
  selectorRefused,
  tooWide,
} from './capture-errors.js';
import { clipArea, contentWidth } from './clip.js';
import { attachCredentials } from './credentials.js';
import { emulateReader } from './emulate.js';
import {
  hideSelectors,
  isolatedWorld,
  locate,
  refusedSelectors,
  scrollThrough,
  waitForImages,
  waitForSelector,
} from './in-page.js';
import { attachRequestGate, type RequestGate } from './request-gate.js';
import { emulateMetrics, type ShotArea } from './shoot.js';
import { applyCss } from './stylesheet.js';

/** What one capture with options has set up in its page. */
export interface OptionState {
  /** The device scale factor our CDP session emulates, once it emulates one. */
  sessionScale?: number;
  blocking?: PageBlocking;
  /** The credentials' headers and the site's origins, judged on each request (request-gate.ts). */
  gate?: RequestGate;
}

/** What to capture, and what the answer says about it. */
export interface ShotPlan {
  area: ShotArea;
  /** The output size the image is made exactly. */
  size: { width: number; height: number };
  /** The page's height in CSS pixels (full-page captures: X-Page-Height). */
  pageHeight?: number;
  /** The maximum height cut the capture short (X-Full-Page-Truncated). */
  truncated: boolean;
}

/** Time kept back from the waits for the capture and its encoding. */
const CAPTURE_RESERVE_MS = 1_000;
/** The longest a full-page scroll may take (a slow page stops scrolling, and is captured). */
const SCROLL_BUDGET_MS = 5_000;
/** How long images asked for by the scroll get to arrive, as web fonts get (capture.ts). */
const IMAGES_WAIT_MS = 3_000;

/** How long a blocker gets to take itself off a page that is being closed anyway. */
const DETACH_MS = 1_000;

const left = (input: CaptureInput) => Math.max(0, input.deadline - Date.now() - CAPTURE_RESERVE_MS);

/**
 * Before navigation: the credentials and the site's origins (request-gate.ts), the device scale
 * factor (on this page only, so the spare context made for the viewport serves any scale), the
 * reader's emulation, and the stylesheet, then the blocker when an option asks for it. The CDP calls before the blocker are independent
 * of one another and sent at once (one round trip's wait instead of one each); every one has
 * settled before the page is fetched, or before the first refusal is thrown.
 */
export async function beforeNavigation(lease: Lease, input: CaptureInput, state: OptionState): Promise<void> {
  const o = input.options ?? {};
  const steps: Promise<unknown>[] = [refuseSelectorsBeforeFetch(lease, o)];
  if (input.credentials || input.stayOn) {
    const { credentials, stayOn } = input;
    steps.push(
      (async () => {
        const headers = credentials ? await attachCredentials(lease, input.url, credentials) : undefined;
        state.gate = await attachRequestGate(lease, {
          ...(headers ? { headers } : {}),
          ...(stayOn ? { stayOn } : {}),
        });
      })(),
    );
  }
  // A PDF's `scale` is its print scale (pdf.ts), not the device's.
  if (o.scale !== undefined && o.output?.format !== 'pdf') {
    steps.push(emulateMetrics(lease, o.scale));
    state.sessionScale = o.scale;
  }
  steps.push(emulateReader(lease, o, input.credentials?.userAgent));
  if (o.css !== undefined) steps.push(applyCss(lease, o.css));
  const settled = await Promise.allSettled(steps);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  // After the rest, as before: its routes are Playwright's and its own state, not worth the risk of
  // interleaving with the credentials' interception for a round trip.
  if (o.blockAds || o.blockCookieBanners) {
    if (!input.blocker) throw new Error('a blocking option without a blocker');
    state.blocking = await input.blocker.attach(lease.page, {
      ads: o.blockAds === true,
      cookieBanners: o.blockCookieBanners === true,
      deadline: input.deadline,
    });
  }
}

/** A 400 for the first selector of the options the browser refuses, checked in the blank page. */
async function refuseSelectorsBeforeFetch(lease: Lease, o: NonNullable<CaptureInput['options']>) {
  const named: [string, string][] = [
    ...(o.selector !== undefined ? [['selector', o.selector] as [string, string]] : []),
    ...(o.waitForSelector !== undefined ? [['waitForSelector', o.waitForSelector] as [string, string]] : []),
    ...(o.hideSelectors ?? []).map((s) => ['hideSelectors', s] as [string, string]),
  ];
  if (named.length === 0) return;
  const refused = new Set(
    await refusedSelectors(
      lease,
      named.map(([, s]) => s),
    ),
  );
  const first = named.find(([, s]) => refused.has(s));
  if (first) throw selectorRefused(first[0], first[1]);
}

/**
 * What every last step with options does first, in the ready page: waitForSelector, delay, the
 * blocker's last step, hideSelectors. Returns the isolated world's getter for the steps after.
 */
export async function readyPage(
  lease: Lease,
  input: CaptureInput,
  state: OptionState,
): Promise<() => Promise<number>> {
  const o = input.options ?? {};
  // Made only for a step that runs in the page: dark mode, a scale or a format alone need none
  // (creating one took 5–60 ms here).
  let made: Promise<number> | undefined;
  const world = () => {
    made ??= isolatedWorld(lease);
    return made;
  };
  const idle = input.idle ?? (<R>(wait: Promise<R>) => wait);
  // Emulated before navigation, the media type still reverted for the new document's renderer
  // (a print stylesheet was not applied, and a PDF printed with print media; Chromium 156):
  // set again on the ready page. The colour scheme and reduced motion held.
  if (o.media !== undefined) await lease.page.emulateMedia({ media: o.media });
  // `css` is already there: adopted as the document was created (stylesheet.ts).
  if (o.waitForSelector !== undefined) {
    const id = await world();
    const seen = await idle(waitForSelector(lease, id, o.waitForSelector, true, left(input)));
    if (seen === 'invalid') throw selectorRefused('waitForSelector', o.waitForSelector);
    if (seen !== 'visible') throw notVisible(o.waitForSelector, input);
  }
  if (o.delay) {
    // Captured early, the image would not be the one asked for; waiting on to the deadline would
    // hold the slot for nothing: say so at once.
    if (o.delay > left(input)) throw delayTooLong(o.delay, input);
    await idle(pause(o.delay));
  }
  await state.blocking?.beforeCapture();
  if (o.hideSelectors) {
    const refused = await hideSelectors(lease, await world(), o.hideSelectors);
    if (refused[0] !== undefined) throw selectorRefused('hideSelectors', refused[0]);
  }
  return world;
}

/**
 * Once the page is ready (its waitUntil event and web fonts): the waiting, hiding and scrolling
 * the options ask for, then the plan of what to capture. Throws the client's error for a
 * selector that never shows (504), matches nothing or nothing of any size (422), or that the
 * browser's parser refuses (400).
 */
export async function prepareShot(lease: Lease, input: CaptureInput, state: OptionState): Promise<ShotPlan> {
  const o = input.options ?? {};
  const world = await readyPage(lease, input, state);
  const scale = o.scale ?? lease.viewport.scale;
  let vv = (await lease.cdp.send('Page.getLayoutMetrics')).cssVisualViewport;
  // A page a phone shows zoomed out is captured whole only by a session with the device
  // emulation itself (shoot.ts); set here, the clip below accounts for it.
  if (vv.scale < 1 && state.sessionScale === undefined) {
    await emulateMetrics(lease, scale);
    state.sessionScale = scale;
    vv = (await lease.cdp.send('Page.getLayoutMetrics')).cssVisualViewport;
  }
  const outScale = vv.scale * scale;
  const maxCss = Math.max(1, maxHeightCss(input, vv.clientWidth, outScale));
  let pageHeight: number | undefined;
  if (o.fullPage) {
    await scrollThrough(lease, await world(), maxCss, Math.min(SCROLL_BUDGET_MS, left(input)));
    await waitForImages(lease, await world(), maxCss, Math.min(IMAGES_WAIT_MS, left(input)));
    const metrics = await lease.cdp.send('Page.getLayoutMetrics');
    pageHeight = Math.max(Math.ceil(metrics.cssContentSize.height), metrics.cssVisualViewport.clientHeight);
  }
  let area: ShotArea;
  let fullHeight = pageHeight;
  if (o.clip !== undefined) {
    const bounds =
      pageHeight !== undefined
        ? { x: 0, y: 0, width: Math.max(vv.clientWidth, await contentWidth(lease)), height: pageHeight }
        : { x: vv.pageX, y: vv.pageY, width: vv.clientWidth, height: vv.clientHeight };
    area = clipArea(o.clip, bounds, outScale, input);
    fullHeight = o.clip.height;
  } else if (o.selector !== undefined) {
    const element = await elementArea(lease, await world(), o.selector, input, { outScale, maxCss });
    area = element.area;
    fullHeight = element.fullHeight;
  } else if (pageHeight !== undefined) {
    area = {
      x: 0,
      y: 0,
      width: vv.clientWidth,
      height: Math.min(pageHeight, maxCss),
      outScale,
      beyond: true,
    };
  } else {
    area = {
      x: vv.pageX,
      y: vv.pageY,
      width: vv.clientWidth,
      height: vv.clientHeight,
      outScale,
      beyond: false,
    };
  }
  return {
    area,
    size: { width: Math.round(area.width * outScale), height: Math.round(area.height * outScale) },
    ...(pageHeight !== undefined ? { pageHeight } : {}),
    truncated: fullHeight !== undefined && fullHeight > area.height,
  };
}

/**
 * The first element matching `selector` (waited for until the time-out), scrolled into view: its
 * box, cut at the maximum height like a full page.
 */
async function elementArea(
  lease: Lease,
  world: number,
  selector: string,
  input: CaptureInput,
  view: { outScale: number; maxCss: number },
): Promise<{ area: ShotArea; fullHeight: number }> {
  const idle = input.idle ?? (<R>(wait: Promise<R>) => wait);
  const state = await idle(waitForSelector(lease, world, selector, false, left(input)));
  if (state === 'invalid') throw selectorRefused('selector', selector);
  if (state === 'missing') throw selectorMissing(selector, input);
  const box = await locate(lease, world, selector);
  if (box === 'invalid') throw selectorRefused('selector', selector);
  if (box === 'missing') throw selectorMissing(selector, input);
  if (box.width < 1 || box.height < 1) throw selectorEmpty(selector, box);
  // Whole CSS pixels around the box, as Playwright's element screenshots do.
  const x = Math.floor(box.x);
  const y = Math.floor(box.y);
  const width = Math.ceil(box.x + box.width) - x;
  const fullHeight = Math.ceil(box.y + box.height) - y;
  // As tall as the bound allows at the element's own width (it may be wider than the viewport).
  const fits = Math.min(view.maxCss, maxHeightCss(input, width, view.outScale));
  if (fits < 1) throw tooWide(selector, width, view.outScale, pixelBound(input));
  const height = Math.min(fullHeight, fits);
  // Scrolled into view by locate(): captured from the screen when it fits there.
  const vv = (await lease.cdp.send('Page.getLayoutMetrics')).cssVisualViewport;
  const inView =
    x >= vv.pageX &&
    y >= vv.pageY &&
    x + width <= vv.pageX + vv.clientWidth &&
    y + height <= vv.pageY + vv.clientHeight;
  return { area: { x, y, width, height, outScale: view.outScale, beyond: !inView }, fullHeight };
}

/** Takes the blocker off the page, if one was attached (in `finally`; bounded, never throws). */
export async function afterCapture(state: OptionState): Promise<void> {
  state.gate?.detach();
  if (state.blocking)
    await settleWithin(
      state.blocking.detach().catch(() => {}),
      DETACH_MS,
    );
}

/** What a plan adds to the capture: the page height and whether it was cut. */
export function planFacts(plan: ShotPlan | undefined): { pageHeight?: number; truncated?: true } {
  return {
    ...(plan?.pageHeight !== undefined ? { pageHeight: plan.pageHeight } : {}),
    ...(plan?.truncated ? { truncated: true as const } : {}),
  };
}
