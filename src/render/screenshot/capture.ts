import { errors, type Frame, type Request, type Response } from 'playwright-core';
import sharp from 'sharp';
import { AppError } from '../../errors.js';
import { EGRESS_HEADER } from '../../net/proxy.js';
import { describeNetError, egressError } from './failures.js';
import type { Lease } from './pool.js';

export const WAIT_UNTIL = ['load', 'domcontentloaded', 'networkidle'] as const;
export type WaitUntil = (typeof WAIT_UNTIL)[number];

export interface CaptureInput {
  /** Normalised absolute URL (no fragment). */
  url: string;
  waitUntil: WaitUntil;
  /** `Date.now()` after which the request has run out of time. */
  deadline: number;
  /** The configured total, for the 504 message. */
  timeoutMs: number;
}

export interface Capture {
  png: Buffer;
  /** HTTP status of the page's main document (after redirects). */
  targetStatus: number;
  finalUrl: string;
  timings: { navigate: number; fonts: number; capture: number; encode: number };
}

/** The browser or the page's renderer died mid-capture: worth one retry on a fresh one. */
export class BrowserCrashError extends Error {
  /** `browser`: the whole browser went away; `page`: only the tab's renderer died. */
  readonly scope: 'browser' | 'page';

  constructor(scope: 'browser' | 'page', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BrowserCrashError';
    this.scope = scope;
  }
}

/** After a page's load stalls (download budget, refused self-navigation), how long it may still take to settle. */
const STALL_GRACE_MS = 500;

/** Web fonts get at most this long after the waitUntil event (a font that never loads must not cost 15 s). */
const FONTS_WAIT_MS = 3_000;

/**
 * New documents a page may move to after its first `waitUntil` (location=… in an onload
 * handler, a meta refresh, a reload) that are followed before the request gives up. Each one
 * is waited for like the first, then captured; a page that keeps moving gets a 504.
 */
const MAX_LATE_NAVIGATIONS = 3;

/**
 * Loads `input.url` in the lease's fresh page, waits for `waitUntil` and web fonts, and returns
 * the visible viewport as PNG. Throws AppError for anything the client should hear about and
 * BrowserCrashError when the browser died, so the caller can retry once.
 */
