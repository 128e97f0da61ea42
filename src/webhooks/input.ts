import { AppError } from '../errors.js';
import { DEFAULT_EVENTS, WEBHOOK_EVENTS } from './events.js';

/** URLs longer than this are refused (they would not fit a log line or a dashboard row). */
export const MAX_URL_LENGTH = 2048;

/** A new endpoint as POST /webhooks sends it. */
export interface EndpointInput {
  url: string;
  events: string[];
}

const FIELDS = new Set(['url', 'events']);

/** Checks POST /webhooks's body; 400 naming the field and the fix. */
export function parseEndpointInput(body: unknown): EndpointInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError(
      'bad_request',
      'Send a JSON object: {"url": "https://…", "events": ["job.completed"]}',
    );
  }
  const fields = body as Record<string, unknown>;
  const stray = Object.keys(fields).find((k) => !FIELDS.has(k));
  if (stray !== undefined) {
    throw new AppError(
      'bad_request',
      `Unknown field ${JSON.stringify(stray.slice(0, 40))}; send url and events`,
    );
  }
  return { url: parseUrl(fields.url), events: parseEvents(fields.events) };
}

function parseUrl(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new AppError('bad_request', 'url is required: the https:// (or http://) address to POST events to');
  }
  if (value.length > MAX_URL_LENGTH) {
    throw new AppError('bad_request', `url must be at most ${MAX_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AppError('bad_request', 'url must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new AppError('bad_request', 'url must be an absolute http:// or https:// URL');
  }
  if (url.username !== '' || url.password !== '') {
    throw new AppError(
      'bad_request',
      'url must not carry a user name or password; verify the signature instead',
    );
  }
  if (url.hash !== '') throw new AppError('bad_request', 'url must not have a #fragment');
  // Normalised, so what is listed is what is called.
  return url.href;
}

function parseEvents(value: unknown): string[] {
  if (value === undefined) return [...DEFAULT_EVENTS];
  const known = WEBHOOK_EVENTS.join(', ');
  if (!Array.isArray(value) || value.length === 0) {
    throw new AppError('bad_request', `events must be a non-empty list of: ${known}`);
  }
  const events: string[] = [];
  for (const e of value) {
    if (typeof e !== 'string' || !(WEBHOOK_EVENTS as readonly string[]).includes(e)) {
      const shown = typeof e === 'string' ? JSON.stringify(e.slice(0, 40)) : 'a non-string';
      throw new AppError('bad_request', `events: ${shown} is not an event; use ${known}`);
    }
    if (!events.includes(e)) events.push(e);
  }
  return events;
}
