/**
 * The credentials of a POST /render/url in the page (issue 29 §2), sent to the page's own origin
 * only: the URL's scheme, host and port. Cookies are host-only cookies of that host, set before
 * the page loads, so the browser sends them as it would its own (a browser sends a host's
 * cookies to each of its ports; secure ones only over https). Headers and Basic auth are added
 * to each request the page makes to that exact origin, and to nothing else.
 *
 * Why our own Fetch interception and not `route.continue({ headers })`: Playwright applies a
 * route's header overrides to every redirect the request makes too, so a redirect to another
 * origin would carry the token there. Chromium pauses each hop of a redirect on this session as
 * its own request, so each hop is judged by its own URL. A blocking option adds Playwright's own
 * interception (page.route); Chromium passes a request through both.
 */
import type { ShotCredentials } from '../../credentials.js';
import type { Lease } from '../browser/lease.js';

/** The page's origin, as requests are compared with it. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/** Headers and Basic auth as the request's extra headers. */
function extraHeaders(c: ShotCredentials): Array<[string, string]> {
  const extra: Array<[string, string]> = (c.headers ?? []).map(([n, v]) => [n, v]);
  if (c.basicAuth) {
    const token = Buffer.from(`${c.basicAuth.username}:${c.basicAuth.password}`).toString('base64');
    extra.push(['Authorization', `Basic ${token}`]);
  }
  return extra;
}

/**
 * Sets the cookies and starts adding the headers for `url`'s origin. Returns what takes the
 * interception off (the context is closed after the capture anyway).
 */
export async function attachCredentials(lease: Lease, url: string, c: ShotCredentials): Promise<() => void> {
  const origin = originOf(url);
  const https = url.startsWith('https:');
  if (c.cookies) {
    await lease.cdp.send('Network.setCookies', {
      cookies: c.cookies.map((k) => ({
        name: k.name,
        value: k.value,
        // A URL and no domain: a host-only cookie, never one for the host's subdomains.
        url: `${origin}${k.path ?? '/'}`,
        path: k.path ?? '/',
        secure: k.secure ?? https,
        httpOnly: k.httpOnly ?? false,
        ...(k.sameSite ? { sameSite: k.sameSite } : {}),
      })),
    });
  }
  const extra = extraHeaders(c);
  if (extra.length === 0) return () => {};
  const names = new Set(extra.map(([n]) => n.toLowerCase()));
  const onPaused = (e: { requestId: string; request: { url: string; headers: Record<string, string> } }) => {
    const mine = originOf(e.request.url) === origin;
    const headers = mine
      ? [
          ...Object.entries(e.request.headers)
            .filter(([n]) => !names.has(n.toLowerCase()))
            .map(([name, value]) => ({ name, value: String(value) })),
          ...extra.map(([name, value]) => ({ name, value })),
        ]
      : undefined;
    // Every paused request must go on, whatever happens here, or the page waits for it forever.
    void lease.cdp
      .send('Fetch.continueRequest', { requestId: e.requestId, ...(headers ? { headers } : {}) })
      .catch(() => {});
  };
  lease.cdp.on('Fetch.requestPaused', onPaused);
  await lease.cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
  return () => {
    lease.cdp.off('Fetch.requestPaused', onPaused);
    void lease.cdp.send('Fetch.disable').catch(() => {});
  };
}
