/**
 * The image one network draws for the page, judged against that network's rules
 * (platforms.ts): which tag it reads, whether the URL is usable, the image's type, bytes and
 * pixels, and which layout (large image or thumbnail) it gets, with the crop of its frame.
 */
import type { Platform } from '../platforms.js';
import type { UsableRead } from './analyse-page.js';
import { attr } from './analyse-page.js';
import type { ImageLook } from './image.js';
import type { CardImage, PlatformView, Found as Problem } from './types.js';

/** Where the image tag of `read` points for `p`: absolute, relative, or none. */
export function imageTagOf(p: Platform, read: UsableRead): string | null {
  const { og, twitter } = read.meta;
  const fromTwitter = twitter['twitter:image'] ?? twitter['twitter:image:src'];
  return (p.prefersTwitterTags ? fromTwitter : undefined) ?? og['og:image'] ?? fromTwitter ?? null;
}

/** The absolute http(s) URL an image tag names, or null when it is relative or not http(s). */
export function absoluteImageUrl(tag: string): string | null {
  try {
    const u = new URL(tag);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

/** What the card looks like for `p` and what is wrong with its image. */
export function imageOf(
  p: Platform,
  read: UsableRead,
  looks: ReadonlyMap<string, ImageLook>,
  suggestion: string,
): { card: PlatformView['card']; cardName: string | null; image: CardImage | null; problems: Problem[] } {
  const problems: Problem[] = [];
  const twitterCard = read.meta.twitter['twitter:card']?.toLowerCase() ?? null;
  const cardName = p.id === 'x' ? (twitterCard === 'summary_large_image' ? twitterCard : 'summary') : null;
  const tag = imageTagOf(p, read);
  if (p.largeNeedsTwitterCard && twitterCard === null) {
    problems.push({
      code: 'twitter_card_missing',
      severity: 'warning',
      message: `No twitter:card: ${p.name} draws at most a small summary card`,
      general: 'No twitter:card: the networks that read it draw at most a small summary card',
      fix: '<meta name="twitter:card" content="summary_large_image">',
    });
  }
  if (tag === null) {
    problems.push({
      code: 'og_image_missing',
      severity: 'error',
      message: 'No og:image: the card has no picture',
      fix: `<meta property="og:image" content="${attr(suggestion)}">`,
    });
    return { card: 'summary', cardName, image: null, problems };
  }
  const url = absoluteImageUrl(tag);
  if (url === null) {
    const resolved = safeResolve(tag, read.finalUrl);
    problems.push({
      code: 'og_image_relative',
      severity: 'error',
      message: `og:image "${tag}" is not an absolute URL: crawlers do not resolve it against the page`,
      fix: `<meta property="og:image" content="${attr(resolved ?? suggestion)}">`,
    });
    return { card: 'summary', cardName, image: null, problems };
  }
  if (url.startsWith('http:')) {
    problems.push({
      code: 'og_image_not_https',
      severity: 'warning',
      message: `og:image is served over http: some apps refuse mixed content and show no image`,
      fix: `<meta property="og:image" content="${attr(url.replace(/^http:/, 'https:'))}">`,
    });
  }
  const look = looks.get(url);
  const refused = look ? refusal(p, look) : null;
  if (!look || refused) {
    if (refused) problems.push(refused);
    return { card: 'summary', cardName, image: null, problems };
  }
  const layout = layoutOf(p, look, twitterCard);
  problems.push(...layout.problems);
  return { card: layout.card, cardName, image: layout.image, problems };
}

/** Large image or thumbnail for a usable image, and the crop of its frame. */
function layoutOf(
  p: Platform,
  look: ImageLook,
  twitterCard: string | null,
): { card: 'large' | 'summary'; image: CardImage; problems: Problem[] } {
  const problems: Problem[] = [];
  const w = look.width ?? 0;
  const h = look.height ?? 0;
  const wantsLarge = !p.largeNeedsTwitterCard || twitterCard === 'summary_large_image';
  const fitsLarge = w >= p.large.minWidth && h >= p.large.minHeight && (!p.largeNeedsLandscape || w > h);
  if (twitterCard === 'summary' && p.largeNeedsTwitterCard && w >= p.large.minWidth && w / h >= 1.5) {
    problems.push({
      code: 'twitter_card_summary',
      severity: 'warning',
      message: `twitter:card is "summary": ${p.name} draws this wide ${w}×${h} image as a small square thumbnail`,
      general: `twitter:card is "summary": this wide ${w}×${h} image is drawn as a small square thumbnail`,
      fix: '<meta name="twitter:card" content="summary_large_image">',
    });
  }
  if (wantsLarge && !fitsLarge) {
    problems.push({
      code: 'image_small_for_large',
      severity: 'warning',
      message: `${p.name} needs at least ${p.large.minWidth}×${p.large.minHeight}${p.largeNeedsLandscape ? ' (landscape)' : ''} for a large image; this one (${w}×${h}) is drawn as a thumbnail`,
      general: `This ${w}×${h} image is too small for the large layout: it is drawn as a thumbnail`,
      fix: 'Use a 1200×630 image',
    });
  }
  const large = wantsLarge && fitsLarge;
  const frame = large ? p.large.aspect : 1;
  const cropped = Math.abs(w / h / frame - 1) > 0.06;
  if (large && cropped) {
    problems.push({
      code: 'image_cropped',
      severity: 'info',
      message: `${p.name} crops this ${w}×${h} image to ${aspectText(frame)}`,
      general: `This ${w}×${h} image is cropped to the card's proportions`,
      fix: 'Use a 1200×630 image (1.91:1) to keep its edges',
    });
  }
  return {
    card: large ? 'large' : 'summary',
    image: { url: look.url, width: look.width, height: look.height, aspect: aspectText(frame), cropped },
    problems,
  };
}

/** Why `p` draws no image from `look`, or null when it can. */
function refusal(p: Platform, look: ImageLook): Problem | null {
  if (look.failure !== null || look.status === null) {
    return {
      code: 'image_unreachable',
      severity: 'error',
      message: `og:image could not be fetched (${look.status !== null ? `HTTP ${look.status}` : (look.failure ?? 'no answer')}): the card has no picture`,
      fix: `Serve ${look.url} with status 200 to crawlers`,
    };
  }
  if (look.type === null || !(p.types as readonly string[]).includes(look.type)) {
    const what = look.type
      ? look.type.toUpperCase()
      : `not an image (${look.contentType ?? 'no Content-Type'})`;
    return {
      code: 'image_wrong_type',
      severity: 'error',
      message: `og:image is ${what}: ${p.name} draws ${p.types.map((t) => t.toUpperCase()).join(', ')} only`,
      general: `og:image is ${what}, which these networks do not draw`,
      fix: 'Point og:image at a PNG or JPEG',
    };
  }
  const tooBig = look.bytes !== null && look.bytes > p.maxBytes;
  const w = look.width ?? 0;
  const h = look.height ?? 0;
  if (tooBig || (p.maxSide > 0 && (w > p.maxSide || h > p.maxSide))) {
    return {
      code: 'image_too_large',
      severity: 'error',
      message: tooBig
        ? `og:image is ${megabytes(look.bytes ?? 0)}: ${p.name} skips images over ${megabytes(p.maxBytes)}`
        : `og:image is ${w}×${h}: ${p.name} refuses images over ${p.maxSide}×${p.maxSide}`,
      general: `og:image is ${tooBig ? megabytes(look.bytes ?? 0) : `${w}×${h}`}: too large for these networks`,
      fix: 'Use a 1200×630 PNG or JPEG under 300 KB',
    };
  }
  if (w < p.minImage.width || h < p.minImage.height) {
    return {
      code: 'image_too_small',
      severity: 'error',
      message: `og:image is ${w}×${h}: ${p.name} ignores images under ${p.minImage.width}×${p.minImage.height}`,
      general: `og:image is ${w}×${h}: too small for these networks`,
      fix: 'Use a 1200×630 image',
    };
  }
  return null;
}

function safeResolve(tag: string, base: string): string | null {
  try {
    return new URL(tag, base).href;
  } catch {
    return null;
  }
}

function aspectText(ratio: number): string {
  return `${Number.isInteger(ratio) ? ratio : ratio.toFixed(2).replace(/0$/, '')}:1`;
}

function megabytes(n: number): string {
  return n < 1024 * 1024 ? `${Math.round(n / 1024)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}
