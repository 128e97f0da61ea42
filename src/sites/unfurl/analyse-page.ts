/**
 * What one network's crawler got from the page, judged: could it read the page at all (answer,
 * status, robots.txt, HTML), and which title and description it shows. Each problem carries
 * the exact change that fixes it; nothing is reported that the network would not suffer from.
 */
import type { HeadRead } from '../head/reader.js';
import type { Platform } from '../platforms.js';
import type { RobotsRules } from './robots.js';
import type { Found as Problem } from './types.js';

/** A read the crawler could use (answered, 2xx, allowed, HTML). */
export type UsableRead = Extract<HeadRead, { ok: true }>;

/** Statuses a server gives a client it refuses to serve (rather than a page that is missing or broken). */
const REFUSALS = new Set([401, 403, 406, 429, 451]);

/**
 * The problems that stop `p`'s crawler before any tag is read, or an empty list when it can
 * read the page. `others` are the other crawlers' reads: a 403 to this one alone is the server
 * refusing the crawler, not a broken page.
 */
export function readingProblems(
  p: Platform,
  read: HeadRead,
  robots: RobotsRules,
  url: string,
  others: readonly HeadRead[],
): { problems: Problem[]; usable: UsableRead | null } {
  const problems: Problem[] = [];
  if (p.robotsToken && !robots.allows(url, p.robotsToken)) {
    const path = new URL(url).pathname;
    problems.push({
      code: 'robots_disallowed',
      severity: 'error',
      message: `robots.txt (${robots.url}) disallows ${p.robotsToken}, so ${p.name} shows no card`,
      fix: `User-agent: ${p.robotsToken}\nAllow: ${path}`,
    });
  }
  if (!read.ok) {
    problems.push(failureProblem(p, read));
    return { problems, usable: null };
  }
  problems.push(...redirectProblems(read));
  if (read.status < 200 || read.status > 299) {
    problems.push(statusProblem(p, read, others));
    return { problems, usable: null };
  }
  if (read.contentType !== null && !/^(text\/html|application\/xhtml\+xml)\b/i.test(read.contentType)) {
    problems.push({
      code: 'not_html',
      severity: 'error',
      message: `The page is ${read.contentType}, not HTML: there is no head to read tags from`,
      fix: 'Content-Type: text/html; charset=utf-8',
    });
    return { problems, usable: null };
  }
  if (read.headTruncated) {
    problems.push({
      code: 'head_too_large',
      severity: 'warning',
      message: `The <head> does not end within the first ${Math.round(read.bytes / 1024)} KB: crawlers stop reading there and miss the tags after it`,
      fix: 'Move the og: and twitter: <meta> tags to the top of <head>, before large inline scripts and styles',
    });
  }
  const blocked = problems.some((x) => x.code === 'robots_disallowed');
  return { problems, usable: blocked ? null : read };
}

function failureProblem(p: Platform, read: Extract<HeadRead, { ok: false }>): Problem {
  if (read.failure === 'timeout') {
    return {
      code: 'page_timeout',
      severity: 'error',
      message: `The page's <head> did not arrive in time for ${p.name}'s crawler`,
      general: "The page's <head> did not arrive in time: crawlers give up and show no card",
      fix: 'Serve the <head> within a few seconds (crawlers give up after 5–10 s): cache the page or flush the head first',
    };
  }
  if (read.failure === 'too_many_redirects') {
    return {
      code: 'redirect_chain',
      severity: 'error',
      message: `The page redirects more than ${read.chain.length - 1} times: crawlers give up`,
      fix: 'Link the final URL directly and keep at most one redirect',
    };
  }
  const reason = read.failure === 'refused' ? 'an address that is not allowed' : 'the connection failed';
  return {
    code: 'page_unreachable',
    severity: 'error',
    message: `${p.name}'s crawler could not reach the page (${reason})`,
    general: `The crawlers could not reach the page (${reason})`,
    fix: null,
  };
}

