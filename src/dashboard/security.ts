import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpConfig } from '../http/settings.js';

/**
 * Only our own files: no inline script or style (so an injected tag or attribute does
 * nothing), no framing (clickjacking), forms post only to us, no <base> tricks, no plugins.
 * img-src allows data: for nothing but the browser's own broken-image placeholder styles, and
 * blob: for the screenshot playground, which fetches its capture (to read the API's error and
 * headers) and shows the bytes it got; only our own script can make a blob: URL.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  // The screenshot playground shows a PDF capture from a blob: URL it made itself.
  'frame-src blob:',
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join('; ');

/** Headers on every dashboard response. */
export function setSecurityHeaders(reply: FastifyReply, secure: boolean, asset: boolean): void {
  reply.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('X-Frame-Options', 'DENY');
  // An invite token is in the invite page's URL: no page hands its URL to another site.
  // (Not no-referrer: with it, browsers send `Origin: null` on form posts and the origin check fails.)
  reply.header('Referrer-Policy', 'same-origin');
  reply.header('Cross-Origin-Opener-Policy', 'same-origin');
  reply.header('Cross-Origin-Resource-Policy', 'same-origin');
  reply.header('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
  reply.header('X-Robots-Tag', 'noindex, nofollow');
  if (secure) reply.header('Strict-Transport-Security', 'max-age=31536000');
  if (!asset) {
    // Keys are shown once: no page may be kept by the browser, a proxy or the back button.
    reply.header('Cache-Control', 'no-store');
    reply.header('Vary', 'Cookie');
  }
}

/** True when the browser reached us over https. */
export function isSecure(req: FastifyRequest, config: Pick<HttpConfig, 'publicUrl'>): boolean {
  return req.protocol === 'https' || config.publicUrl.startsWith('https://');
}

/** The dashboard's cookies: the session, the pre-session (login CSRF) and the device cookie (sign-in limits). */
export type CookieKind = 'session' | 'pre' | 'device';

/**
 * Cookie names. Over https the `__Host-` prefix makes the browser refuse the cookie unless it
 * is Secure, host-only and for path /, so a sibling subdomain cannot plant or shadow it.
 */
export function cookieName(kind: CookieKind, secure: boolean): string {
  return `${secure ? '__Host-' : ''}cardshot_${kind}`;
}

/**
 * Reads a dashboard cookie. Over https only the `__Host-` name counts: reading the plain name
 * too would let a sibling subdomain plant a session cookie the prefix exists to refuse.
 */
export function readCookie(req: FastifyRequest, kind: CookieKind, secure: boolean): string | undefined {
  return req.cookies[cookieName(kind, secure)];
}

/** Sets an HttpOnly, SameSite=Lax cookie for the whole site (Secure over https). */
export function setCookie(
  reply: FastifyReply,
  kind: CookieKind,
  value: string,
  maxAgeSeconds: number,
  secure: boolean,
): void {
  reply.setCookie(cookieName(kind, secure), value, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure,
    maxAge: maxAgeSeconds,
  });
}

/** Deletes a dashboard cookie under both names. */
export function clearCookie(reply: FastifyReply, kind: CookieKind, secure: boolean): void {
  reply.clearCookie(cookieName(kind, false), { path: '/' });
  if (secure) reply.clearCookie(cookieName(kind, true), { path: '/', secure: true });
}

/**
 * Origin check for state-changing requests: when the browser says where the request came
 * from (Origin, or else Referer), it must be this site. A request with neither still needs
 * its CSRF token; browsers send Origin on every cross-site POST.
 */
export function sameOrigin(req: FastifyRequest, config: Pick<HttpConfig, 'publicUrl'>): boolean {
  const allowed = new Set([`${req.protocol}://${req.host}`]);
  if (config.publicUrl !== '') {
    try {
      allowed.add(new URL(config.publicUrl).origin);
    } catch {
      // A malformed public URL adds nothing.
    }
  }
  const origin = req.headers.origin;
  if (typeof origin === 'string') return allowed.has(origin);
  const referer = req.headers.referer;
  if (typeof referer === 'string') {
    try {
      return allowed.has(new URL(referer).origin);
    } catch {
      return false;
    }
  }
  return true;
}
