import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * What a render answer measured: set once, when the answer is sent. The Server-Timing and
     * X-Cache headers and the request's log line are all written from it.
     */
    timings: TimingsRecord | null;
  }
}

/** Phase durations and the cache status of one answer. */
export interface TimingsRecord {
  /** Milliseconds per phase, in the order they are reported (`total` last). */
  phases: Readonly<Record<string, number | undefined>>;
  /** Text for a phase (`encode` → "included in render"), on the same Server-Timing entry. */
  notes: Readonly<Record<string, string>>;
  /** X-Cache, when the answer says whether it came from the cache. */
  cache: 'HIT' | 'MISS' | null;
}

/** Declares `req.timings` (null until a render answer records one). */
export function decorateTimings(app: FastifyInstance): void {
  app.decorateRequest('timings', null);
}

/** Keeps `record` on the request and writes its header views (X-Cache, Server-Timing). */
export function recordTimings(req: FastifyRequest, reply: FastifyReply, record: TimingsRecord): void {
  req.timings = record;
  if (record.cache !== null) reply.header('X-Cache', record.cache);
  reply.header('Server-Timing', serverTiming(record.phases, record.notes));
}

/**
 * The phases as the log line shows them: the same tenth-of-a-millisecond values the
 * Server-Timing header carries, phases without a (finite) duration left out.
 */
export function loggedTimings(record: TimingsRecord): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, ms] of Object.entries(record.phases)) {
    if (ms === undefined) continue;
    const shown = Number(ms.toFixed(1));
    if (Number.isFinite(shown)) out[name] = shown;
  }
  return out;
}

/**
 * Formats phase durations as a Server-Timing header value (`render;dur=8.1, …`). A description
 * for a phase that also has a duration is written on the same metric, so each name appears once.
 */
export function serverTiming(
  timings: Readonly<Record<string, number | undefined>>,
  descriptions: Readonly<Record<string, string>> = {},
): string {
  const names = new Set([...Object.keys(timings), ...Object.keys(descriptions)]);
  const parts: string[] = [];
  for (const name of names) {
    const ms = timings[name];
    const desc = descriptions[name];
    let part = name;
    if (ms !== undefined) part += `;dur=${ms.toFixed(1)}`;
    if (desc !== undefined) part += `;desc="${desc}"`;
    if (ms !== undefined || desc !== undefined) parts.push(part);
  }
  return parts.join(', ');
}
