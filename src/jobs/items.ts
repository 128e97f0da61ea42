/**
 * A job's items, validated before anything is stored or queued, by the very parsers of the
 * synchronous routes (a card: parseTemplateRequest; a screenshot: parseScreenshotRequest), and
 * against the submitter's plan. One bad item refuses the whole job, naming each bad item by its
 * index in the route's own words.
 */
import { assertScreenshotAllowed, assertTemplateAllowed, type Plan } from '../auth/plans.js';
import { AppError, isAppError } from '../errors.js';
import { CREDENTIAL_FIELDS, type ShotCredentials } from '../render/screenshot/credentials.js';
import { optionsInUse } from '../render/screenshot/options.js';
import { parseScreenshotRequest, type ScreenshotRequest } from '../render/screenshot/request.js';
import { parseScreenshotBody } from '../render/screenshot/request-body.js';
import type { Viewport } from '../render/screenshot/viewports.js';
import { parseTemplateRequest, requestBody, type TemplateRequest } from '../render/template/request.js';
import type { TemplateRegistry } from '../render/template/types.js';
import type { NewItem } from './store/types.js';

/** What parses an item: the template registry and the screenshot viewports, read per request. */
export interface ItemParsers {
  registry: TemplateRegistry;
  viewports: ReadonlyMap<string, Viewport>;
}

/** An item as the worker runs it. */
export type ParsedItem =
  | { kind: 'card'; request: TemplateRequest }
  | { kind: 'screenshot'; request: ScreenshotRequest }
  | { kind: 'site-page'; request: SitePageRequest };

/** A warm job's item: a page of one of the account's sites (checked when the item runs). */
export interface SitePageRequest {
  site: string;
  path: string;
}

/** A valid item: its stored form, and its credentials in clear until the service seals them. */
export interface ValidItem extends Omit<NewItem, 'credentials'> {
  credentials?: ShotCredentials;
}

/** Items named in a refusal; the rest are counted. */
export const MAX_NAMED_ERRORS = 20;

/**
 * Validates every item (`source`: 'body' for JSON items, 'query' for CSV rows, whose cells are
 * text) and returns them in the stored form the worker parses again. Throws one AppError
 * naming the bad items: 400, or 403 when every problem is the plan's.
 */
export function validateItems(
  raw: readonly unknown[],
  source: 'body' | 'query',
  plan: Plan,
  parsers: ItemParsers,
): ValidItem[] {
  const items: ValidItem[] = [];
  const problems: Array<{ index: number; err: AppError }> = [];
  raw.forEach((value, index) => {
    try {
      const { parsed, stored } = parseItem(value, source, parsers);
      allowItem(plan, parsed);
      const credentials = parsed.kind === 'screenshot' ? parsed.request.credentials : undefined;
      items.push({
        index,
        kind: parsed.kind,
        request: JSON.stringify(stored),
        ...(credentials ? { credentials } : {}),
      });
    } catch (err) {
      if (!isAppError(err, 'bad_request', 'forbidden')) throw err;
      problems.push({ index, err });
    }
  });
  if (problems.length > 0) throw itemErrors(problems);
  return items;
}

/**
 * Parses one stored item again (the worker's side): the same parsers, the same result, with the
 * screenshot's credentials (opened from their own column) put back.
 */
export function parseStoredItem(
  kind: 'card' | 'screenshot' | 'site-page',
  request: string,
  parsers: ItemParsers,
  credentials?: ShotCredentials,
): ParsedItem {
  const value = JSON.parse(request) as unknown;
  if (kind === 'site-page') return { kind, request: parseSitePage(value) };
  if (kind === 'card')
    return { kind, request: parseTemplateRequest(value, 'body', undefined, parsers.registry) };
  // The POST body's parser reads text values as the GET does: items stored as a query still parse.
  const parsed = parseScreenshotBody(value, parsers.viewports);
  return { kind, request: credentials ? { ...parsed, credentials } : parsed };
}

