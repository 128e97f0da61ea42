/**
 * How the page is shown to a reader (issue 29 §3), set on the capture's own CDP session before
 * the page loads: its locale (Accept-Language, navigator.language and Intl), its time zone, and
 * the media features (media type, colour scheme, reduced motion). Each is the page's own: the
 * spare context made ahead of demand serves any of them.
 */
import type { CDPSession } from 'playwright-core';
import type { ShotOptions } from '../../options.js';
import type { Lease } from '../browser/lease.js';

/** The locale every page gets unless the request names one. */
export const DEFAULT_LOCALE = 'en-US';

/**
 * Accept-Language and navigator.language (with the User-Agent, which the same call sets) and
 * Intl's default locale. Chromium keeps one locale override per page, held by the session that
 * set it: this session sets it for the spare, and again for a capture with `locale`.
 */
export async function emulateLocale(cdp: CDPSession, userAgent: string, locale: string): Promise<void> {
  await Promise.all([
    cdp.send('Network.setUserAgentOverride', { userAgent, acceptLanguage: locale }),
    cdp.send('Emulation.setLocaleOverride', { locale }),
  ]);
}

/**
 * Locale, time zone, media features of `o`, and the caller's User-Agent (POST), on this page
 * only; nothing when none is asked for.
 */
export async function emulateReader(lease: Lease, o: ShotOptions, userAgent?: string): Promise<void> {
  const steps: Promise<unknown>[] = [];
  // One call sets both: a User-Agent of the caller's keeps the locale's Accept-Language.
  if (o.locale !== undefined || userAgent !== undefined) {
    steps.push(emulateLocale(lease.cdp, userAgent ?? lease.userAgent, o.locale ?? DEFAULT_LOCALE));
  }
  if (o.timezone !== undefined) {
    steps.push(lease.cdp.send('Emulation.setTimezoneOverride', { timezoneId: o.timezone }));
  }
  // `media` is stored only when it is not the format's own (print for a PDF, screen otherwise).
  if (o.darkMode || o.media || o.reducedMotion) {
    steps.push(
      lease.page.emulateMedia({
        ...(o.darkMode ? { colorScheme: 'dark' as const } : {}),
        ...(o.media ? { media: o.media } : {}),
        ...(o.reducedMotion ? { reducedMotion: 'reduce' as const } : {}),
      }),
    );
  }
  await Promise.all(steps);
}
