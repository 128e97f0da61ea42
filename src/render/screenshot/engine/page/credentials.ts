/**
 * The credentials of a POST /render/url in the page (issue 29 §2), sent to the page's own origin
 * only: the URL's scheme, host and port. Cookies are host-only cookies of that host, set before
 * the page loads, so the browser sends them as it would its own (a browser sends a host's
 * cookies to each of its ports; secure ones only over https). Headers and Basic auth are added
 * to each request the page makes to that exact origin, and to nothing else.
 *
 * The headers are added by our own Fetch interception (request-gate.ts), not
 * `route.continue({ headers })`: Playwright applies a route's header overrides to every redirect
 * the request makes too, so a redirect to another origin would carry the token there.
 */
import type { ShotCredentials } from '../../credentials.js';
import type { Lease } from '../browser/lease.js';
import { type HeaderRule, originOf } from './request-gate.js';

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
 * Sets the cookies for `url`'s origin, and returns what adds the headers and Basic auth to a
 * request (request-gate.ts): the request's headers with them, for that exact origin only;
 * undefined for any other request, or when there are none.
 */
export async function attachCredentials(
  lease: Lease,
  url: string,
  c: ShotCredentials,
): Promise<HeaderRule | undefined> {
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
  if (extra.length === 0) return undefined;
  const names = new Set(extra.map(([n]) => n.toLowerCase()));
  return (requestUrl, headers) =>
    originOf(requestUrl) === origin
      ? [
          ...Object.entries(headers)
            .filter(([n]) => !names.has(n.toLowerCase()))
            .map(([name, value]) => ({ name, value: String(value) })),
          ...extra.map(([name, value]) => ({ name, value })),
        ]
      : undefined;
}
