/**
 * The screenshot engine: what the service asks for a capture (issue 29 §0). It owns the queue,
 * the browser (engine/browser/: pool, supervisor, spares, launcher) and the page steps
 * (engine/page/: navigate, settle, prepare, and the pluggable last step). The service above it
 * owns caching, 304s and coalescing. The engine is handed what a capture needs (a deadline, the
 * owner's share of the queue, a pixel bound), never a billing plan: how a plan becomes those is
 * the service's business.
 */
import type { Logger } from 'pino';
import { AppError, clientClosed, isAppError } from '../../../errors.js';
import type { QueueOwner, WorkQueue } from '../../../lib/work-queue.js';
import type { Blocker } from '../blocking/index.js';
import type { ScreenshotRequest } from '../request.js';
import type { ScreenshotStatus, ShotTimings } from '../types.js';
import { type CapturePageFn, captureWithRetry } from './attempts.js';
import type { BrowserPool } from './browser/pool.js';
import { type Capture, capturePage } from './page/capture.js';
import type { LastStepName } from './page/last-step.js';
import { busy } from './refusals.js';

/** What to capture: the page, as the request asked for it, and what to make of it at the end. */
export interface CaptureJob
  extends Pick<ScreenshotRequest, 'url' | 'viewport' | 'waitUntil' | 'options' | 'credentials' | 'stayOn'> {
  /** The capture's last step: the visible viewport, an area (options), or a PDF. */
  last: LastStepName;
}

/** Who a capture is for, as the engine needs to know it. */
export interface CaptureOwner {
  /** A bounded name for metrics (the plan's name); never read for a decision. */
  label: string;
  /** Its share of the queue: running and waiting captures at once, and the refusal past them. */
  share?: QueueOwner;
}

/** The terms of one capture. */
export interface CaptureTerms {
  /** `Date.now()` after which the request has run out of time; the wait for a slot counts. */
  deadline: number;
  /** Aborts when nobody wants the capture any more (the client hung up). */
  signal?: AbortSignal;
  owner?: CaptureOwner;
  /** Output pixels this capture may hold. */
  maxPixels: number;
}

/** A capture with the request's timings (queue, launch, context and the page's phases). */
export type EngineCapture = Omit<Capture, 'timings'> & { timings: ShotTimings };

export interface ScreenshotEngine {
  /** False when the configured Chromium executable does not exist. */
  available(): boolean;
  /** The executable a missing browser is reported by. */
  readonly executablePath: string;
  /** Queue slot, browser context, page, last step; one retry on a fresh context after a crash. */
  capture(job: CaptureJob, terms: CaptureTerms): Promise<EngineCapture>;
  /** Browser and queue state, for health checks and metrics. */
  status(): ScreenshotStatus;
  /** Starts Chromium and fills the spare contexts now. */
  warm(): Promise<void>;
}

/** The settings the engine's policy reads. */
export interface EngineSettings {
  /** The configured total of one request, for messages (the deadline is the request's). */
  timeoutMs: number;
  /** Output pixels a full-page or element capture may be tall. */
  maxFullPageHeight: number;
  /** Most pages a PDF holds (CARDSHOT_PDF_MAX_PAGES). */
  maxPdfPages?: number;
}

export interface EngineDeps {
  log: Logger;
  pool: BrowserPool;
  queue: WorkQueue;
  /** Ad and cookie-banner blocking (the blockAds and blockCookieBanners options). */
  blocker?: Blocker;
  /** Captures a page in a lease (tests inject a fake); capturePage by default. */
  capturePage?: CapturePageFn;
  /** Told how each capture ended (`ok` or the error code) and how long it took (metrics). */
  onCapture?: (outcome: string, seconds: number) => void;
  /** Called for every capture refused because its owner's share of the queue is full (metrics). */
  onAccountBusy?: (label: string) => void;
  /** How long a capture waited for its slot, by its owner's label (metrics). */
  onQueueWait?: (label: string, seconds: number) => void;
}

