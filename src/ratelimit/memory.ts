import { type Clock, steadyClock, systemClock } from '../lib/clock.js';
import { decision, type RateLimiter } from './limiter.js';

/** One key's admitted request times, oldest first, in a ring buffer that grows on demand. */
interface Log {
  times: Float64Array;
  head: number;
  size: number;
  last: number;
  windowMs: number;
}

const SWEEP_EVERY_MS = 60_000;

/** The per-process sliding-window limiter (the default, and the fallback when Redis is down). */
export function createMemoryLimiter(opts: { clock?: Clock } = {}): RateLimiter & { keys(): number } {
  // Windows are durations: a wall clock stepping back must not stretch them (see steadyClock).
  const clock = steadyClock(opts.clock ?? systemClock);
  const logs = new Map<string, Log>();

  const prune = (log: Log, now: number) => {
    const cutoff = now - log.windowMs;
    while (log.size > 0 && log.times[log.head]! <= cutoff) {
      log.head = (log.head + 1) % log.times.length;
      log.size--;
    }
  };
  const oldest = (log: Log) => (log.size > 0 ? log.times[log.head] : undefined);
  const push = (log: Log, t: number, limit: number) => {
    if (log.size === log.times.length) {
      // Start small and double up to the limit: a 1,000,000/min plan costs nothing until used.
      const grown = new Float64Array(Math.max(4, Math.min(Math.max(limit, log.size + 1), log.size * 2)));
      for (let i = 0; i < log.size; i++) grown[i] = log.times[(log.head + i) % log.times.length]!;
      log.times = grown;
      log.head = 0;
    }
    log.times[(log.head + log.size) % log.times.length] = t;
    log.size++;
    log.last = t;
  };
  const get = (key: string, windowMs: number, now: number): Log => {
    let log = logs.get(key);
    if (!log) {
      log = { times: new Float64Array(4), head: 0, size: 0, last: now, windowMs };
      logs.set(key, log);
    }
    log.windowMs = windowMs;
    return log;
  };
  // The wall clock may step back (NTP); times in a log must not, or pruning stops early.
  const nowFor = (log: Log | undefined) => Math.max(clock.now(), log?.last ?? 0);

  const sweep = setInterval(() => {
    const now = clock.now();
    for (const [key, log] of logs) if (log.last <= now - log.windowMs) logs.delete(key);
  }, SWEEP_EVERY_MS);
  sweep.unref();

  return {
    async consume(key, limit, windowMs) {
      const now = nowFor(logs.get(key));
      const log = get(key, windowMs, now);
      prune(log, now);
      if (log.size >= limit) return decision(false, log.size, oldest(log), now, limit, windowMs);
      push(log, now, limit);
      return decision(true, log.size, oldest(log), now, limit, windowMs);
    },
    async peek(key, limit, windowMs) {
      const existing = logs.get(key);
      const now = nowFor(existing);
      if (!existing) return decision(true, 0, undefined, now, limit, windowMs);
      existing.windowMs = windowMs;
      prune(existing, now);
      return decision(existing.size < limit, existing.size, oldest(existing), now, limit, windowMs);
    },
    keys: () => logs.size,
    async close() {
      clearInterval(sweep);
      logs.clear();
    },
  };
}