export async function capturePage(lease: Lease, input: CaptureInput): Promise<Capture> {
  const { page } = lease;
  const main = page.mainFrame();
  const isMainNav = (r: Request) => r.isNavigationRequest() && r.frame() === main;
  let lastFailed: { url: string; error: string } | undefined;
  // The main document's last answer from a real server; the proxy's own answers are kept apart.
  let lastResponse: Response | undefined;
  let markProxyAnswered!: () => void;
  const proxyAnswered = new Promise<void>((resolve) => {
    markProxyAnswered = resolve;
  });
  // Main-frame moves to a new document: a navigation request, then its commit. Same-document
  // navigations (pushState, #hash) make no request and do not count. A request that ends
  // without a document (failed, refused by the proxy with its 204, a 204/205 or download from
  // the site) is forgotten, or a later pushState would pass for a commit.
  let documentRequested = false;
  // A move the page starts while still loading stops that load; when the move then ends without
  // a document (a download, a failure), Chromium never fires `load` for the page left standing.
  let markMoveEnded!: () => void;
  const moveEnded = new Promise<void>((resolve) => {
    markMoveEnded = resolve;
  });
  const onFailed = (r: Request) => {
    if (!isMainNav(r)) return;
    lastFailed = { url: r.url(), error: r.failure()?.errorText ?? 'unknown' };
    documentRequested = false;
    if (commits > 0) markMoveEnded();
  };
  const onResponse = (r: Response) => {
    if (!isMainNav(r.request())) return;
    if (r.headers()[EGRESS_HEADER] === lease.egress.token) {
      markProxyAnswered();
      documentRequested = false;
    } else {
      lastResponse = r;
      if (r.status() === 204 || r.status() === 205) documentRequested = false;
    }
  };
  let commits = 0;
  let onCommit: (() => void) | undefined;
  const onRequest = (r: Request) => {
    if (isMainNav(r)) documentRequested = true;
  };
  // The answer of the document now shown: a later move that ends without a document (a
  // download) has an answer too, which must not pass for the page's.
  let committedResponse: Response | undefined;
  const onNavigated = (f: Frame) => {
    if (f !== main || !documentRequested) return;
    documentRequested = false;
    committedResponse = lastResponse;
    commits++;
    onCommit?.();
  };
  const nextCommit = () => new Promise<void>((resolve) => (onCommit = resolve));
  // Waits for a new document end at once if the page goes (a crash, a hang-up closing it).
  const { gone } = lease;
  page.on('requestfailed', onFailed);
  page.on('response', onResponse);
  page.on('request', onRequest);
  page.on('framenavigated', onNavigated);
  const remaining = () => Math.max(1, input.deadline - Date.now());
  const timings = { navigate: 0, fonts: 0, capture: 0, encode: 0 };

  try {
    let mark = performance.now();
    let response: Response | null;
    let showsErrorPage = false;
    try {
      const loading = page.goto(input.url, { waitUntil: input.waitUntil, timeout: remaining() });
      loading.catch(() => {});
      // Three ways a page can leave Chromium waiting for a load that never comes: its connections
      // were cut at its download budget, or while still loading it sent itself (location=…, a
      // form) to an address the proxy refused, or to a download, which stops that load. Either
      // way the page stays as it stands and is captured, after a short grace.
      const stalled = Promise.race([lease.egress.budgetSpent, proxyAnswered, moveEnded])
        .then(() => pause(STALL_GRACE_MS))
        .then(() => 'stalled' as const);
      const first = await Promise.race([loading, stalled]);
      const shown = committedResponse ?? lastResponse;
      if (first !== 'stalled') response = first;
      else if (shown) response = shown;
      else if (lease.egress.overBudget) throw new Error('download budget used up before the page answered');
      // The requested URL itself was answered by the proxy: goto settles at once with the reason.
      else response = await loading;
    } catch (err) {
      const failed = redirectedAway(lastFailed ?? { url: input.url, error: netCode(err) ?? '' }, lease);
      // An error status with an empty body: Chromium shows its own "HTTP ERROR 404" page. That is
      // what a visitor sees, so it is rendered like any other 4xx/5xx answer.
      if (
        failed.error === 'net::ERR_HTTP_RESPONSE_CODE_FAILURE' &&
        lease.egress.decisionFor(failed.url)?.kind === 'allowed' &&
        lastResponse &&
        lastResponse.headers()[EGRESS_HEADER] !== lease.egress.token
      ) {
        response = lastResponse;
        showsErrorPage = true;
        await page.waitForLoadState(input.waitUntil, { timeout: remaining() }).catch(() => {});
      } else throw navigationFailure(err, failed, lease, input);
    }
    if (response && response.headers()[EGRESS_HEADER] === lease.egress.token) {
      throw (
        egressError(lease.egress.decisionFor(response.url()), response.url(), input.url) ??
        new AppError('internal', 'Internal server error', { detail: `proxy answered ${response.url()}` })
      );
    }
    timings.navigate = performance.now() - mark;

    // Documents the page moved to after the first one loaded (location=… in onload, a meta
    // refresh, a reload): each is waited for like the first, then captured.
    let settled = commits;
    let raw: Buffer | undefined;
    let finalUrl = page.url();
    for (let moves = 0; raw === undefined; ) {
      if (commits !== settled) {
        moves += commits - settled;
        if (moves > MAX_LATE_NAVIGATIONS) throw movingError(input, moves);
        settled = commits;
        mark = performance.now();
        await Promise.race([page.waitForLoadState(input.waitUntil, { timeout: remaining() }), gone]);
        // The status reported is the one of the document captured.
        response = lastResponse ?? response;
        timings.navigate += performance.now() - mark;
      }

      mark = performance.now();
      await waitForFonts(lease, Math.min(FONTS_WAIT_MS, remaining()));
      timings.fonts += performance.now() - mark;

      // A late navigation (meta refresh, location=…) to a refused or dead host leaves Chromium's
      // own error page: answer as if the first navigation had failed, never screenshot it.
      if (page.url().startsWith('chrome-error://') && lastFailed && !showsErrorPage) {
        throw (
          egressError(lease.egress.decisionFor(lastFailed.url), lastFailed.url, input.url) ??
          describeNetError(lastFailed.error, lastFailed.url)
        );
      }

      // A document that arrived during the waits above is waited for first.
      if (commits !== settled) continue;

      // Chromium leaves a capture unanswered (or failing: "Not attached to an active page") when
      // its document is replaced meanwhile: the capture gives way to the new document.
      mark = performance.now();
      const seen = commits;
      const moved = nextCommit().then(() => 'moved' as const);
      const shot = screenshotViewport(lease).catch((err: unknown) => {
        if (lease.pageCrashed || lease.browserLost || page.isClosed()) throw err;
        if (commits !== seen || documentRequested || DETACHED.test((err as Error)?.message ?? '')) {
          return 'moved' as const;
        }
        throw err;
      });
      const outcome = await withDeadline(Promise.race([shot, moved, gone]), remaining(), () =>
        busyError(input),
      );
      timings.capture += performance.now() - mark;
      if (outcome !== 'moved') {
        raw = outcome;
        finalUrl = page.url();
      }
      // Failed as the document was going: wait for the new one to arrive.
      else if (commits === seen) {
        await withDeadline(Promise.race([moved, gone]), remaining(), () => timeoutError(input));
      }
    }

    mark = performance.now();
    const png = await encode(raw, lease);
    timings.encode = performance.now() - mark;
    return { png, targetStatus: response?.status() ?? 200, finalUrl, timings };
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (lease.pageCrashed && !lease.browserLost) {
      throw new BrowserCrashError('page', 'page crashed', { cause: err });
    }
    if (lease.browserLost || /crash|closed/i.test((err as Error)?.message ?? '')) {
      throw new BrowserCrashError('browser', lease.browserLost ? 'browser disconnected' : String(err), {
        cause: err,
      });
    }
    if (err instanceof errors.TimeoutError) throw timeoutError(input);
    throw err;
  } finally {
    page.off('requestfailed', onFailed);
    page.off('response', onResponse);
    page.off('request', onRequest);
    page.off('framenavigated', onNavigated);
  }
}

