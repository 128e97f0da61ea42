/**
 * One capture in its queue slot: a context from the pool by the deadline, the page captured,
 * and one more try on a fresh context when the browser (or the tab) died under it.
 */
import type { Logger } from 'pino';
import { AppError, clientClosed } from '../../../errors.js';
import { withDeadline } from '../../../lib/timeout.js';
import type { Blocker } from '../blocking/index.js';
import type { ShotTimings } from '../types.js';
import { WARM_UP_URL } from './browser/browser.js';
import type { Lease } from './browser/lease.js';
import type { BrowserPool } from './browser/pool.js';
import type { CaptureJob } from './engine.js';
import type { Capture, CaptureInput, CaptureTimings } from './page/capture.js';
import { BrowserCrashError } from './page/capture-errors.js';
import { busy, notReady } from './refusals.js';

/** Captures a page in a lease, timing its phases into `timings` (capturePage, or a fake in tests). */
export type CapturePageFn = (lease: Lease, input: CaptureInput, timings: ShotTimings) => Promise<Capture>;

export interface AttemptDeps {
  pool: BrowserPool;
  capturePage: CapturePageFn;
  log: Logger;
  timeoutMs: number;
  /** Output pixels a full-page or element capture may be tall. */
  maxHeight: number;
  /** Most pages a PDF holds. */
  maxPdfPages?: number;
  /** For blockAds and blockCookieBanners. */
  blocker?: Blocker;
  /** Output pixels this capture may hold (its plan's bound). */
  maxPixels?: number;
  /** Runs a wait with the queue slot lent to others (the capture's Slot.idle). */
  idle?: <R>(wait: Promise<R>) => Promise<R>;
}

/** How the proxy records the spare's warm-up request (`host:port`). */
const WARM_UP_TARGET = `${new URL(WARM_UP_URL).hostname}:80`;

const CAPTURE_PHASES: (keyof CaptureTimings)[] = ['navigate', 'fonts', 'capture', 'encode', 'prepare'];

/**
 * A fresh context, or a 503 when the browser cannot give one before the deadline: "busy" while
 * the browser runs (the request waited too long for its turn), "not ready" when it does not.
 */
async function acquire(deps: AttemptDeps, job: CaptureJob, deadline: number): Promise<Lease> {
  const detail = `no browser context within ${deps.timeoutMs} ms`;
  const pending = deps.pool.acquire(job.viewport);
  try {
    return await withDeadline(pending, Math.max(1, deadline - Date.now()), () =>
      deps.pool.status().up ? busy(detail) : notReady(detail),
    );
  } catch (err) {
    // A context that arrives after we gave up is handed straight back.
    pending.then((lease) => lease.release()).catch(() => {});
    throw err;
  }
}

/** The page captured into `timings`, retried once after a crash; the client's hang-up ends it. */
export async function captureWithRetry(
  deps: AttemptDeps,
  job: CaptureJob,
  deadline: number,
  timings: ShotTimings,
  signal?: AbortSignal,
): Promise<Capture> {
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw clientClosed();
    const lease = await leaseFor(deps, job, deadline, attempt);
    if (!lease) continue;
    if (lease.timings.launch > 0) timings.launch = (timings.launch ?? 0) + lease.timings.launch;
    timings.context = (timings.context ?? 0) + lease.timings.context;
    try {
      return await captureIn(deps, lease, job, deadline, timings, signal);
    } catch (err) {
      if (signal?.aborted) throw clientClosed();
      if (!(err instanceof BrowserCrashError)) throw err;
      if (attempt > 1 || Date.now() >= deadline) throw crashed(err, attempt);
      deps.log.warn({ url: job.url, reason: err.message }, 'browser crashed during a capture; retrying once');
      // Only the capture that succeeds is timed: the crashed one's phases are dropped.
      for (const phase of CAPTURE_PHASES) delete timings[phase];
    }
  }
}

/** A lease, or none on a first attempt whose context could not be opened (worth one more try). */
async function leaseFor(
  deps: AttemptDeps,
  job: CaptureJob,
  deadline: number,
  attempt: number,
): Promise<Lease | undefined> {
  try {
    return await acquire(deps, job, deadline);
  } catch (err) {
    if (err instanceof AppError) throw err;
    // The browser went away between handing out the context and using it: same as a crash.
    if (attempt > 1) throw notReady((err as Error).message, err);
    deps.log.warn({ err: (err as Error).message }, 'could not open a browser context; retrying once');
    return undefined;
  }
}

/** The browser or the tab died on the last attempt: a 502. */
function crashed(err: BrowserCrashError, attempt: number): AppError {
  return new AppError(
    'bad_gateway',
    err.scope === 'page'
      ? 'The page crashed its browser tab (it may use too much memory)'
      : err.scope === 'protocol'
        ? 'The browser failed to capture the page; retry later'
        : 'The browser crashed while rendering the page; retry later',
    { detail: `${err.message} (after ${attempt} attempts)`, cause: err },
  );
}

/** One capture in `lease`, which is released after it whatever happens. */
async function captureIn(
  deps: AttemptDeps,
  lease: Lease,
  job: CaptureJob,
  deadline: number,
  timings: ShotTimings,
  signal?: AbortSignal,
): Promise<Capture> {
  // Nobody wants the capture any more: closing its context ends every wait in it at once.
  // A hang-up while the context was being made is caught here (a listener added to an
  // aborted signal never fires).
  if (signal?.aborted) {
    lease.release();
    throw clientClosed();
  }
  const abandon = () => lease.release();
  signal?.addEventListener('abort', abandon, { once: true });
  try {
    const input: CaptureInput = {
      url: job.url,
      waitUntil: job.waitUntil,
      last: job.last,
      deadline,
      timeoutMs: deps.timeoutMs,
      maxHeight: deps.maxHeight,
      ...(deps.maxPdfPages !== undefined ? { maxPdfPages: deps.maxPdfPages } : {}),
      ...(job.options ? { options: job.options } : {}),
      ...(job.credentials ? { credentials: job.credentials } : {}),
      ...(job.stayOn ? { stayOn: job.stayOn } : {}),
      ...(deps.blocker ? { blocker: deps.blocker } : {}),
      ...(deps.idle ? { idle: deps.idle } : {}),
      ...(deps.maxPixels !== undefined ? { maxPixels: deps.maxPixels } : {}),
    };
    return await deps.capturePage(lease, input, timings);
  } finally {
    signal?.removeEventListener('abort', abandon);
    // Blocked sub-resources fail quietly for the page; operators still see what was tried.
    // The spare's own warm-up request (browser.ts) is not the page's.
    const refused = lease.egress.refused.filter((r) => r.target !== WARM_UP_TARGET);
    if (refused.length > 0) {
      deps.log.info(
        { url: job.url, refused: refused.slice(0, 5), count: refused.length },
        'page requests refused',
      );
    }
    lease.release();
  }
}
