/**
 * How each network unfurls a link: the crawler's User-Agent, its robots.txt token, what it cuts
 * titles and descriptions to, and which images it draws and how. One table, read by the unfurl
 * check (unfurl/analyse.ts), the dashboard's Link preview and docs/unfurl.md (kept in step by
 * test/sites/platforms-doc.test.ts).
 *
 * Where a figure comes from is said beside it. "Documented" means the network's own developer
 * pages (as of 2025–2026); "observed" means what the network draws today, measured by the
 * preview tools and the people who fight these caches, since several networks document no
 * limit at all. Networks change these without notice: an observed figure is a guide, which is
 * why the check reports cut text as `info`, never as an error.
 */

/** A network's id in the API and the CLI. */
export type PlatformId =
  | 'x'
  | 'linkedin'
  | 'facebook'
  | 'slack'
  | 'discord'
  | 'whatsapp'
  | 'imessage'
  | 'telegram'
  | 'mastodon';

/** The image types every network here decodes; SVG and AVIF are drawn by none of them. */
export type ImageType = 'png' | 'jpeg' | 'gif' | 'webp';

/** The layout a network gives a link: a wide image on top, a small thumbnail beside the text, or text only. */
export type CardLayout = 'large' | 'summary';

/** One network's unfurl rules. */
export interface Platform {
  id: PlatformId;
  name: string;
  /** The crawler's User-Agent, sent as the network sends it. */
  userAgent: string;
  /** The token robots.txt rules name, or null when the crawler does not read robots.txt. */
  robotsToken: string | null;
  /** Characters of the title shown before it is cut with an ellipsis. */
  titleMax: number;
  /** Characters of the description shown, or 0 when the network shows none in the card. */
  descriptionMax: number;
  /** The image the large layout needs; a smaller one is drawn as a thumbnail (or not at all). */
  large: { minWidth: number; minHeight: number; aspect: number };
  /** Below this the network draws no image at all. */
  minImage: { width: number; height: number };
  /** Pixels on a side past which the image is refused (0: no documented limit). */
  maxSide: number;
  /** Bytes past which the image is not drawn. */
  maxBytes: number;
  types: readonly ImageType[];
  /** Whether the card is dropped when the page has no description. */
  needsDescription: boolean;
  /** Reads twitter:* tags before og:* ones (X itself, and the ones that copy its cards). */
  prefersTwitterTags: boolean;
  /** Draws the large layout only for `twitter:card` summary_large_image (else a thumbnail). */
  largeNeedsTwitterCard: boolean;
  /** Draws the large layout only for landscape images (wider than tall). */
  largeNeedsLandscape: boolean;
}

const MB = 1024 * 1024;
const COMMON_TYPES: readonly ImageType[] = ['png', 'jpeg', 'gif', 'webp'];

