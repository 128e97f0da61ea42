/**
 * The navigation state of a page's main frame while it is captured: which document it shows,
 * with which answer, and whether a move to another one is under way or ended without a document.
 * Every late-navigation case (location=… in onload, a meta refresh, a refused redirect, a
 * download) is decided from these events.
 */
import type { Frame, Page, Request, Response } from 'playwright-core';
import { EGRESS_HEADER } from '../../../../net/proxy-headers.js';

/** A main-frame navigation request that failed. */
export interface FailedNavigation {
  url: string;
  error: string;
}

export interface DocumentTracker {
  /** The main frame's last failed navigation request. */
  readonly lastFailed: FailedNavigation | undefined;
  /** The main document's last answer from a real server (the proxy's own answers are kept apart). */
  readonly lastResponse: Response | undefined;
  /**
   * The answer of the document now shown: a later move that ends without a document (a
   * download) has an answer too, which must not pass for the page's.
   */
  readonly committedResponse: Response | undefined;
  /** New documents committed in the main frame so far. */
  readonly commits: number;
  /** A main-frame navigation request is under way and has not ended without a document. */
  readonly documentRequested: boolean;
  /** Resolves when the proxy itself answered a main-frame navigation (it refused the address). */
  readonly proxyAnswered: Promise<void>;
  /**
   * Resolves when a move after the first commit ended without a document (a download, a
   * failure): Chromium then never fires `load` for the page left standing.
   */
  readonly moveEnded: Promise<void>;
  /** Resolves at the next commit of a new document (one waiter at a time). */
  nextCommit(): Promise<void>;
  /** Removes the page listeners. */
  detach(): void;
}

/**
 * Starts tracking `page`'s main frame. `egressToken` marks the proxy's own answers. Main-frame
 * moves to a new document are a navigation request, then its commit; same-document navigations
 * (pushState, #hash) make no request and do not count. A request that ends without a document
 * (failed, refused by the proxy with its 204, a 204/205 or download from the site) is
 * forgotten, or a later pushState would pass for a commit.
 */
export function trackDocument(page: Page, egressToken: string): DocumentTracker {
  const main = page.mainFrame();
  const isMainNav = (r: Request) => r.isNavigationRequest() && r.frame() === main;
  let lastFailed: FailedNavigation | undefined;
  let lastResponse: Response | undefined;
  let committedResponse: Response | undefined;
  let documentRequested = false;
  let commits = 0;
  let onCommit: (() => void) | undefined;
  let markProxyAnswered!: () => void;
  const proxyAnswered = new Promise<void>((resolve) => {
    markProxyAnswered = resolve;
  });
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
    if (r.headers()[EGRESS_HEADER] === egressToken) {
      markProxyAnswered();
      documentRequested = false;
    } else {
      lastResponse = r;
      if (r.status() === 204 || r.status() === 205) documentRequested = false;
    }
  };
  const onRequest = (r: Request) => {
    if (isMainNav(r)) documentRequested = true;
  };
  const onNavigated = (f: Frame) => {
    if (f !== main || !documentRequested) return;
    documentRequested = false;
    committedResponse = lastResponse;
    commits++;
    onCommit?.();
  };
  page.on('requestfailed', onFailed);
  page.on('response', onResponse);
  page.on('request', onRequest);
  page.on('framenavigated', onNavigated);

  return {
    get lastFailed() {
      return lastFailed;
    },
    get lastResponse() {
      return lastResponse;
    },
    get committedResponse() {
      return committedResponse;
    },
    get commits() {
      return commits;
    },
    get documentRequested() {
      return documentRequested;
    },
    proxyAnswered,
    moveEnded,
    nextCommit: () =>
      new Promise<void>((resolve) => {
        onCommit = resolve;
      }),
    detach() {
      page.off('requestfailed', onFailed);
      page.off('response', onResponse);
      page.off('request', onRequest);
      page.off('framenavigated', onNavigated);
    },
  };
}

/** Whether `response` is the proxy's own answer (a refusal), not the site's. */
export function answeredByProxy(response: Response, egressToken: string): boolean {
  return response.headers()[EGRESS_HEADER] === egressToken;
}
