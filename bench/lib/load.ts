import type { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { type Summary, summarize } from './stats.js';

/** What one load run should send. */
export interface LoadOptions {
  /** Full URL on 127.0.0.1, path included. */
  url: string;
  connections: number;
  /** Seconds; ignored when `amount` is set. */
  duration?: number;
  /** Stop after this many responses instead of after a duration. */
  amount?: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** A fresh body for every request (distinct cards); overrides `body`. */
  nextBody?: () => string;
  /** A fresh path (and query) for every request, e.g. distinct screenshot URLs. */
  nextPath?: () => string;
}

/** What came back: throughput, latency of every response, and status counts. */
export interface LoadResult {
  seconds: number;
  /** Responses with a 2xx or 3xx status: the ones that count for throughput. */
  ok: number;
  /** `ok` per second. */
  reqPerSec: number;
  /** Over every response, whatever its status. */
  latency: Summary;
  /** Every response time in ms, for merging runs. */
  latencies: number[];
  /** Responses per HTTP status. */
  status: Record<number, number>;
  /** 503s (render queue full) are expected overload behaviour, so they are counted apart. */
  unavailable: number;
  /** Any other status outside 2xx/3xx. */
  failed: number;
  /** Socket errors and timeouts (no HTTP status at all). */
  errors: number;
}

// autocannon ships no types; this is the slice of its API used here.
interface AcRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (req: AcRequest) => AcRequest;
}
interface AcOptions {
  url: string;
  connections: number;
  duration?: number;
  amount?: number;
  timeout?: number;
  requests?: AcRequest[];
}
/** `errors` counts socket errors, timeouts included. */
type Autocannon = (
  opts: AcOptions,
  cb: (err: Error | null, result: { errors: number }) => void,
) => EventEmitter;
const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Autocannon;

/**
 * autocannon appends every response body to a string (`req.body += chunk`), i.e. decodes the
 * PNG as UTF-8: ~0.3 ms of client CPU per 29 KB card, which capped the cached scenario at
 * ~2,500 req/s while the server sat half idle. Bodies are never read here (no verifyBody,
 * expectBody or onResponse), and byte counts are kept elsewhere, so the append is dropped.
 */
const queue = require('autocannon/lib/pipelinedRequestsQueue.js') as {
  prototype: { addBody(data: Buffer): void };
};
queue.prototype.addBody = () => {};

function result(
  seconds: number,
  latencies: number[],
  status: Record<number, number>,
  errors: number,
): LoadResult {
  let ok = 0;
  let unavailable = 0;
  let failed = 0;
  for (const [code, n] of Object.entries(status)) {
    if (code === '503') unavailable += n;
    else if (Number(code) >= 400) failed += n;
    else ok += n;
  }
  const latency = summarize(latencies);
  return { seconds, ok, reqPerSec: ok / seconds, latency, latencies, status, unavailable, failed, errors };
}

/**
 * Runs autocannon and records every response time itself. autocannon's own histogram holds
 * whole milliseconds, too coarse to compare a ~7 ms render against a 1.25× target, and it
 * files 304s with errors; its 'response' event carries the exact hrtime duration and status.
 */
export function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const status: Record<number, number> = {};
  const { nextBody, nextPath } = opts;
  const request: AcRequest = {
    method: opts.method ?? 'GET',
    headers: { ...(opts.body || nextBody ? { 'content-type': 'application/json' } : {}), ...opts.headers },
    ...(opts.body ? { body: opts.body } : {}),
    ...(nextBody || nextPath
      ? {
          setupRequest: (req: AcRequest) => ({
            ...req,
            ...(nextBody ? { body: nextBody() } : {}),
            ...(nextPath ? { path: nextPath() } : {}),
          }),
        }
      : {}),
  };
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const instance = autocannon(
      {
        url: opts.url,
        connections: opts.connections,
        ...(opts.amount ? { amount: opts.amount } : { duration: opts.duration ?? 10 }),
        timeout: 30,
        requests: [request],
      },
      (err, r) =>
        err
          ? reject(err)
          : resolve(result((performance.now() - started) / 1000, latencies, status, r.errors)),
    );
    instance.on('response', (_client: unknown, code: number, _bytes: number, ms: number) => {
      latencies.push(ms);
      status[code] = (status[code] ?? 0) + 1;
    });
  });
}

/** Several runs of one scenario as one: summed time and counts, pooled latencies. */
export function mergeLoads(runs: LoadResult[]): LoadResult {
  const status: Record<number, number> = {};
  for (const r of runs) {
    for (const [code, n] of Object.entries(r.status)) status[Number(code)] = (status[Number(code)] ?? 0) + n;
  }
  return result(
    runs.reduce((s, r) => s + r.seconds, 0),
    runs.flatMap((r) => r.latencies),
    status,
    runs.reduce((s, r) => s + r.errors, 0),
  );
}
