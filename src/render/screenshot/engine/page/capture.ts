import type { Response } from 'playwright-core';
import { AppError } from '../../../../errors.js';
import { pause, withDeadline } from '../../../../lib/timeout.js';
import type { ImageFormat } from '../../../format.js';
import type { Blocker } from '../../blocking/index.js';
import type { ShotOptions } from '../../options.js';
import type { Lease } from '../browser/lease.js';
import {
  busyError,
  captureFailure,
  DETACHED,
  movingError,
  navigationFailure,
  netCode,
  redirectedAway,
  refuseErrorPage,
  timeoutError,
} from './capture-errors.js';
import { answeredByProxy, type DocumentTracker, trackDocument } from './document.js';
import { egressError } from './failures.js';
import { waitForFonts } from './in-page.js';
import {
  afterCapture,
  beforeNavigation,
  type OptionState,
  planFacts,
  prepareShot,
  type ShotPlan,
} from './prepare.js';
import { encode, encodeArea, screenshotArea, screenshotViewport } from './shoot.js';

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
  /** The request's options; absent for the plain capture of the visible viewport. */
  options?: ShotOptions;
  /** Ad and cookie-banner blocking, attached when an option asks for it. */
  blocker?: Blocker;
  /** Output pixels a full-page or element capture may be tall. */
  maxHeight: number;
  /** Output pixels a capture may hold (the plan's bound); the engine's own bound when absent. */
  maxPixels?: number;
  /** Runs a wait that needs no CPU (delay, waitForSelector) with the queue slot lent to others. */
  idle?: <R>(wait: Promise<R>) => Promise<R>;
}

export interface Capture {
  /** The image, in `format`. */
  image: Buffer;
  format: ImageFormat;
  /** HTTP status of the page's main document (after redirects). */
  targetStatus: number;
  finalUrl: string;
  timings: CaptureTimings;
  /** A full-page capture's page height in CSS pixels. */
  pageHeight?: number;
  /** True when the maximum height cut a full-page or element capture short. */
  truncated?: boolean;
}

