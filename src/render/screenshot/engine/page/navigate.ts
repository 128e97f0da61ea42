/** The first navigation: the requested URL up to `waitUntil`, or up to a stall. */
import type { Response } from 'playwright-core';
import { AppError } from '../../../../errors.js';
import { pause } from '../../../../lib/timeout.js';
import type { Lease } from '../browser/lease.js';
import type { CaptureInput } from './capture.js';
import { navigationFailure, netCode, redirectedAway } from './capture-errors.js';
import { answeredByProxy, type DocumentTracker } from './document.js';
import { egressError } from './failures.js';

/** After a page's load stalls (download budget, refused self-navigation), how long it may still take to settle. */
const STALL_GRACE_MS = 500;

/** Milliseconds left before the request's deadline (at least 1: a timer of 0 never fires in time). */
export const remaining = (input: CaptureInput) => Math.max(1, input.deadline - Date.now());

export interface FirstDocument {
  response: Response | null;
  /** Chromium shows its own page for an error status with an empty body. */
  showsErrorPage: boolean;
}

/** Loads the requested URL up to `waitUntil`, or up to a stall; throws what the client should hear. */
export async function navigate(
  lease: Lease,
  doc: DocumentTracker,
  input: CaptureInput,
): Promise<FirstDocument> {
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