/**
 * A redirect to ftp:, mailto: … aborts the navigation. With the proxy's credentials in play,
 * Playwright intercepts requests and reports the abort on the http request that redirected,
 * without its answer: the target is read from the proxy's record of that answer's Location, so
 * it is refused like any other redirect to a scheme a page may not be sent to.
 */
function redirectedAway(
  failed: { url: string; error: string },
  lease: Lease,
): { url: string; error: string } {
  if (!/ERR_ABORTED$/.test(failed.error)) return failed;
  const location = lease.egress.redirectFor(failed.url);
  if (!location) return failed;
  try {
    const target = new URL(location, failed.url);
    // javascript: is dropped by Chromium without a trace and stays the documented 422.
    if (/^(https?|javascript):$/.test(target.protocol)) return failed;
    return { url: target.href, error: failed.error };
  } catch {
    return failed;
  }
}

/** How Chromium fails a page command whose document has just been replaced. */
const DETACHED = /not attached to an active page|cannot find context|execution context was destroyed/i;

function navigationFailure(
  err: unknown,
  failed: { url: string; error: string },
  lease: Lease,
  input: CaptureInput,
): unknown {
  if (lease.browserLost || lease.pageCrashed) return err; // classified as a crash by the caller
  if (err instanceof errors.TimeoutError) return timeoutError(input);
  const message = (err as Error)?.message ?? '';
  if (lease.egress.overBudget) {
    const mb = Math.round(lease.egress.bytes / 1e6);
    return new AppError(
      'unprocessable',
      'url downloaded more than a page may (the download budget was used up)',
      {
        detail: `${mb} MB relayed for ${failed.url}`,
      },
    );
  }
  if (/Download is starting/i.test(message)) {
    return new AppError('unprocessable', 'url answered with a file download, not a page', {
      detail: failed.url,
    });
  }
  const decided = egressError(lease.egress.decisionFor(failed.url), failed.url, input.url);
  if (decided) return decided;
  const code = netCode(err) ?? failed.error;
  if (code) return describeNetError(code, failed.url);
  return err;
}

function timeoutError(input: CaptureInput): AppError {
  return new AppError(
    'gateway_timeout',
    `The page did not reach "${input.waitUntil}" within ${seconds(input)} s`,
  );
}

/**
 * The page loaded but no frame could be captured in the time left: a script holding its main
 * thread after load, or a load that used up nearly all of the time.
 */
function busyError(input: CaptureInput): AppError {
  return new AppError(
    'gateway_timeout',
    `The page reached "${input.waitUntil}" but could not be captured within ${seconds(input)} s (a script kept it busy, or loading used up the time)`,
  );
}

/** The page kept replacing itself after load (a reload or redirect loop in script). */
function movingError(input: CaptureInput, moves: number): AppError {
  return new AppError(
    'gateway_timeout',
    `The page kept navigating after "${input.waitUntil}" (${moves} new documents) and could not be captured`,
  );
}

