/**
 * POST /render/url (issue 29 §2): a JSON body with every option of the GET, as JSON values
 * (booleans, numbers, a list of hideSelectors, a clip object), plus the credentials that sign
 * the capture in. The options are read by the GET's own parser, so both answer the same errors.
 */
import { AppError } from '../../errors.js';
import { editDistance } from '../../lib/edit-distance.js';
import { CREDENTIAL_FIELDS, parseCredentials } from './credentials.js';
import { OPTION_NAMES } from './option-names.js';
import { parseScreenshotRequest, type ScreenshotRequest } from './request.js';
import type { Viewport } from './viewports.js';

const QUERY_FIELDS = ['url', 'viewport', 'waitUntil', ...OPTION_NAMES].filter(
  (n) => !(CREDENTIAL_FIELDS as readonly string[]).includes(n),
);
const FIELDS = [...QUERY_FIELDS, ...CREDENTIAL_FIELDS];

const bad = (message: string) => new AppError('bad_request', message);

/** One JSON value as the query text the GET parser reads; undefined for null. */
function asText(name: string, v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return String(v);
  if (Array.isArray(v) && name === 'hideSelectors' && v.every((s) => typeof s === 'string')) {
    return v.join(',');
  }
  if (name === 'clip' && typeof v === 'object' && !Array.isArray(v)) {
    const c = v as Record<string, unknown>;
    const parts = [c.x, c.y, c.width, c.height];
    if (Object.keys(c).length === 4 && parts.every((p) => typeof p === 'number')) return parts.join(',');
    throw bad('clip must be {x, y, width, height} in whole CSS pixels, or "x,y,width,height"');
  }
  throw bad(
    `${name} must be a ${name === 'hideSelectors' ? 'string or a list of strings' : 'string, number or boolean'}`,
  );
}

/** Validates a POST body: the GET's options and errors, and the credentials. */
export function parseScreenshotBody(
  body: unknown,
  viewports: ReadonlyMap<string, Viewport>,
): ScreenshotRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw bad('Request body must be a JSON object');
  }
  const b = body as Record<string, unknown>;
  const query: Record<string, string> = {};
  for (const [key, value] of Object.entries(b)) {
    if (!FIELDS.includes(key)) {
      const near =
        FIELDS.find((f) => f.toLowerCase() === key.toLowerCase()) ??
        (key.length <= 40 ? FIELDS.find((f) => editDistance(f, key) <= 2) : undefined);
      throw bad(
        `Unknown field ${JSON.stringify(key.slice(0, 40))}${near ? ` (did you mean "${near}"?)` : ''}. Allowed: ${FIELDS.join(', ')}`,
      );
    }
    if ((CREDENTIAL_FIELDS as readonly string[]).includes(key)) continue;
    const text = asText(key, value);
    if (text !== undefined) query[key] = text;
  }
  const parsed = parseScreenshotRequest(query, viewports);
  const credentials = parseCredentials(b);
  return credentials ? { ...parsed, credentials } : parsed;
}
