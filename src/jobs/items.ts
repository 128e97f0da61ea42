/**
 * A job's items, validated before anything is stored or queued, by the very parsers of the
 * synchronous routes (a card: parseTemplateRequest; a screenshot: parseScreenshotRequest), and
 * against the submitter's plan. One bad item refuses the whole job, naming each bad item by its
 * index in the route's own words.
 */
import { assertScreenshotAllowed, assertTemplateAllowed, type Plan } from '../auth/plans.js';
import { AppError, isAppError } from '../errors.js';
import { optionsInUse } from '../render/screenshot/options.js';
import { parseScreenshotRequest, type ScreenshotRequest } from '../render/screenshot/request.js';
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
  | { kind: 'screenshot'; request: ScreenshotRequest };

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
): NewItem[] {
  const items: NewItem[] = [];
  const problems: Array<{ index: number; err: AppError }> = [];
  raw.forEach((value, index) => {
    try {
      const { parsed, stored } = parseItem(value, source, parsers);
      allowItem(plan, parsed);
      items.push({ index, kind: parsed.kind, request: JSON.stringify(stored) });
    } catch (err) {
      if (!isAppError(err, 'bad_request', 'forbidden')) throw err;
      problems.push({ index, err });
    }
  });
  if (problems.length > 0) throw itemErrors(problems);
  return items;
}

/** Parses one stored item again (the worker's side): the same parsers, the same result. */
export function parseStoredItem(
  kind: 'card' | 'screenshot',
  request: string,
  parsers: ItemParsers,
): ParsedItem {
  const value = JSON.parse(request) as unknown;
  if (kind === 'card')
    return { kind, request: parseTemplateRequest(value, 'body', undefined, parsers.registry) };
  return { kind, request: parseScreenshotRequest(value, parsers.viewports) };
}

/** The plan's refusal of an item (403), as the synchronous route would refuse it. */
export function allowItem(plan: Plan, item: ParsedItem): void {
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
  const card = present(record.template);
  const shot = present(record.url);
  if (card && shot) throw bad('give template (a card) or url (a screenshot), not both');
  if (shot) {
    const query = asQuery(record);
    const request = parseScreenshotRequest(query, parsers.viewports);
    return { parsed: { kind: 'screenshot', request }, stored: query };
  }
  if (!card) throw bad('template is required for a card, or url for a screenshot');
  const request = parseTemplateRequest(record, source, undefined, parsers.registry);
  // Stored as the JSON body the card route takes, whatever it came as (a CSV row's text).
  const stored = requestBody(request, parsers.registry.get(request.template));
  return { parsed: { kind: 'card', request }, stored };
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}

/**
 * A screenshot item as the query string GET /render/url reads: numbers and booleans as their
 * text, a list of selectors joined by commas, blank cells left out.
 */
function asQuery(record: Record<string, unknown>): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, v] of Object.entries(record)) {
    if (v === undefined || v === null || v === '') continue;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') query[name] = String(v);
    else if (Array.isArray(v) && v.every((s) => typeof s === 'string')) query[name] = v.join(',');
    else throw bad(`${name.slice(0, 40)} must be a string, a number or true/false`);
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
