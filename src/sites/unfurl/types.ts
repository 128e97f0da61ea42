/**
 * The unfurl report: what GET /unfurl answers, the CLI prints and the dashboard draws. The
 * client (src/client/unfurl.ts) declares the same shape for its users.
 */
import type { PlatformId } from '../platforms.js';

export type Severity = 'error' | 'warning' | 'info';

/** Codes of the problems the check finds (docs/unfurl.md lists each). */
export type ProblemCode =
  | 'page_unreachable'
  | 'page_timeout'
  | 'page_status'
  | 'crawler_blocked'
  | 'redirect_chain'
  | 'robots_disallowed'
  | 'not_html'
  | 'head_too_large'
  | 'title_missing'
  | 'og_title_missing'
  | 'description_missing'
  | 'og_description_missing'
  | 'og_image_missing'
  | 'og_image_relative'
  | 'og_image_not_https'
  | 'image_unreachable'
  | 'image_wrong_type'
  | 'image_too_small'
  | 'image_small_for_large'
  | 'image_too_large'
  | 'image_cropped'
  | 'twitter_card_missing'
  | 'twitter_card_summary'
  | 'title_cut'
  | 'description_cut';

/** One thing wrong (or worth knowing), and the exact change that fixes it. */
export interface Problem {
  code: ProblemCode;
  severity: Severity;
  message: string;
  /** The tag to add, the header or rule to change; null when there is nothing to paste. */
  fix: string | null;
}

/** A problem as the analysis finds it: `general` says it without naming the network (the merged list's wording). */
export type Found = Problem & { general?: string };

/** The image a network draws and how. */
export interface CardImage {
  url: string;
  width: number | null;
  height: number | null;
  /** The frame the network draws it in (`2:1`, `1.91:1`, `1:1`). */
  aspect: string;
  /** True when the image's own proportions differ from the frame: its edges are cut off. */
  cropped: boolean;
}

/** What one network shows for the link. */
export interface PlatformView {
  id: PlatformId;
  name: string;
  userAgent: string;
  /** How the page answered this network's crawler. */
  fetch: { status: number | null; finalUrl: string | null; redirects: number; failure: string | null };
  /** `large`: a wide image above or below the text; `summary`: a thumbnail beside it; `none`: no card. */
  card: 'large' | 'summary' | 'none';
  /** X's own name for the card (`summary_large_image`, `summary`), null elsewhere. */
  cardName: string | null;
  title: string | null;
  description: string | null;
  siteName: string;
  domain: string;
  image: CardImage | null;
  /** The colour Discord draws beside the embed (theme-color), null elsewhere. */
  accentColor: string | null;
  problems: Problem[];
}

/** What the image named by the page turned out to be. */
export interface ImageInfo {
  url: string;
  status: number | null;
  failure: string | null;
  contentType: string | null;
  type: string | null;
  width: number | null;
  height: number | null;
  bytes: number | null;
}

/** The whole check. */
export interface UnfurlReport {
  url: string;
  checkedAt: string;
  /** The page as a browser-like crawler (Facebook's) got it. */
  page: {
    finalUrl: string | null;
    status: number | null;
    redirects: Array<{ url: string; status: number }>;
    charset: string | null;
    title: string | null;
    description: string | null;
    siteName: string | null;
    canonical: string | null;
    lang: string | null;
    themeColor: string | null;
    robots: string | null;
    icons: Array<{ rel: string; href: string; sizes: string | null; type: string | null }>;
    og: Record<string, string>;
    twitter: Record<string, string>;
  };
  images: ImageInfo[];
  platforms: PlatformView[];
  /** Every problem once, with the networks it concerns. */
  problems: Array<Problem & { platforms: PlatformId[] }>;
  summary: { errors: number; warnings: number; infos: number };
}
