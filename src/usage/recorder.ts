import type { Logger } from 'pino';
import { type Clock, systemClock } from '../lib/clock.js';
import type { Store, UsageKind, UsageRow } from '../storage/store.js';

/** Counts requests per account, UTC day and kind, and writes them in batches off the request path. */
export interface UsageRecorder {
  /** Counts `n` requests of `kind` for `accountId` now; synchronous, never throws. */
  record(accountId: string, kind: UsageKind, n?: number): void;
  /** Writes what is pending now (tests, shutdown). A failed write keeps the counts for the next try. */
  flush(): Promise<void>;
  /** Flushes and stops the timer. */
  close(): Promise<void>;
}

/** Pending counts beyond this many rows are dropped (logged) rather than growing without bound. */
const MAX_PENDING = 100_000;

/** The UTC day of a unix-ms time, `YYYY-MM-DD`. */
export function utcDay(ms: number): string {
  // Called on every counted request: the day's string is reused until the day changes.
  if (ms >= dayCache.start && ms < dayCache.start + DAY_MS) return dayCache.day;
  const start = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
  dayCache = { start, day: new Date(start).toISOString().slice(0, 10) };
  return dayCache.day;
}

const DAY_MS = 86_400_000;
let dayCache = { start: Number.NaN, day: '' };

/** A recorder that flushes every `flushMs`. */
export function createUsageRecorder(opts: {
  store: Store;
  flushMs: number;
  log: Logger;
  clock?: Clock;
}): UsageRecorder {
  const clock = opts.clock ?? systemClock;
  let pending = new Map<string, UsageRow>();
  let flushing: Promise<void> | undefined;
  let dropped = 0;

  const merge = (rows: Iterable<UsageRow>) => {
    for (const r of rows) {
      const k = `${r.accountId}\u0000${r.day}\u0000${r.kind}`;
      const have = pending.get(k);
      if (have) have.count += r.count;
      else if (pending.size < MAX_PENDING) pending.set(k, { ...r });
      else dropped += r.count;
    }
  };

  const flushOnce = async () => {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    try {
      await opts.store.addUsage([...batch.values()]);
    } catch (err) {
      opts.log.warn({ err, rows: batch.size }, 'usage write failed; will retry with the next batch');
      merge(batch.values());
    }
    if (dropped > 0) {
      opts.log.warn({ dropped }, 'usage counts dropped: too many pending rows');
      dropped = 0;
    }
  };

  const flush = async () => {
    // One write at a time, so a slow database cannot pile up concurrent transactions.
    while (flushing) await flushing;
    flushing = flushOnce().finally(() => {
      flushing = undefined;
    });
    await flushing;
  };

  const timer = setInterval(() => {
    void flush();
  }, opts.flushMs);
  timer.unref();

  return {
    record(accountId, kind, n = 1) {
      merge([{ accountId, day: utcDay(clock.now()), kind, count: n }]);
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