/** Milliseconds per phase of a capture; `prepare` (the options' waits and scrolling) only with options. */
export interface CaptureTimings {
  navigate: number;
  fonts: number;
  capture: number;
  encode: number;
  prepare?: number;
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
 * the visible viewport as PNG, or what the options ask for (prepare.ts). Throws AppError for anything the client should hear about and
 * BrowserCrashError when the browser died, so the caller can retry once. The phases are timed
 * into `timings` (the request's own record, reset here: a retried capture counts once).
 */
export async function capturePage<T extends Partial<CaptureTimings>>(
  lease: Lease,
  input: CaptureInput,
  timings: T = {} as T,
): Promise<Capture & { timings: T & CaptureTimings }> {
  // With options, `prepare` is listed where it happens (Server-Timing keeps this order).
  const prepare = input.options ? { prepare: 0 } : {};
  const t = Object.assign(timings, { navigate: 0, fonts: 0, ...prepare, capture: 0, encode: 0 });
  const doc = trackDocument(lease.page, lease.egress.token);
  const state: OptionState = {};
  try {
    let mark = performance.now();
    if (input.options) {
      await beforeNavigation(lease, input, state);
      t.prepare = performance.now() - mark;
      mark = performance.now();
    }
    const first = await navigate(lease, doc, input);
    t.navigate = performance.now() - mark;
    const shot = await settleAndShoot(lease, doc, input, first, t, state);
    mark = performance.now();
    // Encoding is part of the request's time: a huge image is answered 504 at the deadline,
    // and sharp stops there too (issue 26 §2: a 150 MB AVIF took 82 s past a 15 s deadline).
    const image = await withDeadline(
      shot.plan
        ? encodeArea(shot.raw, shot.plan.size, input.options?.output, input.deadline)
        : encode(shot.raw, lease),
      remaining(input),
      () => timeoutError(input),
    );
    t.encode = performance.now() - mark;
    const format = input.options?.output?.format ?? 'png';
    const status = shot.response?.status() ?? 200;
    return {
      image,
      format,
      targetStatus: status,
      finalUrl: shot.finalUrl,
      timings: t,
      ...planFacts(shot.plan),
    };
  } catch (err) {
    throw captureFailure(err, lease, input);
  } finally {
    doc.detach();
    await afterCapture(state);
  }
}

const remaining = (input: CaptureInput) => Math.max(1, input.deadline - Date.now());

interface FirstDocument {
  response: Response | null;
  /** Chromium shows its own page for an error status with an empty body. */
  showsErrorPage: boolean;
}

/** Loads the requested URL up to `waitUntil`, or up to a stall; throws what the client should hear. */
async function navigate(lease: Lease, doc: DocumentTracker, input: CaptureInput): Promise<FirstDocument> {
  let first: FirstDocument;
  try {
    first = { response: await loadOrStall(lease, doc, input), showsErrorPage: false };
  } catch (err) {
    const failed = redirectedAway(doc.lastFailed ?? { url: input.url, error: netCode(err) ?? '' }, lease);
    // An error status with an empty body: Chromium shows its own "HTTP ERROR 404" page. That is
    // what a visitor sees, so it is rendered like any other 4xx/5xx answer.
    const shown = doc.lastResponse;
    if (
      failed.error !== 'net::ERR_HTTP_RESPONSE_CODE_FAILURE' ||
      lease.egress.decisionFor(failed.url)?.kind !== 'allowed' ||
      !shown ||
      answeredByProxy(shown, lease.egress.token)
    ) {
      throw navigationFailure(err, failed, lease, input);
    }
    first = { response: shown, showsErrorPage: true };
    await lease.page.waitForLoadState(input.waitUntil, { timeout: remaining(input) }).catch(() => {});
  }
  const { response } = first;
  if (response && answeredByProxy(response, lease.egress.token)) {
    throw (
      egressError(lease.egress.decisionFor(response.url()), response.url(), input.url) ??
      new AppError('internal', 'Internal server error', { detail: `proxy answered ${response.url()}` })
    );
  }
  return first;
}

/**
 * Three ways a page can leave Chromium waiting for a load that never comes: its connections
 * were cut at its download budget, or while still loading it sent itself (location=…, a form)
 * to an address the proxy refused, or to a download, which stops that load. Either way the
 * page stays as it stands and is captured, after a short grace.
 */
async function loadOrStall(
  lease: Lease,
  doc: DocumentTracker,
  input: CaptureInput,
): Promise<Response | null> {
  const loading = lease.page.goto(input.url, { waitUntil: input.waitUntil, timeout: remaining(input) });
  loading.catch(() => {});
  const stalled = Promise.race([lease.egress.budgetSpent, doc.proxyAnswered, doc.moveEnded])
    .then(() => pause(STALL_GRACE_MS))
    .then(() => 'stalled' as const);
  const first = await Promise.race([loading, stalled]);
  if (first !== 'stalled') return first;
  const shown = doc.committedResponse ?? doc.lastResponse;
  if (shown) return shown;
  if (lease.egress.overBudget) throw new Error('download budget used up before the page answered');
  // The requested URL itself was answered by the proxy: goto settles at once with the reason.
  return loading;
}

/**
 * Follows the documents the page moves to after the first one loaded (location=… in onload, a
 * meta refresh, a reload): each is waited for like the first, then captured.
 */
async function settleAndShoot(
  lease: Lease,
  doc: DocumentTracker,
  input: CaptureInput,
  first: FirstDocument,
  timings: CaptureTimings,
  state: OptionState,
): Promise<{ raw: Buffer; finalUrl: string; response: Response | null; plan?: ShotPlan }> {
  const { page } = lease;
  let response = first.response;
  let settled = doc.commits;
  let moves = 0;
  for (;;) {
    if (doc.commits !== settled) {
      moves += doc.commits - settled;
      if (moves > MAX_LATE_NAVIGATIONS) throw movingError(input, moves);
      settled = doc.commits;
      const mark = performance.now();
      await Promise.race([page.waitForLoadState(input.waitUntil, { timeout: remaining(input) }), lease.gone]);
      // The status reported is the one of the document captured.
      response = doc.lastResponse ?? response;
      timings.navigate += performance.now() - mark;
    }

    let mark = performance.now();
    await waitForFonts(lease, Math.min(FONTS_WAIT_MS, remaining(input)));
    timings.fonts += performance.now() - mark;
    refuseErrorPage(lease, doc, input, first.showsErrorPage);
    // A document that arrived during the waits above is waited for first.
    if (doc.commits !== settled) continue;

    let plan: ShotPlan | undefined;
    if (input.options) {
      mark = performance.now();
      const prepared = await unlessMoved(lease, doc, input, () => prepareShot(lease, input, state));
      timings.prepare = (timings.prepare ?? 0) + performance.now() - mark;
      if (prepared.outcome === 'moved') await arrival(lease, doc, input, prepared);
      if (prepared.outcome === 'moved' || doc.commits !== settled) continue;
      plan = prepared.outcome;
    }

    mark = performance.now();
    const shot = await unlessMoved(lease, doc, input, () =>
      plan ? screenshotArea(lease, plan.area, state.sessionScale) : screenshotViewport(lease),
    );
    timings.capture += performance.now() - mark;
    if (shot.outcome !== 'moved') {
      return { raw: shot.outcome, finalUrl: page.url(), response, ...(plan ? { plan } : {}) };
    }
    // Failed as the document was going: wait for the new one to arrive.
    await arrival(lease, doc, input, shot);
  }
}

/**
 * Chromium leaves a capture unanswered (or failing: "Not attached to an active page") when its
 * document is replaced meanwhile, and the options' steps lose their isolated world with it: the
 * step (`'moved'`) gives way to the new document.
 */
async function unlessMoved<T>(
  lease: Lease,
  doc: DocumentTracker,
  input: CaptureInput,
  step: () => Promise<T>,
) {
  const seen = doc.commits;
  const moved = doc.nextCommit().then(() => 'moved' as const);
  const done = step().catch((err: unknown) => {
    if (lease.pageCrashed || lease.browserLost || lease.page.isClosed()) throw err;
    if (doc.commits !== seen || doc.documentRequested || DETACHED.test((err as Error)?.message ?? '')) {
      return 'moved' as const;
    }
    throw err;
  });
  const outcome = await withDeadline(Promise.race([done, moved, lease.gone]), remaining(input), () =>
    busyError(input),
  );
  return { outcome, moved, seen };
}

/** Waits for the new document a step gave way to, unless it has already arrived. */
async function arrival(
  lease: Lease,
  doc: DocumentTracker,
  input: CaptureInput,
  step: { moved: Promise<'moved'>; seen: number },
): Promise<void> {
  if (doc.commits !== step.seen) return;
  await withDeadline(Promise.race([step.moved, lease.gone]), remaining(input), () => timeoutError(input));
}
