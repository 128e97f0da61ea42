/**
 * The unfurl report from what the crawlers got: one view per network (what it shows, its
 * problems), the page as Facebook's crawler read it, and every problem once with the networks
 * it concerns. Pure: the reads are made by the service (service.ts).
 */
import type { HeadRead } from '../head/reader.js';
import { PLATFORMS, type Platform, type PlatformId } from '../platforms.js';
import { imageOf } from './analyse-image.js';
import { descriptionOf, readingProblems, titleOf } from './analyse-page.js';
import type { ImageLook } from './image.js';
import type { RobotsRules } from './robots.js';
import type { Found, PlatformView, Problem, UnfurlReport } from './types.js';

/** What the service gathered for one check. */
export interface Gathered {
  url: string;
  checkedAt: Date;
  reads: ReadonlyMap<PlatformId, HeadRead>;
  robots: RobotsRules;
  images: ReadonlyMap<string, ImageLook>;
  /** The og:image URL the fix suggests when the page has none (a Cardshot card, or a placeholder). */
  suggestImage: (title: string | null) => string;
}

/** Builds the report. */
export function analyse(g: Gathered): UnfurlReport {
  const reads = [...g.reads.values()];
  const reference = g.reads.get('facebook') ?? reads[0];
  const refMeta = reference?.ok ? reference.meta : null;
  const suggestion = g.suggestImage(refMeta?.og['og:title'] ?? refMeta?.title ?? null);
  const found = PLATFORMS.map((p) => viewOf(p, g, reads, suggestion));
  const problems = merge(found);
  const platforms = found.map(({ view, found: f }) => ({ ...view, problems: f.map(plain) }));
  return {
    url: g.url,
    checkedAt: g.checkedAt.toISOString(),
    page: {
      finalUrl: reference?.ok ? reference.finalUrl : null,
      status: reference?.ok ? reference.status : null,
      redirects: reference ? reference.chain.slice(0, -1) : [],
      charset: reference?.ok ? reference.charset : null,
      title: refMeta?.og['og:title'] ?? refMeta?.title ?? null,
      description: refMeta?.og['og:description'] ?? refMeta?.description ?? null,
      siteName: refMeta?.og['og:site_name'] ?? null,
      canonical: refMeta?.canonical ?? null,
      lang: refMeta?.lang ?? null,
      themeColor: refMeta?.themeColor ?? null,
      robots: refMeta?.robots ?? null,
      icons: refMeta?.icons ?? [],
      og: refMeta?.og ?? {},
      twitter: refMeta?.twitter ?? {},
    },
    images: [...g.images.values()].map((i) => ({ ...i })),
    platforms,
    problems,
    summary: {
      errors: problems.filter((x) => x.severity === 'error').length,
      warnings: problems.filter((x) => x.severity === 'warning').length,
      infos: problems.filter((x) => x.severity === 'info').length,
    },
  };
}

function viewOf(
  p: Platform,
  g: Gathered,
  reads: readonly HeadRead[],
  suggestion: string,
): { id: PlatformId; view: PlatformView; found: Found[] } {
  const read = g.reads.get(p.id);
  if (!read) throw new Error(`no read for ${p.id}`);
  const others = reads.filter((r) => r !== read);
  const { problems, usable } = readingProblems(p, read, g.robots, g.url, others);
  const domain = hostOf(read.ok ? read.finalUrl : g.url);
  const base: PlatformView = {
    id: p.id,
    name: p.name,
    userAgent: p.userAgent,
    fetch: {
      status: read.ok ? read.status : null,
      finalUrl: read.ok ? read.finalUrl : null,
      redirects: Math.max(0, read.chain.length - 1),
      failure: read.ok ? null : read.failure,
    },
    card: 'none',
    cardName: null,
    title: null,
    description: null,
    siteName: domain,
    domain,
    image: null,
    accentColor: null,
    problems: [],
  };
  if (!usable) return { id: p.id, view: base, found: problems };
  const title = titleOf(p, usable);
  // No title, no card: what else is missing would only bury the one fix that matters.
  if (title.title === null) return { id: p.id, view: base, found: [...problems, ...title.problems] };
  const description = descriptionOf(p, usable);
  const image = imageOf(p, usable, g.images, suggestion);
  problems.push(...title.problems, ...description.problems, ...image.problems);
  const shown = !description.dropped;
  const view: PlatformView = {
    ...base,
    card: shown ? image.card : 'none',
    cardName: shown ? image.cardName : null,
    title: title.title,
    description: description.description,
    siteName: usable.meta.og['og:site_name'] ?? domain,
    image: shown ? image.image : null,
    accentColor: p.id === 'discord' ? usable.meta.themeColor : null,
  };
  return { id: p.id, view, found: problems };
}

/** Every distinct problem once, in the order first met, with the networks that have it. */
function merge(views: ReadonlyArray<{ id: PlatformId; found: readonly Found[] }>): UnfurlReport['problems'] {
  const byKey = new Map<string, { first: Found; platforms: PlatformId[] }>();
  for (const v of views) {
    for (const p of v.found) {
      const key = `${p.code}\n${p.severity}\n${p.general ?? p.message}\n${p.fix}`;
      const seen = byKey.get(key);
      if (seen) seen.platforms.push(v.id);
      else byKey.set(key, { first: p, platforms: [v.id] });
    }
  }
  const rank = { error: 0, warning: 1, info: 2 } as const;
  return [...byKey.values()]
    .map(({ first, platforms }) => ({
      ...plain(first),
      // One network: its own wording; several: the wording that names none of them.
      message: platforms.length === 1 ? first.message : (first.general ?? first.message),
      platforms,
    }))
    .sort((a, b) => rank[a.severity] - rank[b.severity]);
}

/** The problem without the analysis' own field. */
function plain(p: Found): Problem {
  return { code: p.code, severity: p.severity, message: p.message, fix: p.fix };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