/** The plan's refusal of an item (403), as the synchronous route would refuse it. */
export function allowItem(plan: Plan, item: ParsedItem): void {
  if (item.kind === 'site-page') return;
  if (item.kind === 'card') assertTemplateAllowed(plan, item.request.template);
  else assertScreenshotAllowed(plan, item.request.viewport.name, optionsInUse(item.request.options));
}

function parseItem(
  value: unknown,
  source: 'body' | 'query',
  parsers: ItemParsers,
): { parsed: ParsedItem; stored: Record<string, unknown> } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw bad('must be a JSON object: a card ({"template", …}) or a screenshot ({"url", …})');
  }
  const record = value as Record<string, unknown>;
  if (present(record.site)) {
    const request = parseSitePage(record);
    return { parsed: { kind: 'site-page', request }, stored: { ...request } };
  }
  const card = present(record.template);
  const shot = present(record.url);
  if (card && shot) throw bad('give template (a card) or url (a screenshot), not both');
  if (shot) {
    if (source === 'query') {
      const query = asQuery(record);
      const request = parseScreenshotRequest(query, parsers.viewports);
      return { parsed: { kind: 'screenshot', request }, stored: query };
    }
    // A JSON item is a POST /render/url body: its values, its errors, its credentials. They
    // are kept out of the stored request (the service seals them into their own column).
    // A blank option is left out, as a CSV cell is (a credential is checked as POST checks it).
    const given = Object.entries(record).filter(([k, v]) => v !== '' || isCredential(k));
    const request = parseScreenshotBody(Object.fromEntries(given), parsers.viewports);
    const stored = Object.fromEntries(given.filter(([k, v]) => v !== null && !isCredential(k)));
    return { parsed: { kind: 'screenshot', request }, stored };
  }
  if (!card) throw bad('template is required for a card, or url for a screenshot');
  const request = parseTemplateRequest(record, source, undefined, parsers.registry);
  // Stored as the JSON body the card route takes, whatever it came as (a CSV row's text).
  const stored = requestBody(request, parsers.registry.get(request.template));
  return { parsed: { kind: 'card', request }, stored };
}

/** `{"site": "site_…", "path": "/blog/post-1"}`: the site is the account's, checked as the item runs. */
function parseSitePage(value: unknown): SitePageRequest {
  const r = (value ?? {}) as Record<string, unknown>;
  const stray = Object.keys(r).find((k) => k !== 'site' && k !== 'path');
  if (stray !== undefined)
    throw bad(`a site page takes site and path only (got ${JSON.stringify(stray.slice(0, 40))})`);
  if (typeof r.site !== 'string' || !/^site_[0-9a-f]{1,40}$/.test(r.site))
    throw bad('site must be a site id (site_…)');
  if (typeof r.path !== 'string' || !r.path.startsWith('/') || r.path.length > 2048) {
    throw bad('path must be the page path on the site, starting with /');
  }
  return { site: r.site, path: r.path };
}

const isCredential = (field: string) => (CREDENTIAL_FIELDS as readonly string[]).includes(field);

function present(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}

/** A CSV row's screenshot as the query string GET /render/url reads (its cells are text). */
function asQuery(record: Record<string, unknown>): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, v] of Object.entries(record)) {
    if (v !== undefined && v !== null && v !== '') query[name] = String(v);
  }
  return query;
}

/** "item 3: title is required; item 7: …", at most MAX_NAMED_ERRORS named, then how many more. */
export function itemErrors(problems: ReadonlyArray<{ index: number; err: AppError }>): AppError {
  const named = problems.slice(0, MAX_NAMED_ERRORS).map((p) => `item ${p.index}: ${p.err.message}`);
  const more = problems.length - named.length;
  const message =
    named.join('; ') + (more > 0 ? `; and ${more} more item${more === 1 ? '' : 's'} with errors` : '');
  const onlyPlan = problems.every((p) => p.err.code === 'forbidden');
  return new AppError(onlyPlan ? 'forbidden' : 'bad_request', message, {
    detail: `${problems.length} of the job's items refused`,
  });
}

function bad(message: string): AppError {
  return new AppError('bad_request', message);
}