function redirectProblems(read: UsableRead): Problem[] {
  const hops = read.chain.length - 1;
  if (hops < 1) return [];
  const path = read.chain.map((h) => `${h.url} (${h.status})`).join(' → ');
  return [
    {
      code: 'redirect_chain',
      // One redirect (http → https, a trailing slash) costs one round trip; a chain costs each
      // crawler's patience, and some cache the first URL's answer.
      severity: hops > 1 ? 'warning' : 'info',
      message: `The link redirects ${hops === 1 ? 'once' : `${hops} times`}: ${path}`,
      fix: `Share ${read.finalUrl} and point og:url at it: <meta property="og:url" content="${read.finalUrl}">`,
    },
  ];
}

function statusProblem(p: Platform, read: UsableRead, others: readonly HeadRead[]): Problem {
  const servedOthers = others.some((o) => o.ok && o.status >= 200 && o.status <= 299);
  if (REFUSALS.has(read.status) && servedOthers) {
    return {
      code: 'crawler_blocked',
      severity: 'error',
      message: `The server answered ${read.status} to ${p.name}'s crawler while others got the page`,
      fix: `Let the User-Agent "${p.userAgent}" through your firewall, CDN bot rules or WAF`,
    };
  }
  return {
    code: 'page_status',
    severity: 'error',
    message: `The page answered HTTP ${read.status}: crawlers show no card for an error page`,
    fix: 'Answer 200 for the shared URL (or link the page that does)',
  };
}

/** The title `p` shows, and the problems with it. */
export function titleOf(p: Platform, read: UsableRead): { title: string | null; problems: Problem[] } {
  const { og, twitter, title } = read.meta;
  const tagged = (p.prefersTwitterTags ? twitter['twitter:title'] : undefined) ?? og['og:title'];
  const chosen = tagged ?? title;
  const problems: Problem[] = [];
  if (chosen === null || chosen === undefined) {
    problems.push({
      code: 'title_missing',
      severity: 'error',
      message: 'The page has neither og:title nor <title>: networks show no card without a title',
      fix: '<meta property="og:title" content="…">',
    });
    return { title: null, problems };
  }
  if (!tagged) {
    problems.push({
      code: 'og_title_missing',
      severity: 'warning',
      message: 'No og:title: networks fall back on <title>, which often carries the site name too',
      fix: `<meta property="og:title" content="${attr(chosen)}">`,
    });
  }
  return { title: cut(chosen, p.titleMax, p, 'title', problems), problems };
}

/** The description `p` shows (null where it shows none), and the problems with it. */
export function descriptionOf(
  p: Platform,
  read: UsableRead,
): { description: string | null; dropped: boolean; problems: Problem[] } {
  const { og, twitter, description } = read.meta;
  const tagged = (p.prefersTwitterTags ? twitter['twitter:description'] : undefined) ?? og['og:description'];
  // Slack reads og:description (or twitter:description) only: without one the unfurl is dropped.
  const chosen = tagged ?? (p.needsDescription ? undefined : (description ?? undefined));
  const problems: Problem[] = [];
  if (p.descriptionMax === 0 && !p.needsDescription) return { description: null, dropped: false, problems };
  if (chosen === undefined) {
    problems.push(
      p.needsDescription
        ? {
            code: 'og_description_missing',
            severity: 'error',
            message: `No og:description: ${p.name} drops the link preview`,
            fix: `<meta property="og:description" content="${attr(description ?? '…')}">`,
          }
        : {
            code: 'description_missing',
            severity: 'warning',
            message: 'No og:description or meta description: the card shows a title alone',
            fix: '<meta property="og:description" content="…">',
          },
    );
    return { description: null, dropped: p.needsDescription, problems };
  }
  return { description: cut(chosen, p.descriptionMax, p, 'description', problems), dropped: false, problems };
}

/** `text` cut to `max` characters (code points) with an ellipsis, as the networks cut it. */
export function cutText(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max
    ? text
    : `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}

function cut(text: string, max: number, p: Platform, what: 'title' | 'description', out: Problem[]): string {
  const shown = cutText(text, max);
  if (shown !== text) {
    out.push({
      code: what === 'title' ? 'title_cut' : 'description_cut',
      severity: 'info',
      message: `${p.name} cuts the ${what} at about ${max} characters (it has ${[...text].length})`,
      general: `The ${what} is cut short (it has ${[...text].length} characters)`,
      fix: null,
    });
  }
  return shown;
}

/** A value for a double-quoted HTML attribute. */
export function attr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
