import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { AppError, type ErrorCode, isAppError } from '../errors.js';
import type { RedisModule } from '../redis/open.js';
import type { CacheEntry, PngCache } from './cache.js';

/** What `produce` hands back: the entry to share, and whatever else the owner's caller needs. */
export interface Produced<T> {
  entry: CacheEntry;
  value: T;
  /** False when the entry must not be cached (then waiters on other nodes produce their own). */
  cacheable: boolean;
}

/** How a request got its entry: it produced it (owner, or solo without Redis) or waited for another node. */
export type FlightResult<T> =
  | { role: 'owner' | 'solo'; entry: CacheEntry; value: T; waitMs: number }
  | { role: 'waiter'; entry: CacheEntry; waitMs: number };

/**
 * Single-flight across nodes. The first node to take `<prefix>lock:<key>` (SET NX PX with a
 * random owner token) produces the entry, stores it in the shared cache, announces it on
 * `<prefix>flight` and releases the lock; the others wait for that announcement (or notice
 * by polling that the lock is gone) and read the entry from the cache. The lock lives
 * `lockTtlMs` and the owner renews it while it works, so a dead owner is noticed within
 * that time and a waiter takes over. Renewal and release compare the token, so an owner
 * that lost its lock never extends or deletes another's. Writes need no fencing: every
 * owner of a key stores an equally valid capture of the same URL under the same key.
 *
 * Run it inside the node's own single-flight, so one request per node takes part.
 */
export interface SharedFlight {
  /**
   * `accept` says whether an entry already in the cache may stand in for a capture (a request
   * that asked for a fresh capture, or one no older than its ttl, refuses older entries); by
   * default any entry does.
   */
  run<T>(
    key: string,
    opts: { deadline: number; produce: () => Promise<Produced<T>>; accept?: (entry: CacheEntry) => boolean },
  ): Promise<FlightResult<T>>;
  health(): {
    state: 'up' | 'down';
    owned: number;
    waited: number;
    /** Waits that ended with the entry from another node. */
    shared: number;
    /** Captures made without the lock (Redis down, or the owner's entry was not cacheable). */
    solo: number;
    /** Waits that ended because the owner vanished, after which this node took over. */
    takenOver: number;
  };
  close(): Promise<void>;
}

const POLL_TIMEOUT_MS = 1000;
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

type Outcome =
  | { kind: 'done' | 'uncached' | 'retry' | 'gone' | 'timeout' | 'redis-down' }
  | { kind: 'error'; code: ErrorCode; message: string; retryAfter?: number };

interface Notice {
  k: string;
  s: 'done' | 'uncached' | 'retry' | 'error';
  c?: ErrorCode;
  m?: string;
  r?: number;
}

