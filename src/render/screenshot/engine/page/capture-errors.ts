/** What the client hears when a capture fails: each failure named by its cause. */
import { AppError } from '../../../../errors.js';
import { type Flood, MAX_HISTORY_CHANGES, MAX_NAVIGATIONS } from '../browser/browser.js';
import type { Lease } from '../browser/lease.js';
import type { CaptureInput } from './capture.js';
import type { DocumentTracker, FailedNavigation } from './document.js';
import { describeNetError, egressError } from './failures.js';
import { originOf } from './request-gate.js';
import { quoteSelector } from './selectors.js';

/** The browser or the page's renderer died mid-capture: worth one retry on a fresh one. */
export class BrowserCrashError extends Error {
  /**
   * `browser`: the whole browser went away; `page`: only the tab's renderer died; `protocol`:
   * Chromium refused a command of ours for a reason of its own (see PROTOCOL_FAULT).
   */
  readonly scope: 'browser' | 'page' | 'protocol';

  constructor(scope: 'browser' | 'page' | 'protocol', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BrowserCrashError';
    this.scope = scope;
  }
}

/** What the client hears about a page closed for flooding (browser.ts), and the log's word for it. */
const FLOODS: Record<Flood, { error: string; what: string }> = {
  console: { error: 'The page sent more console messages than a capture allows', what: 'console' },
  navigations: {
    error: `The page kept navigating: more than ${MAX_NAVIGATIONS} navigations in one capture`,
    what: 'navigation',
  },
  history: {
    error: `The page kept changing its address: more than ${MAX_HISTORY_CHANGES} history or fragment changes in one capture`,
    what: 'history',
  },
};

/** A failure of a capture as the caller should see it: an AppError, a BrowserCrashError or as is. */
export function captureFailure(err: unknown, lease: Lease, input: CaptureInput): unknown {
  if (lease.flooded) {
    const { error, what } = FLOODS[lease.flooded];
    return new AppError('unprocessable', error, { detail: `${input.url}: ${what} flood, page closed` });
  }
  if (err instanceof AppError) return err;
  if (lease.pageCrashed && !lease.browserLost) {
    return new BrowserCrashError('page', 'page crashed', { cause: err });
  }
  const message = (err as Error)?.message ?? '';
  if (lease.browserLost || /crash|closed/i.test(message)) {
    return new BrowserCrashError('browser', lease.browserLost ? 'browser disconnected' : String(err), {
      cause: err,
    });
  }
  if (isPlaywrightTimeout(err)) return timeoutError(input);
  if (PROTOCOL_FAULT.test(message)) return new BrowserCrashError('protocol', message, { cause: err });
  return err;
}

/**
 * Chromium's own refusal of a CDP command that our checks had no part in: "Unable to capture
 * screenshot" (no frame from the compositor, seen under load), "Internal error". A fault of the
 * browser, not of the page or of Cardshot: it is retried once on a fresh context and then
 * answered 502, never as a 500. Refusals that name a cause (a bad selector, a closed target, a
 * replaced document) are matched before this.
 */
const PROTOCOL_FAULT = /Protocol error \([\w.]+\): (Unable to capture screenshot|Internal error)/;

/**
 * A redirect to ftp:, mailto: … aborts the navigation. With the proxy's credentials in play,
 * Playwright intercepts requests and reports the abort on the http request that redirected,
 * without its answer: the target is read from the proxy's record of that answer's Location, so
 * it is refused like any other redirect to a scheme a page may not be sent to.
 */
