import { withDeadline } from '../../../../lib/timeout.js';
import type { Blocker } from '../../blocking/index.js';
import type { ShotCredentials } from '../../credentials.js';
import type { ShotFormat, ShotOptions } from '../../options.js';
import type { WaitUntil } from '../../request.js';
import type { Lease } from '../browser/lease.js';
import { captureFailure, leftOrigins, timeoutError } from './capture-errors.js';
import { trackDocument } from './document.js';
import { LAST_STEPS, type LastStepName, lastStepFor } from './last-step.js';
import { navigate, remaining } from './navigate.js';
import { type PageFacts, readPageFacts } from './page-facts.js';
import { afterCapture, beforeNavigation, type OptionState } from './prepare.js';
import { settleAndShoot } from './settle.js';

export interface CaptureInput {
  /** Normalised absolute URL (no fragment). */
  url: string;
  waitUntil: WaitUntil;
  /** `Date.now()` after which the request has run out of time. */
  deadline: number;
  /** The configured total, for the 504 message. */
  timeoutMs: number;
  /** The request's options; absent for the plain capture of the visible viewport. */
  options?: ShotOptions;
  /** What signs the page in: sent to its own origin only (credentials.ts). */
  credentials?: ShotCredentials;
  /** Origins the main frame may load documents from (a site's page read in the browser). */
  stayOn?: readonly string[];
  /** Ad and cookie-banner blocking, attached when an option asks for it. */
  blocker?: Blocker;
  /** Output pixels a full-page or element capture may be tall. */
  maxHeight: number;
  /** Most pages a PDF holds (CARDSHOT_PDF_MAX_PAGES). */
  maxPdfPages?: number;
  /** Output pixels a capture may hold (the plan's bound); the engine's own bound when absent. */
  maxPixels?: number;
  /** What to make of the ready page; by default the step the options ask for (last-step.ts). */
  last?: LastStepName;
  /** Runs a wait that needs no CPU (delay, waitForSelector) with the queue slot lent to others. */
  idle?: <R>(wait: Promise<R>) => Promise<R>;
}

export interface Capture {
  /** The answer's bytes, in `format`. */
  image: Buffer;
  format: ShotFormat;
  /** HTTP status of the page's main document (after redirects). */
  targetStatus: number;
  finalUrl: string;
  timings: CaptureTimings;
  /** A full-page capture's page height in CSS pixels. */
  pageHeight?: number;
  /** True when the maximum height cut a full-page or element capture short, or a PDF its pages. */
  truncated?: boolean;
  /** A PDF's page count (X-Pdf-Pages). */
  pages?: number;
  /** What the page is (response=json). */
  page?: PageFacts;
}

/** Milliseconds per phase of a capture; `prepare` (the options' waits and scrolling) only with options. */
export interface CaptureTimings {
  navigate: number;
  fonts: number;
  capture: number;
  encode: number;
  prepare?: number;
}

/**
 * Loads `input.url` in the lease's fresh page (navigate.ts), waits for `waitUntil` and web fonts
 * and follows late documents (settle.ts), then runs the last step: the visible viewport as PNG,
 * or what the options ask for (prepare.ts). Throws AppError for anything the client should hear
 * about and BrowserCrashError when the browser died, so the caller can retry once. The phases are timed
 * into `timings` (the request's own record, reset here: a retried capture counts once).
 */
export async function capturePage<T extends Partial<CaptureTimings>>(
  lease: Lease,
  input: CaptureInput,
  timings: T = {} as T,
): Promise<Capture & { timings: T & CaptureTimings }> {
  // With options, `prepare` is listed where it happens (Server-Timing keeps this order).
  const before = input.options || input.credentials || input.stayOn;
  const prepare = before ? { prepare: 0 } : {};
  const t = Object.assign(timings, { navigate: 0, fonts: 0, ...prepare, capture: 0, encode: 0 });
  const doc = trackDocument(lease.page, lease.egress.token);
  const state: OptionState = {};
  const step = LAST_STEPS[input.last ?? lastStepFor(input.options)];
  try {
    let mark = performance.now();
    if (before) {
      await beforeNavigation(lease, input, state);
      t.prepare = performance.now() - mark;
      mark = performance.now();
    }
    const first = await navigate(lease, doc, input);
    t.navigate = performance.now() - mark;
    const shot = await settleAndShoot(lease, doc, input, first, t, state, step);
    // A later move off the site was stopped and the page stayed: still not the site's page to read.
    if (state.gate?.left) throw leftOrigins(state.gate.left);
    mark = performance.now();
    // Encoding is part of the request's time: a huge image is answered 504 at the deadline,
    // and sharp stops there too (issue 26 §2: a 150 MB AVIF took 82 s past a 15 s deadline).
    const image = await withDeadline(step.finish(shot.raw, shot.plan, lease, input), remaining(input), () =>
      timeoutError(input),
    );
    t.encode = performance.now() - mark;
    // response=json: what the page is, read after the capture (tags written by scripts count).
    const page =
      input.options?.response === 'json' ? await readPageFacts(lease).catch(() => undefined) : undefined;
    const format = input.options?.output?.format ?? 'png';
    const status = shot.response?.status() ?? 200;
    return {
      image,
      format,
      targetStatus: status,
      finalUrl: shot.finalUrl,
      timings: t,
      ...(page ? { page } : {}),
      ...step.facts(shot.plan),
    };
  } catch (err) {
    // The first document's redirect off the site, stopped: goto fails with ERR_ABORTED.
    if (state.gate?.left) throw leftOrigins(state.gate.left);
    throw captureFailure(err, lease, input);
  } finally {
    doc.detach();
    await afterCapture(state);
  }
}
