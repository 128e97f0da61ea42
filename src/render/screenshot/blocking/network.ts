/**
 * Network blocking for one page: every request the page makes is matched against the engines
 * and blocked (or answered with the list's empty stand-in) before it leaves Chromium.
 *
 * Why `page.route`: it pauses every request of this page only (CDP Fetch, pattern `*`), which a
 * capture with blocking options pays and no other does (the contexts give Playwright no proxy
 * credentials, so it intercepts nothing unless asked). The egress proxy cannot decide instead:
 * for https it sees only the host of a CONNECT, and most rules name paths or depend on the page
 * that asked (third-party, domain=).
 */
import type { Request as FilterRequest, FiltersEngine, RequestType } from '@ghostery/adblocker';
import type { Frame, Request, Route } from 'playwright-core';

type MakeRequest = (details: { url: string; sourceUrl: string; type: RequestType }) => FilterRequest;

/** What a matched request is answered with: nothing (blocked) or the list's stand-in body. */
type Verdict = { kind: 'block' } | { kind: 'stub'; body: Buffer; contentType: string };

/** Blocked URLs remembered per page, for hiding the elements that asked for them. */
const MAX_REMEMBERED = 500;
/** Longer URLs are blocked all the same, but not remembered (memory per page stays bounded). */
const MAX_REMEMBERED_URL = 2048;

/** The page's network blocking: what it blocked so far, and how to take the handler off. */
export interface NetworkBlocking {
  /** URLs blocked so far (up to 500 of them). */
  readonly blocked: ReadonlySet<string>;
  /** Requests blocked or stubbed so far. */
  readonly count: number;
  detach(): Promise<void>;
}

/** The URL of the document a request comes from (its frame's, or the nearest ancestor's with one). */
function documentUrl(frame: Frame | null): string {
  for (let f = frame; f; f = f.parentFrame()) {
    const url = f.url();
    if (url && url !== 'about:blank' && url !== 'about:srcdoc') return url;
  }
  return '';
}

/** The frame a request belongs to; service-worker requests have none (Playwright throws). */
function frameOf(request: Request): Frame | null {
  try {
    return request.frame();
  } catch {
    return null;
  }
}

/**
 * The verdict for one request, or undefined to let it through. The page's own document is
 * never blocked: it is what the caller asked to see.
 */
export function judge(
  request: Request,
  engines: readonly FiltersEngine[],
  make: MakeRequest,
): Verdict | undefined {
  const kind = request.resourceType();
  const frame = frameOf(request);
  const isDocument = kind === 'document';
  if (isDocument && (frame === null || frame.parentFrame() === null)) return undefined;
  const filterRequest = make({
    url: request.url(),
    // A frame's own document is judged by the page that embeds it (third-party, domain=).
    sourceUrl: documentUrl(isDocument ? frame!.parentFrame() : frame),
    type: isDocument ? 'sub_frame' : (kind as RequestType),
  });
  if (!filterRequest.isSupported) return undefined;
  for (const engine of engines) {
    const { match, redirect } = engine.match(filterRequest);
    if (redirect) {
      // A redirect rule names a harmless stand-in (an empty script, a 1×1 GIF) that keeps pages
      // that call into the blocked script working; its type says whether the body is base64.
      const base64 = redirect.contentType.endsWith(';base64');
      return {
        kind: 'stub',
        body: Buffer.from(redirect.body, base64 ? 'base64' : 'utf8'),
        contentType: base64 ? redirect.contentType.slice(0, -';base64'.length) : redirect.contentType,
      };
    }
    if (match) return { kind: 'block' };
  }
  return undefined;
}

/** Starts blocking the page's requests; `detach` stops it. */
export async function blockRequests(
  page: import('playwright-core').Page,
  engines: readonly FiltersEngine[],
  make: MakeRequest,
): Promise<NetworkBlocking> {
  const blocked = new Set<string>();
  let count = 0;
  const ignore = () => {};
  const handler = (route: Route) => {
    let verdict: Verdict | undefined;
    try {
      verdict = judge(route.request(), engines, make);
    } catch {
      // A URL the engine cannot parse is let through, as a visitor's browser would.
      verdict = undefined;
    }
    if (!verdict) return void route.fallback().catch(ignore);
    count++;
    const url = route.request().url();
    if (blocked.size < MAX_REMEMBERED && url.length <= MAX_REMEMBERED_URL) blocked.add(url);
    if (verdict.kind === 'stub') {
      return void route
        .fulfill({ status: 200, contentType: verdict.contentType, body: verdict.body })
        .catch(ignore);
    }
    // `blockedbyclient` is what an extension's block looks like to the page (ERR_BLOCKED_BY_CLIENT).
    route.abort('blockedbyclient').catch(ignore);
  };
  await page.route('**/*', handler);
  return {
    blocked,
    get count() {
      return count;
    },
    async detach() {
      await page.unroute('**/*', handler).catch(ignore);
      blocked.clear();
    },
  };
}
