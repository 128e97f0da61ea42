/**
 * The rules that judge each of a capture's requests by its own URL before Chromium sends it:
 * the credentials' headers for the page's origin (credentials.ts), and, for a site's page read
 * in the browser (sites/og/browser-reader.ts), its main frame kept on the site's origins.
 *
 * One Fetch interception on the capture's session carries both: a second `Fetch.enable` on the
 * session would replace the first one's patterns, and two handlers would each continue the same
 * request. Chromium pauses each hop of a redirect as its own request, so a redirect off the site
 * is stopped before its first byte is asked for, where the page's final URL could only be
 * refused after the other site had answered. A blocking option adds Playwright's own
 * interception (page.route); Chromium passes a request through both.
 */
import { endPage } from '../browser/browser.js';
import type { Lease } from '../browser/lease.js';

/** A URL's origin as requests are compared with it (`''` for one that does not parse). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/** The headers a request to `url` goes with instead of `headers`; undefined to send it as it is. */
export type HeaderRule = (
  url: string,
  headers: Record<string, string>,
) => Array<{ name: string; value: string }> | undefined;

export interface GateRules {
  headers?: HeaderRule;
  /** Origins the main frame may load a document from; absent: any the URL guard allows. */
  stayOn?: readonly string[];
}

export interface RequestGate {
  /** The first main-frame document the gate refused (a redirect or a move off `stayOn`). */
  readonly left: string | undefined;
  /**
   * Ends the capture's use of the gate. Header rules come off; a site's gate stays on, refusing
   * every main-frame document, until the context closes: `Fetch.disable` lets every request
   * held paused go on (measured), and a page moving itself off the site keeps asking.
   */
  detach(): void;
}

interface Paused {
  requestId: string;
  request: { url: string; headers: Record<string, string> };
  frameId: string;
  resourceType: string;
}

/** Starts the interception for `rules`; none at all when there is nothing to judge. */
export async function attachRequestGate(lease: Lease, rules: GateRules): Promise<RequestGate> {
  const { headers, stayOn } = rules;
  let left: string | undefined;
  let ended = false;
  if (!headers && !stayOn) return { left, detach: () => {} };
  const allowed = new Set(stayOn ?? []);
  // The main frame keeps its id across documents, cross-process ones included.
  const mainFrame = stayOn ? (await lease.cdp.send('Page.getFrameTree')).frameTree.frame.id : undefined;
  /**
   * The capture is refused whatever follows, so it ends now (endPage: sealed, then closed). A page
   * moving itself off the site again and again would otherwise be answered here move after move
   * until the time-out; without the seal, one capture in ~8 got a last move out as it closed.
   */
  const leave = (url: string) => {
    if (left !== undefined || ended) return;
    left = url;
    endPage(lease);
  };
  const onPaused = (e: Paused) => {
    if (
      mainFrame !== undefined &&
      e.resourceType === 'Document' &&
      e.frameId === mainFrame &&
      (ended || !allowed.has(originOf(e.request.url)))
    ) {
      // Aborted, not refused: Chromium shows no error page, the document standing stays.
      void lease.cdp
        .send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'Aborted' })
        .catch(() => {});
      leave(e.request.url);
      return;
    }
    const replaced = headers?.(e.request.url, e.request.headers);
    // Every paused request must go on, whatever happens here, or the page waits for it forever.
    void lease.cdp
      .send('Fetch.continueRequest', { requestId: e.requestId, ...(replaced ? { headers: replaced } : {}) })
      .catch(() => {});
  };
  lease.cdp.on('Fetch.requestPaused', onPaused);
  if (stayOn) {
    // The earlier sign of a move: Chromium announces a navigation when it starts, and a page
    // that moves again every few milliseconds has each move replaced by the next before it
    // reaches the interception (seen on a busy machine: the read then waited out its deadline).
    lease.page.on('request', (r) => {
      if (
        r.isNavigationRequest() &&
        r.frame() === lease.page.mainFrame() &&
        !allowed.has(originOf(r.url()))
      ) {
        leave(r.url());
      }
    });
  }
  // Without headers to add, only documents are paused: the page's other requests never wait on us.
  await lease.cdp.send('Fetch.enable', {
    patterns: [
      { urlPattern: '*', requestStage: 'Request', ...(headers ? {} : { resourceType: 'Document' }) },
    ],
  });
  return {
    get left() {
      return left;
    },
    detach() {
      if (stayOn) {
        // The capture is over: no document may load in its page any more, on the site or off it.
        ended = true;
        return;
      }
      lease.cdp.off('Fetch.requestPaused', onPaused);
      void lease.cdp.send('Fetch.disable').catch(() => {});
    },
  };
}
