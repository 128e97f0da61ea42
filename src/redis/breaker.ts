import { ReplyError } from 'ioredis';
import type { Logger } from 'pino';
import { withTimeout } from '../lib/timeout.js';

/** What a Redis user on this node sees of the connection: up, or bypassed until a probe answers. */
export interface RedisHealth {
  state: 'up' | 'down';
  /** Unix ms of the last switch between up and down (start-up counts as one). */
  since: number;
  /** The error that opened the breaker, while it is open. */
  lastError: string | null;
  /** How many times Redis was found unavailable since start. */
  trips: number;
}

/**
 * One circuit breaker per node, shared by every Redis user (rate limiter, PNG cache, locks,
 * notices). When any command errs or exceeds its time-out, every user bypasses Redis at once
 * (per-process limits, local cache, local single-flight), so a request pays for at most one
 * time-out however many Redis steps it has; a background probe closes the breaker when Redis
 * answers again. Each switch is logged once.
 */
export interface RedisBreaker {
  /** True while Redis is bypassed. */
  readonly open: boolean;
  /** Runs `op` unless the breaker is open (then rejects at once); a time-out or lost connection opens it. */
  run<T>(op: () => Promise<T>, timeoutMs?: number): Promise<T>;
  /** Opens the breaker after a failure seen elsewhere (for example a lost subscriber connection). */
  trip(err: unknown): void;
  /** Called every time Redis answers again after being down. */
  onRecover(listener: () => void): void;
  /** Called every time the breaker opens. */
  onTrip(listener: () => void): void;
  /**
   * Another connection that must answer before the breaker closes (the rate limiter's own),
   * so the node does not switch back while one of its connections is still reconnecting.
   */
  addProbe(probe: (timeoutMs: number) => Promise<void>): void;
  health(): RedisHealth;
  close(): void;
}

/** The error `run` rejects with while the breaker is open; callers treat it like any Redis failure. */
export class RedisBypassedError extends Error {
  constructor() {
    super('Redis is bypassed until it answers again');
    this.name = 'RedisBypassedError';
  }
}

const PROBE_EVERY_MS = 500;

/** A breaker whose probe is `probe(timeoutMs)` (a PING that must answer within the time). */
export function createRedisBreaker(opts: {
  probe: (timeoutMs: number) => Promise<void>;
  timeoutMs: number;
  log: Logger;
  probeEveryMs?: number;
}): RedisBreaker {
  const { log, timeoutMs } = opts;
  let open = false;
  let closed = false;
  let since = Date.now();
  let lastError: string | null = null;
  let trips = 0;
  let timer: NodeJS.Timeout | undefined;
  const listeners: Array<() => void> = [];
  const tripListeners: Array<() => void> = [];
  const probes = [opts.probe];

  const probeLater = () => {
    timer = setTimeout(async () => {
      timer = undefined;
      if (closed) return;
      try {
        await Promise.all(probes.map((p) => p(timeoutMs * 4)));
      } catch {
        probeLater();
        return;
      }
      open = false;
      since = Date.now();
      lastError = null;
      log.info('Redis answers again: shared rate limits, cache, locks and notices are back on');
      for (const l of listeners) {
        try {
          l();
        } catch (err) {
          log.error({ err }, 'redis recovery listener failed');
        }
      }
    }, opts.probeEveryMs ?? PROBE_EVERY_MS);
    timer.unref();
  };

  const trip = (err: unknown) => {
    if (open || closed) return;
    open = true;
    trips++;
    since = Date.now();
    lastError = err instanceof Error ? err.message : String(err);
    log.warn(
      { err: lastError },
      'Redis is unavailable: limiting per process, caching locally and capturing without cross-node locks until it answers again',
    );
    for (const l of tripListeners) l();
    probeLater();
  };

  return {
    get open() {
      return open;
    },
    async run(op, ms = timeoutMs) {
      if (open || closed) throw new RedisBypassedError();
      try {
        return await withTimeout(op(), ms);
      } catch (err) {
        // An error reply (OOM under noeviction, a script error) means Redis is there and
        // answering: that command fails alone. Only silence and lost connections trip.
        if (!(err instanceof ReplyError)) trip(err);
        throw err;
      }
    },
    trip,
    onRecover: (l) => listeners.push(l),
    onTrip: (l) => tripListeners.push(l),
    addProbe: (p) => probes.push(p),
    health: () => ({ state: open ? 'down' : 'up', since, lastError, trips }),
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}
