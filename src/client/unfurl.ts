/**
 * GET /unfurl's answer as the client types it: how each network will show a link, and what to
 * fix. Declared here, not imported from the server's code, so the client stays self-contained;
 * test/client/unfurl-client.test.ts checks the two declarations stay the same shape.
 */

/** The networks checked, in the report's order. */
export type UnfurlPlatformId =
  | 'x'
  | 'linkedin'
  | 'facebook'
  | 'slack'
  | 'discord'
  | 'whatsapp'
  | 'imessage'
  | 'telegram'
  | 'mastodon';

export type UnfurlSeverity = 'error' | 'warning' | 'info';

/** One problem and the exact tag (or header, or robots.txt rule) that fixes it. */
export interface UnfurlProblem {
  /** `og_image_missing`, `robots_disallowed`, …: docs/unfurl.md lists them. */
  code: string;
  severity: UnfurlSeverity;
  message: string;
  fix: string | null;
}

/** What one network shows for the link. */
export interface UnfurlPlatformView {
  id: UnfurlPlatformId;
  name: string;
  userAgent: string;
  fetch: { status: number | null; finalUrl: string | null; redirects: number; failure: string | null };
  /** `large`: a wide image; `summary`: a thumbnail beside the text; `none`: no card at all. */
  card: 'large' | 'summary' | 'none';
  /** X's card type (`summary_large_image`, `summary`); null for the others. */
  cardName: string | null;
  /** The title and description as the network cuts them (null: not shown). */
  title: string | null;
  description: string | null;
  siteName: string;
  domain: string;
  image: {
    url: string;
    width: number | null;
    height: number | null;
    aspect: string;
    cropped: boolean;
  } | null;
  /** Discord's embed colour (theme-color). */
  accentColor: string | null;
  problems: UnfurlProblem[];
}

/** The image a page names, as fetched. */
export interface UnfurlImage {
  url: string;
  status: number | null;
  failure: string | null;
  contentType: string | null;
  type: string | null;
  width: number | null;
  height: number | null;
  bytes: number | null;
}

/** The whole report. */
export interface UnfurlReport {
  url: string;
  checkedAt: string;
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
  images: UnfurlImage[];
  platforms: UnfurlPlatformView[];
  /** Every problem once, errors first, with the networks it concerns. */
  problems: Array<UnfurlProblem & { platforms: UnfurlPlatformId[] }>;
  summary: { errors: number; warnings: number; infos: number };
}