/** Creates the cross-node flight on the node's Redis, storing through `cache` (the tiered cache). */
export function createSharedFlight(deps: {
  redis: RedisModule;
  cache: PngCache;
  log: Logger;
  lockTtlMs?: number;
  pollMs?: number;
}): SharedFlight {
  const { redis, cache, log } = deps;
  const { client, breaker } = redis;
  const lockTtlMs = deps.lockTtlMs ?? 3000;
  const pollMs = deps.pollMs ?? 250;
  const channel = `${redis.prefix}flight`;
  const lockOf = (key: string) => `${redis.prefix}lock:${key}`;
  const waiting = new Map<string, Set<(o: Outcome) => void>>();
  const counts = { owned: 0, waited: 0, shared: 0, solo: 0, takenOver: 0 };
  const background = new Set<Promise<void>>();

  redis.subscribe(channel, (message) => {
    let n: Notice;
    try {
      n = JSON.parse(message) as Notice;
    } catch {
      return;
    }
    const set = waiting.get(n.k);
    if (!set) return;
    const outcome: Outcome =
      n.s === 'error' && n.c && n.m
        ? { kind: 'error', code: n.c, message: n.m, ...(n.r !== undefined ? { retryAfter: n.r } : {}) }
        : { kind: n.s === 'error' ? 'retry' : n.s };
    for (const resolve of [...set]) resolve(outcome);
  });

  const announce = (notice: Notice) =>
    redis.publish(channel, JSON.stringify(notice)).catch(() => {
      // Waiters also poll the lock, so a lost announcement costs them one poll interval.
    });

  /** Waits for the owner's announcement, the lock's disappearance, Redis failing, or the deadline. */
  function waitFor(key: string, deadline: number): Promise<Outcome> {
    return new Promise((resolve) => {
      let set = waiting.get(key);
      if (!set) {
        set = new Set();
        waiting.set(key, set);
      }
      let poll: NodeJS.Timeout | undefined;
      const finish = (o: Outcome) => {
        clearTimeout(poll);
        clearTimeout(timer);
        set.delete(finish);
        if (set.size === 0) waiting.delete(key);
        resolve(o);
      };
      set.add(finish);
      const timer = setTimeout(() => finish({ kind: 'timeout' }), Math.max(1, deadline - Date.now()));
      const check = () => {
        poll = setTimeout(async () => {
          try {
            // Not on a request's critical path (the request is waiting anyway): a poll gets a
            // second before it counts as Redis failing.
            const exists = await breaker.run(() => client.exists(lockOf(key)), POLL_TIMEOUT_MS);
            if (exists === 0) finish({ kind: 'gone' });
            else if (set.has(finish)) check();
          } catch {
            finish({ kind: 'redis-down' });
          }
        }, pollMs);
      };
      check();
    });
  }

  async function solo<T>(
    key: string,
    produce: () => Promise<Produced<T>>,
    waitMs: number,
  ): Promise<FlightResult<T>> {
    counts.solo++;
    const made = await produce();
    if (made.cacheable) cache.set(key, made.entry).catch(() => {});
    return { role: 'solo', entry: made.entry, value: made.value, waitMs };
  }

  async function own<T>(
    key: string,
    token: string,
    produce: () => Promise<Produced<T>>,
    waitMs: number,
    accept: (entry: CacheEntry) => boolean,
  ): Promise<FlightResult<T>> {
    counts.owned++;
    const lock = lockOf(key);
    const renew = setInterval(() => {
      breaker.run(() => client.eval(RENEW, 1, lock, token, String(lockTtlMs))).catch(() => {});
    }, lockTtlMs / 3);
    renew.unref();
    const release = async () => {
      clearInterval(renew);
      await breaker.run(() => client.eval(RELEASE, 1, lock, token)).catch(() => {});
    };
    let made: Produced<T>;
    try {
      // Someone may have finished between our last look and taking the lock.
      const already = await cache.get(key);
      if (already && accept(already)) {
        await release();
        return { role: 'waiter', entry: already, waitMs };
      }
      made = await produce();
    } catch (err) {
      const notice: Notice = isAppError(err)
        ? {
            k: key,
            s: 'error',
            c: err.code,
            m: err.message,
            ...(err.retryAfter !== undefined ? { r: err.retryAfter } : {}),
          }
        : { k: key, s: 'retry' };
      // Announce before letting go: a waiter polling the lock must not see it gone first and
      // try the failing page again.
      track(announce(notice).then(release));
      throw err;
    }
    // Behind the owner's own answer: store, then announce, then let go of the lock.
    track(
      (async () => {
        if (made.cacheable) {
          await cache.set(key, made.entry).catch(() => {});
          await announce({ k: key, s: 'done' });
        } else {
          await announce({ k: key, s: 'uncached' });
        }
        await release();
      })(),
    );
    return { role: 'owner', entry: made.entry, value: made.value, waitMs };
  }

  /** What a waiter does once its wait ends: an answer, or 'again' to try for the lock once more. */
  async function afterWait<T>(
    key: string,
    outcome: Outcome,
    produce: () => Promise<Produced<T>>,
    waited: () => number,
    accept: (entry: CacheEntry) => boolean,
  ): Promise<FlightResult<T> | 'again'> {
    switch (outcome.kind) {
      case 'done':
      case 'gone': {
        const entry = await cache.get(key);
        if (entry && accept(entry)) {
          counts.shared++;
          return { role: 'waiter', entry, waitMs: waited() };
        }
        // Announced but not readable (too large for Redis), or the owner died: take over.
        if (outcome.kind === 'done') return solo(key, produce, waited());
        return 'again';
      }
      case 'retry':
        return 'again';
      case 'uncached':
      case 'redis-down':
        return solo(key, produce, waited());
      case 'error':
        throw new AppError(outcome.code, outcome.message, {
          ...(outcome.retryAfter !== undefined ? { retryAfter: outcome.retryAfter } : {}),
          detail: 'the same capture failed on another node',
        });
      case 'timeout':
        throw new AppError('unavailable', 'Another node is still capturing this page; retry shortly', {
          retryAfter: 2,
          detail: `waited ${waited()} ms for the lock on ${key}`,
        });
    }
  }

  const track = (p: Promise<unknown>) => {
    const done = p.then(
      () => {},
      () => {},
    );
    background.add(done);
    void done.finally(() => background.delete(done));
  };

  return {
    async run(key, { deadline, produce, accept = () => true }) {
      const started = Date.now();
      let sawOwner = false;
      // Time spent waiting for another node's capture (0 when this node never waited).
      const waited = () => (sawOwner ? Date.now() - started : 0);
      for (;;) {
        if (breaker.open) return solo(key, produce, waited());
        const token = randomBytes(12).toString('base64url');
        let locked: string | null;
        try {
          locked = await breaker.run(() => client.set(lockOf(key), token, 'PX', lockTtlMs, 'NX'));
        } catch {
          return solo(key, produce, waited());
        }
        if (locked === 'OK') {
          if (sawOwner) {
            counts.takenOver++;
            log.info({ key }, 'shared capture: the node that held the lock went away; capturing here');
          }
          return own(key, token, produce, waited(), accept);
        }
        if (!sawOwner) counts.waited++;
        sawOwner = true;
        const next = await afterWait(key, await waitFor(key, deadline), produce, waited, accept);
        if (next !== 'again') return next;
      }
    },
    health: () => ({ state: breaker.open ? 'down' : 'up', ...counts }),
    async close() {
      // Announcements and releases already under way finish, so waiters are not left to poll.
      await Promise.allSettled([...background]);
      for (const set of waiting.values()) for (const resolve of [...set]) resolve({ kind: 'redis-down' });
    },
  };
}
