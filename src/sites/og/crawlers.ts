/**
 * Which card size each crawler gets at `/og` (issue 30 §1): the networks of the unfurl table
 * (platforms.ts, whose User-Agents the tests feed through this one) plus Pinterest and Apple's
 * own bot. One table, read by the route and by docs/sites.md (kept in step by a test). The
 * first row whose pattern matches wins, so the combined User-Agent iMessage sends
 * (`facebookexternalhit/1.1 Facebot Twitterbot/1.0`) is matched before its parts.
 */
import type { SizeName } from '../../render/template/types.js';

export interface CrawlerSize {
  /** The network, as docs/sites.md names it. */
  name: string;
  /** What its User-Agent contains (case-insensitive). */
  match: RegExp;
  /** How the docs quote the token. */
  token: string;
  size: SizeName;
  /** Why this size. */
  why: string;
}

export const CRAWLER_SIZES: readonly CrawlerSize[] = [
  {
    name: 'iMessage (Apple)',
    match: /facebot twitterbot|applebot/i,
    token: 'Facebot Twitterbot, Applebot',
    size: 'og',
    why: 'a wide preview (Apple asks for a wide image)',
  },
  {
    name: 'WhatsApp',
    match: /whatsapp/i,
    token: 'WhatsApp',
    size: 'og',
    why: 'the Open Graph image, drawn wide',
  },
  {
    name: 'Telegram',
    match: /telegrambot/i,
    token: 'TelegramBot',
    size: 'og',
    why: 'the Open Graph image, drawn wide',
  },
  {
    name: 'X (Twitter)',
    match: /twitterbot/i,
    token: 'Twitterbot',
    size: 'twitter',
    why: 'the `twitter` preset, for summary_large_image',
  },
  {
    name: 'LinkedIn',
    match: /linkedinbot/i,
    token: 'LinkedInBot',
    size: 'linkedin',
    why: 'LinkedIn documents 1200×627',
  },
  {
    name: 'Facebook',
    match: /facebookexternalhit|facebot/i,
    token: 'facebookexternalhit',
    size: 'og',
    why: 'Facebook documents 1200×630 (1.91:1)',
  },
  {
    name: 'Slack',
    match: /slackbot/i,
    token: 'Slackbot',
    size: 'og',
    why: 'the Open Graph image, drawn wide',
  },
  {
    name: 'Discord',
    match: /discordbot/i,
    token: 'Discordbot',
    size: 'og',
    why: 'the Open Graph image, drawn wide',
  },
  {
    name: 'Pinterest',
    match: /pinterest/i,
    token: 'Pinterest',
    size: 'square',
    why: 'pins are tall: a square card is cropped least',
  },
  {
    name: 'Mastodon',
    match: /mastodon/i,
    token: 'Mastodon',
    size: 'og',
    why: 'the Open Graph image, drawn wide',
  },
];

/** What any other client gets: the Open Graph size. */
export const DEFAULT_CRAWLER_SIZE: SizeName = 'og';

/** The size for a User-Agent, among the sizes the template lays out (its first otherwise). */
export function sizeForAgent(userAgent: string | undefined, sizes: readonly SizeName[]): SizeName {
  const row = userAgent ? CRAWLER_SIZES.find((c) => c.match.test(userAgent)) : undefined;
  const wanted = row?.size ?? DEFAULT_CRAWLER_SIZE;
  if (sizes.includes(wanted)) return wanted;
  if (sizes.includes(DEFAULT_CRAWLER_SIZE)) return DEFAULT_CRAWLER_SIZE;
  return sizes[0] ?? DEFAULT_CRAWLER_SIZE;
}

/** docs/sites.md's table of crawlers and sizes. */
export function crawlerTableMarkdown(dimensions: (size: SizeName) => string): string {
  return [
    '| crawler | User-Agent contains | size | pixels | why |',
    '|---|---|---|---|---|',
    ...CRAWLER_SIZES.map(
      (c) =>
        `| ${c.name} | ${c.token
          .split(', ')
          .map((t) => `\`${t}\``)
          .join(', ')} | \`${c.size}\` | ${dimensions(c.size)} | ${c.why} |`,
    ),
    `| anything else | | \`${DEFAULT_CRAWLER_SIZE}\` | ${dimensions(DEFAULT_CRAWLER_SIZE)} | the Open Graph size |`,
  ].join('\n');
}