/** The networks, in the order the report lists them. */
export const PLATFORMS: readonly Platform[] = [
  {
    id: 'x',
    name: 'X',
    // Documented: developer.x.com "Cards: Getting started" (crawler section).
    userAgent: 'Twitterbot/1.0',
    // Documented: "If your robots.txt disallows Twitterbot, the card will not be shown."
    robotsToken: 'Twitterbot',
    // Documented: twitter:title max 70 characters, twitter:description max 200 (Markup reference).
    // Since 2023 X draws only the image and the domain for large cards: the title is kept for
    // the summary card and for accessibility.
    titleMax: 70,
    descriptionMax: 200,
    // Documented: summary_large_image 2:1, at least 300×157; summary 1:1, at least 144×144;
    // at most 4096×4096 and 5 MB; JPG, PNG, WEBP, GIF (first frame). SVG is not supported.
    large: { minWidth: 300, minHeight: 157, aspect: 2 },
    minImage: { width: 144, height: 144 },
    maxSide: 4096,
    maxBytes: 5 * MB,
    types: COMMON_TYPES,
    needsDescription: false,
    prefersTwitterTags: true,
    largeNeedsTwitterCard: true,
    largeNeedsLandscape: false,
  },
  {
    id: 'linkedin',
    name: 'LinkedIn',
    // Observed: the User-Agent LinkedIn's Post Inspector and share fetches send.
    userAgent: 'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
    // Documented: LinkedIn "Making your website shareable" says LinkedInBot honours robots.txt.
    robotsToken: 'LinkedInBot',
    // Observed: two lines in the feed, about 70 characters on desktop; LinkedIn draws no
    // description in the feed any more.
    titleMax: 70,
    descriptionMax: 0,
    // Documented (same page): at least 1200×627 for the large image, 1.91:1, at most 5 MB;
    // observed: narrower than 401 px it becomes a small thumbnail on the left.
    large: { minWidth: 401, minHeight: 209, aspect: 1.91 },
    minImage: { width: 200, height: 200 },
    maxSide: 0,
    maxBytes: 5 * MB,
    types: ['png', 'jpeg', 'gif'],
    needsDescription: false,
    prefersTwitterTags: false,
    largeNeedsTwitterCard: false,
    largeNeedsLandscape: false,
  },
  {
    id: 'facebook',
    name: 'Facebook',
    // Documented: developers.facebook.com "The Facebook Crawler".
    userAgent: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    robotsToken: 'facebookexternalhit',
    // Observed: about 88 characters of title and one line (~110 characters) of description.
    titleMax: 88,
    descriptionMax: 110,
    // Documented ("Images in Link Shares"): 1.91:1; at least 600×315 for the large layout,
    // 1200×630 for high-resolution screens; under 200×200 the image is not used; at most 8 MB.
    large: { minWidth: 600, minHeight: 315, aspect: 1.91 },
    minImage: { width: 200, height: 200 },
    maxSide: 0,
    maxBytes: 8 * MB,
    types: COMMON_TYPES,
    needsDescription: false,
    prefersTwitterTags: false,
    largeNeedsTwitterCard: false,
    largeNeedsLandscape: false,
  },
  {
    id: 'slack',
    name: 'Slack',
    // Documented: api.slack.com/robots.
    userAgent: 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
    robotsToken: 'Slackbot',
    // Observed: Slack shows the whole title on one or two lines and about 300 characters of
    // description; without a description the unfurl is dropped or shrinks to the title alone.
    titleMax: 150,
    descriptionMax: 300,
    // Observed: a large image under the text for summary_large_image pages at least 500 px
    // wide, else a 75×75 thumbnail on the right.
    large: { minWidth: 500, minHeight: 250, aspect: 1.91 },
    minImage: { width: 75, height: 75 },
    maxSide: 0,
    maxBytes: 5 * MB,
    types: COMMON_TYPES,
    needsDescription: true,
    prefersTwitterTags: true,
    largeNeedsTwitterCard: true,
    largeNeedsLandscape: false,
  },
  {
    id: 'discord',
    name: 'Discord',
    // Observed: the User-Agent Discord's embed fetcher sends.
    userAgent: 'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
    robotsToken: 'Discordbot',
    // Documented: embed titles at most 256 characters (Discord API "Embed Limits"); observed:
    // link embeds show about 350 characters of description.
    titleMax: 256,
    descriptionMax: 350,
    // Observed: twitter:card summary_large_image draws the image full width (up to 400×300),
    // otherwise an 80×80 thumbnail on the right. theme-color colours the embed's left edge.
    large: { minWidth: 300, minHeight: 157, aspect: 1.91 },
    minImage: { width: 80, height: 80 },
    maxSide: 0,
    maxBytes: 8 * MB,
    types: COMMON_TYPES,
    needsDescription: false,
    prefersTwitterTags: true,
    largeNeedsTwitterCard: true,
    largeNeedsLandscape: false,
  },
  {
    id: 'whatsapp',
    name: 'WhatsApp',
    // Observed: WhatsApp's link preview fetch (the version part changes with the app).
    userAgent: 'WhatsApp/2.23.20.0 A',
    robotsToken: 'WhatsApp',
    // Observed: about 65 characters of title and 80 of description in the preview bubble.
    titleMax: 65,
    descriptionMax: 80,
    // Observed: images over about 600 KB are not shown (keep them under 300 KB to be safe);
    // wide images at least 300×157 are drawn above the text, others as a square thumbnail.
    large: { minWidth: 300, minHeight: 157, aspect: 1.91 },
    minImage: { width: 100, height: 100 },
    maxSide: 0,
    maxBytes: 600 * 1024,
    types: ['png', 'jpeg', 'webp'],
    needsDescription: false,
    prefersTwitterTags: false,
    largeNeedsTwitterCard: false,
    largeNeedsLandscape: false,
  },
  {
    id: 'imessage',
    name: 'iMessage',
    // Observed: Apple's LinkPresentation fetch announces itself as Facebook's and X's crawlers.
    userAgent:
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0',
    robotsToken: 'facebookexternalhit',
    // Observed: up to two lines of title (~80 characters) and the domain; no description.
    titleMax: 80,
    descriptionMax: 0,
    // Documented (Apple "Best practices for link previews in Messages"): a wide image, at least
    // 900 px wide for the large layout; otherwise the icon (apple-touch-icon) beside the title.
    large: { minWidth: 900, minHeight: 300, aspect: 1.91 },
    minImage: { width: 150, height: 150 },
    maxSide: 0,
    maxBytes: 10 * MB,
    types: COMMON_TYPES,
    needsDescription: false,
    prefersTwitterTags: false,
    largeNeedsTwitterCard: false,
    largeNeedsLandscape: false,
  },
  {
    id: 'telegram',
    name: 'Telegram',
    // Observed: Telegram's link preview bot.
    userAgent: 'TelegramBot (like TwitterBot)',
    robotsToken: 'TelegramBot',
    // Observed: the title on one line (~100 characters) and about 200 characters of description.
    titleMax: 100,
    descriptionMax: 200,
    // Observed: a large image under the text when the page asks for summary_large_image and the
    // image is wide, else a thumbnail on the right.
    large: { minWidth: 300, minHeight: 157, aspect: 1.91 },
    minImage: { width: 100, height: 100 },
    maxSide: 0,
    maxBytes: 5 * MB,
    types: ['png', 'jpeg', 'gif', 'webp'],
    needsDescription: false,
    prefersTwitterTags: false,
    largeNeedsTwitterCard: true,
    largeNeedsLandscape: false,
  },
  {
    id: 'mastodon',
    name: 'Mastodon',
    // Documented in Mastodon's source (FetchLinkCardService, request.rb): http.rb's client with
    // the server's name; each server fetches the card itself. It does not read robots.txt.
    userAgent: 'http.rb/5.1.1 (Mastodon/4.3.0; +https://mastodon.social/)',
    robotsToken: null,
    // Mastodon's web UI (status_card) clamps the title to two lines and the description to
    // three; about 100 and 180 characters at its column width.
    titleMax: 100,
    descriptionMax: 180,
    // Source: preview_card.rb keeps images up to 10 MB; the web UI draws landscape images
    // (wider than tall) full width, others as a square thumbnail.
    large: { minWidth: 400, minHeight: 200, aspect: 1.91 },
    minImage: { width: 100, height: 100 },
    maxSide: 0,
    maxBytes: 10 * MB,
    types: COMMON_TYPES,
    needsDescription: false,
    prefersTwitterTags: false,
    largeNeedsTwitterCard: false,
    largeNeedsLandscape: true,
  },
];

/** The network with this id. */
export function platformById(id: PlatformId): Platform {
  const p = PLATFORMS.find((x) => x.id === id);
  if (!p) throw new Error(`unknown platform ${id}`);
  return p;
}
