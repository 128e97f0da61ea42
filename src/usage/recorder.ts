import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { type Clock, systemClock } from '../lib/clock.js';
import { describeStorageError } from '../storage/errors.js';
import type { Store, UsageKind, UsageRow } from '../storage/store.js';

/** Counts requests per account, UTC day and kind, and writes them in batches off the request path. */
export interface UsageRecorder {
  /** Counts `n` requests of `kind` for `accountId` now; synchronous, never throws. */
  record(accountId: string, kind: UsageKind, n?: number): void;
  /** Writes what is pending now (tests, shutdown). A failed write keeps the counts for the next try. */
  flush(): Promise<void>;
  /**
   * Stops the timer and writes what is pending; when the database does not take it within the
   * close time-out, the counts are kept in the spill file (`spillSync`) for the next start.
   */
  close(): Promise<void>;
  /**
   * Synchronously saves every count not yet written (pending, and a batch whose write has not
   * answered) to the spill file, for the next start to write; a no-op when nothing is pending.
   * For the last moments of a process (an exit that cannot wait for the database).
   */
  spillSync(): void;
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

/**
 * A recorder that flushes every `flushMs`. With `spillFile`, counts a stop could not write
 * are saved there and the next recorder made with the same file takes them back.
 */
export function createUsageRecorder(opts: {
  store: Store;
  flushMs: number;
  log: Logger;
  clock?: Clock;
  spillFile?: string;
  /** How long close() waits for the last write before spilling (default 3 s). */
  closeTimeoutMs?: number;
}): UsageRecorder {
  const clock = opts.clock ?? systemClock;
  let pending = new Map<string, UsageRow>();
  let flushing: Promise<void> | undefined;
  /** The batch being written: counted nowhere else until its write answers. */
  let inFlight: Map<string, UsageRow> | undefined;
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
    inFlight = batch;
    try {
      await opts.store.addUsage([...batch.values()]);
      if (inFlight === batch) inFlight = undefined;
    } catch (err) {
      const cause = describeStorageError(err);
      opts.log.warn(
        { err, rows: batch.size, ...(cause ? { cause } : {}) },
        `usage write failed${cause ? `: ${cause}` : ''}; will retry with the next batch`,
      );
      // Unless spillSync() has already saved it.
      if (inFlight === batch) {
        inFlight = undefined;
        merge(batch.values());
      }
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

  const spillSync = () => {
    const rows = [...pending.values(), ...(inFlight?.values() ?? [])];
    pending = new Map();
    inFlight = undefined;
    if (rows.length === 0) return;
    const count = rows.reduce((n, r) => n + r.count, 0);
    if (!opts.spillFile) {
      opts.log.error({ rows }, `usage not written: ${count} requests were never counted`);
      return;
    }
    try {
      // Whole or not at all: a file cut short by a full disk is never read back.
      const tmp = `${opts.spillFile}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(rows), { mode: 0o600 });
      renameSync(tmp, opts.spillFile);
      opts.log.warn(
        { file: opts.spillFile, requests: count },
        'usage not written yet: saved for the next start to write',
      );
    } catch (err) {
      // The counts stay in this log line, the only place left for them.
      opts.log.error(
        { err: (err as Error).message, file: opts.spillFile, rows },
        `usage not written and not saved: ${count} requests were never counted`,
      );
    }
  };

  if (opts.spillFile) takeSpill(opts.spillFile, opts.log, merge);

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
      let wait: NodeJS.Timeout | undefined;
      const timedOut = new Promise<void>((resolve) => {
        wait = setTimeout(resolve, opts.closeTimeoutMs ?? 3000);
      });
      await Promise.race([flush(), timedOut]);
      clearTimeout(wait);
      // Failed or not answered in time: keep them for the next start.
      spillSync();
    },
    spillSync,
  };
}

/**
 * Takes back the counts a stopped recorder saved: the file is renamed first, so of several
 * processes starting on one data directory only one counts them.
 */
function takeSpill(file: string, log: Logger, merge: (rows: Iterable<UsageRow>) => void): void {
  const claimed = `${file}.${process.pid}.taken`;
  try {
    renameSync(file, claimed);
  } catch {
    return; // nothing saved
  }
  try {
    const rows = JSON.parse(readFileSync(claimed, 'utf8')) as UsageRow[];
    const valid = rows.filter(
      (r) =>
        typeof r?.accountId === 'string' &&
        typeof r.day === 'string' &&
        typeof r.kind === 'string' &&
        Number.isSafeInteger(r.count) &&
        r.count > 0,
    );
    merge(valid);
    log.info(
      { file, requests: valid.reduce((n, r) => n + r.count, 0) },
      'usage saved by the last stop: writing it with the next batch',
    );
  } catch (err) {
    log.error(
      { err: (err as Error).message, file: claimed },
      'usage saved by the last stop is unreadable; left in place',
    );
    return;
  }
  try {
    unlinkSync(claimed);
  } catch {
    // already gone
  }
}