function seconds(input: CaptureInput): number {
  return Number((input.timeoutMs / 1000).toFixed(1));
}

function netCode(err: unknown): string | undefined {
  return /net::ERR_[A-Z0-9_]+/.exec((err as Error)?.message ?? '')?.[0];
}

async function waitForFonts(lease: Lease, ms: number): Promise<void> {
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
  let timer: NodeJS.Timeout | undefined;
  // A font that is still loading after the wait is drawn with its fallback, as a visitor would see it.
  await Promise.race([ready, new Promise<void>((r) => (timer = setTimeout(r, ms)))]).finally(() =>
    clearTimeout(timer),
  );
}

/**
 * The visible viewport via CDP with optimizeForSpeed: Chromium's default PNG encoder spends most
 * of a capture compressing (~100 ms of a ~150 ms capture, measured here), so it sends a fast PNG that sharp
 * re-encodes off the event loop. The clip is the visual viewport scaled by the device scale
 * factor, which is what makes a mobile capture 1170×2532 rather than 390×844.
 */
async function screenshotViewport(lease: Lease): Promise<Buffer> {
  const metrics = await lease.cdp.send('Page.getLayoutMetrics');
  const vv = metrics.cssVisualViewport;
  if (vv.scale < 1) await emulateOnCaptureSession(lease);
  const shot = await lease.cdp.send('Page.captureScreenshot', {
    format: 'png',
    optimizeForSpeed: true,
    clip: {
      x: vv.pageX,
      y: vv.pageY,
      width: vv.clientWidth,
      height: vv.clientHeight,
      scale: vv.scale * lease.viewport.scale,
    },
  });
  return Buffer.from(shot.data, 'base64');
}

/**
 * A page zoomed out on a phone (no meta viewport: laid out 980 px wide, shown at 390/980) is
 * captured whole only by a session that has the device emulation itself: this CDP session is
 * not Playwright's, so Chromium clipped its capture to the 390 px view before zooming and drew
 * the left 40 % of the page. Capturing "beyond the viewport" instead laid a fluid page out again
 * at 390 px. Giving this session the very metrics the context already has changes no layout;
 * it is done only for zoomed-out pages, the rare case.
 */
async function emulateOnCaptureSession(lease: Lease): Promise<void> {
  const v = lease.viewport;
  const landscape = v.width > v.height;
  await lease.cdp.send('Emulation.setDeviceMetricsOverride', {
    mobile: v.mobile,
    width: v.width,
    height: v.height,
    screenWidth: v.width,
    screenHeight: v.height,
    deviceScaleFactor: v.scale,
    // As Playwright sets it for the context, so the page sees no change.
    screenOrientation:
      v.mobile && !landscape
        ? { angle: 0, type: 'portraitPrimary' }
        : { angle: v.mobile ? 90 : 0, type: 'landscapePrimary' },
  });
}

/** Above this many PNG bytes per pixel the page is photographic and re-encoding only costs time. */
const REENCODE_BELOW_BYTES_PER_PIXEL = 0.25;

/**
 * Chromium's fast PNG is kept for photographic pages (re-encoding a 530 KB capture took 30 ms and
 * came out larger unless adaptive filtering, 50 ms, was on). Flat pages, the common case for
 * sites and cards, re-encode in ~6–12 ms to a third or less of the size, and the smaller wins.
 */
async function encode(raw: Buffer, lease: Lease): Promise<Buffer> {
  const width = Math.round(lease.viewport.width * lease.viewport.scale);
  const height = Math.round(lease.viewport.height * lease.viewport.scale);
  const size = { width: raw.readUInt32BE(16), height: raw.readUInt32BE(20) };
  // Rounding in the visual viewport can give a pixel too many or too few: the size is a promise.
  if (size.width !== width || size.height !== height) {
    return sharp(raw).resize(width, height, { fit: 'fill' }).png({ compressionLevel: 6 }).toBuffer();
  }
  if (raw.length / (width * height) >= REENCODE_BELOW_BYTES_PER_PIXEL) return raw;
  const small = await sharp(raw)
    .removeAlpha()
    .png({ compressionLevel: 6, adaptiveFiltering: false })
    .toBuffer();
  return small.length < raw.length ? small : raw;
}

async function withDeadline<T>(p: Promise<T>, ms: number, error: () => AppError): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  p.catch(() => {});
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(error()), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