/** The least time left for which starting a capture is worth it (a warm capture takes ~150 ms). */
const MIN_CAPTURE_MS = 250;

/** Creates the engine over its parts. It closes nothing: whoever made the parts closes them. */
export function createScreenshotEngine(settings: EngineSettings, deps: EngineDeps): ScreenshotEngine {
  const { log, pool, queue } = deps;
  const { timeoutMs } = settings;
  const attempts = {
    pool,
    log,
    timeoutMs,
    maxHeight: settings.maxFullPageHeight,
    ...(settings.maxPdfPages !== undefined ? { maxPdfPages: settings.maxPdfPages } : {}),
    capturePage: deps.capturePage ?? capturePage,
    ...(deps.blocker ? { blocker: deps.blocker } : {}),
  };

  /** One capture in a queue slot; waiting for the slot counts against the request's deadline. */
  async function queuedCapture(job: CaptureJob, terms: CaptureTerms): Promise<EngineCapture> {
    const { deadline, signal, owner } = terms;
    // The request's one timings record: the queue, the pool and the capture write into it.
    const t: ShotTimings = {};
    const queued = performance.now();
    // A request that cannot get a slot in time is told the service is busy (503), not that
    // the page was slow (504); one that waited behind its own account's captures (they held
    // its whole share when it arrived) is told that instead, as a 429 naming the limit.
    const share = owner?.share;
    const behindOwnWork = share !== undefined && queue.ownerAtLimit(share.id);
    const noSlot = (detail: string) => {
      if (!behindOwnWork) return busy(detail);
      deps.onAccountBusy?.(owner!.label);
      return share!.overShare!();
    };
    const expire = AbortSignal.timeout(Math.max(1, deadline - Date.now()));
    const ends = signal ? AbortSignal.any([expire, signal]) : expire;
    let started = false;
    return queue
      .run(
        async (slot) => {
          started = true;
          t.queue = performance.now() - queued;
          deps.onQueueWait?.(owner?.label ?? 'none', t.queue / 1000);
          // A slot that comes with almost no time left cannot hold a capture: still no slot.
          if (deadline - Date.now() < MIN_CAPTURE_MS)
            throw noSlot(`a slot with under ${MIN_CAPTURE_MS} ms left`);
          // A page that only waits (delay, waitForSelector) lends its slot to others meanwhile.
          const idle = <R>(wait: Promise<R>) =>
            slot.idle(wait).catch((err: unknown) => {
              if (err !== ends.reason) throw err;
              if (signal?.aborted) throw clientClosed();
              throw busy(`no slot to capture in after waiting, within ${timeoutMs} ms`);
            });
          const shot = await captureWithRetry(
            { ...attempts, idle, maxPixels: terms.maxPixels },
            job,
            deadline,
            t,
            signal,
          );
          return shot as EngineCapture;
        },
        ends,
        share,
      )
      .catch((err) => {
        if (signal?.aborted) throw clientClosed();
        if (!started && expire.aborted) throw noSlot(`no slot within ${timeoutMs} ms`);
        // Refused at once: the account's share was full when it arrived.
        if (!started && isAppError(err, 'rate_limited') && owner) deps.onAccountBusy?.(owner.label);
        throw err;
      });
  }

  return {
    executablePath: pool.executablePath,
    available: () => pool.available(),

    async capture(job, terms) {
      const started = performance.now();
      try {
        const shot = await queuedCapture(job, terms);
        deps.onCapture?.('ok', (performance.now() - started) / 1000);
        return shot;
      } catch (err) {
        deps.onCapture?.(
          err instanceof AppError ? err.code : 'internal',
          (performance.now() - started) / 1000,
        );
        throw err;
      }
    },

    status() {
      return {
        installed: pool.available(),
        executablePath: pool.executablePath,
        browser: pool.status(),
        queue: { active: queue.active, waiting: queue.waiting, concurrency: queue.concurrency },
      };
    },

    async warm() {
      await pool.warm();
    },
  };
}