export function redirectedAway(failed: FailedNavigation, lease: Lease): FailedNavigation {
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

/**
 * The page's main frame was sent off the origins it must stay on (a site's page read in the
 * browser): that document was never asked for (request-gate.ts).
 */
export function leftOrigins(url: string): AppError {
  return new AppError('unprocessable', `The page moved to ${originOf(url) || url}, off the site`, {
    detail: `the page moved to ${url}, off the site`,
  });
}

/** How Chromium fails a page command whose document has just been replaced. */
export const DETACHED = /not attached to an active page|cannot find context|execution context was destroyed/i;

/** Why the first navigation failed, for the client. */
export function navigationFailure(
  err: unknown,
  failed: FailedNavigation,
  lease: Lease,
  input: CaptureInput,
): unknown {
  if (lease.browserLost || lease.pageCrashed) return err; // classified as a crash by the caller
  if (isPlaywrightTimeout(err)) return timeoutError(input);
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

/** The page did not reach its `waitUntil` event in time. */
export function timeoutError(input: CaptureInput): AppError {
  return new AppError(
    'gateway_timeout',
    `The page did not reach "${input.waitUntil}" within ${seconds(input)} s`,
  );
}

/**
 * The page loaded but no frame could be captured in the time left: a script holding its main
 * thread after load, or a load that used up nearly all of the time.
 */
export function busyError(input: CaptureInput): AppError {
  return new AppError(
    'gateway_timeout',
    `The page reached "${input.waitUntil}" but could not be captured within ${seconds(input)} s (a script kept it busy, or loading used up the time)`,
  );
}

/** The page kept replacing itself after load (a reload or redirect loop in script). */
export function movingError(input: CaptureInput, moves: number): AppError {
  return new AppError(
    'gateway_timeout',
    `The page kept navigating after "${input.waitUntil}" (${moves} new documents) and could not be captured`,
  );
}

/** `selector` matched nothing before the time-out (less the time a capture needs). */
export function selectorMissing(selector: string, input: CaptureInput): AppError {
  return new AppError(
    'unprocessable',
    `selector ${quoteSelector(selector)} matched no element within ${seconds(input)} s`,
  );
}

/** `selector` matched an element that has no box to capture. */
export function selectorEmpty(selector: string, size: { width: number; height: number }): AppError {
  const box = `${Math.round(size.width)}×${Math.round(size.height)}`;
  return new AppError(
    'unprocessable',
    `selector ${quoteSelector(selector)} matched an element with no size (${box} CSS pixels): it is hidden or empty`,
  );
}

/** An element so wide that not one row of it fits the output pixels a capture may hold. */
export function tooWide(selector: string, widthCss: number, outScale: number, maxPixels: number): AppError {
  return new AppError(
    'unprocessable',
    `selector ${quoteSelector(selector)} matched an element ${widthCss} CSS pixels wide: at scale ${outScale} it is past the ${maxPixels} output pixels a capture may hold on your plan`,
  );
}

/** `waitForSelector` never became visible in time. */
export function notVisible(selector: string, input: CaptureInput): AppError {
  return new AppError(
    'gateway_timeout',
    `waitForSelector ${quoteSelector(selector)} did not become visible within ${seconds(input)} s`,
  );
}

/** The page was ready with less time left than `delay` asks to wait: no capture could follow it. */
export function delayTooLong(delay: number, input: CaptureInput): AppError {
  return new AppError(
    'gateway_timeout',
    `delay=${delay} ms did not fit in the ${seconds(input)} s time-out: the page took too long to be ready`,
  );
}

/** The browser's own parser refused a selector our checks let through (a 400 like any bad value). */
export function selectorRefused(option: string, selector: string): AppError {
  return new AppError(
    'bad_request',
    `${option} must be a CSS selector: ${quoteSelector(selector)} is not one (the browser does not accept it)`,
  );
}

function seconds(input: CaptureInput): number {
  return Number((input.timeoutMs / 1000).toFixed(1));
}

/** The net::ERR_… code in an error's message, if any. */
export function netCode(err: unknown): string | undefined {
  return /net::ERR_[A-Z0-9_]+/.exec((err as Error)?.message ?? '')?.[0];
}

/**
 * A late navigation (meta refresh, location=…) to a refused or dead host leaves Chromium's own
 * error page: answer as if the first navigation had failed, never screenshot it.
 */
export function refuseErrorPage(
  lease: Lease,
  doc: DocumentTracker,
  input: CaptureInput,
  showsErrorPage: boolean,
) {
  const failed = doc.lastFailed;
  if (lease.page.url().startsWith('chrome-error://') && failed && !showsErrorPage) {
    throw (
      egressError(lease.egress.decisionFor(failed.url), failed.url, input.url) ??
      describeNetError(failed.error, failed.url)
    );
  }
}

/**
 * Playwright's TimeoutError, told by its name: importing the class would load Playwright with
 * this module (0.49 s of every start), and only a launched browser's calls can throw it.
 */
function isPlaywrightTimeout(err: unknown): boolean {
  return err instanceof Error && err.name === 'TimeoutError';
}
