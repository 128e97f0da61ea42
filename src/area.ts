import type { Logger } from 'pino';
import type { HealthCheck } from './health/health.js';
import { type Closer, createCloser } from './lib/closer.js';
import type { Samples } from './metrics/metrics.js';

/**
 * What an area's `module.ts` returns: its service (what the app and the next areas use), the
 * readiness checks and scrape-time metrics it reports, and one `close()` for every part it
 * started. `modules.ts` starts the areas in order, registers their checks and metrics, and
 * closes them in reverse.
 */
export interface Area<S> {
  service: S;
  /** Readiness checks by name, for /readyz (registered in start order). */
  checks?: Readonly<Record<string, HealthCheck>>;
  /** Values read at scrape time by source name (queues, cache tiers, the browser). */
  samples?: Readonly<Record<string, () => Samples>>;
  /** Closes the area's parts in reverse start order; never rejects. */
  close(): Promise<void>;
}

/**
 * Starts an area: `start` adds each part it starts to `parts`. If it throws, what it had
 * started is closed before the error goes on, so a failed start leaves nothing running.
 */
export async function startArea<S>(
  log: Logger,
  start: (parts: Closer) => Promise<Omit<Area<S>, 'close'>> | Omit<Area<S>, 'close'>,
): Promise<Area<S>> {
  const parts = createCloser(log);
  try {
    return { ...(await start(parts)), close: () => parts.close() };
  } catch (err) {
    await parts.close();
    throw err;
  }
}
