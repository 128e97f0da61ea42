/**
 * From the first document loaded to the raw capture: web fonts, the documents the page moves to
 * after loading, the last step's preparation and its capture, each giving way to a new document.
 */
import type { Response } from 'playwright-core';
import { withDeadline } from '../../../../lib/timeout.js';
import type { Lease } from '../browser/lease.js';
import type { CaptureInput, CaptureTimings } from './capture.js';
import { busyError, DETACHED, movingError, refuseErrorPage, timeoutError } from './capture-errors.js';
import type { DocumentTracker } from './document.js';
import { waitForFonts } from './in-page.js';
import type { LastStep } from './last-step.js';
import { type FirstDocument, remaining } from './navigate.js';
import type { OptionState } from './prepare.js';

/** Web fonts get at most this long after the waitUntil event (a font that never loads must not cost 15 s). */
const FONTS_WAIT_MS = 3_000;

/**
 * New documents a page may move to after its first `waitUntil` (location=… in an onload
 * handler, a meta refresh, a reload) that are followed before the request gives up. Each one
 * is waited for like the first, then captured; a page that keeps moving gets a 504.
 */
const MAX_LATE_NAVIGATIONS = 3;

/**
 * Follows the documents the page moves to after the first one loaded (location=… in onload, a
 * meta refresh, a reload): each is waited for like the first, then captured.
 */
export async function settleAndShoot(
  lease: Lease,
  doc: DocumentTracker,
  input: CaptureInput,
  first: FirstDocument,
  timings: CaptureTimings,
  state: OptionState,
  step: LastStep,
): Promise<{ raw: Buffer; finalUrl: string; response: Response | null; plan?: unknown }> {
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

    let plan: unknown;
    if (step.prepare) {
      const prepare = step.prepare;
      mark = performance.now();
      const prepared = await unlessMoved(lease, doc, input, () => prepare(lease, input, state));
      timings.prepare = (timings.prepare ?? 0) + performance.now() - mark;
      if (prepared.outcome === 'moved') await arrival(lease, doc, input, prepared);
      if (prepared.outcome === 'moved' || doc.commits !== settled) continue;
      plan = prepared.outcome;
    }

    mark = performance.now();
    const shot = await unlessMoved(lease, doc, input, () => step.take(lease, plan, state));
    timings.capture += performance.now() - mark;
    if (shot.outcome !== 'moved') {
      return { raw: shot.outcome, finalUrl: page.url(), response, ...(plan !== undefined ? { plan } : {}) };
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
