import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import { withTimeout } from '../lib/timeout.js';
import { postgresConnectFailure } from './connect-error.js';
import type { Store } from './store.js';

/** What the breaker knows about the database, for /readyz and the log. */
export interface DatabaseHealth {
  state: 'closed' | 'open';
  /** When the state last changed (unix ms). */
  since: number;
  /** The failure that opened it (open only). */
  lastError?: string;
}

/** A Store whose breaker state can be read. */
export type GuardedStore = Store & { databaseHealth(): DatabaseHealth };

/** The answer while the breaker is open: at once, with Retry-After. */
export const DATABASE_UNAVAILABLE = 'The database is not answering; retry shortly';
const RETRY_AFTER_S = 5;
/** While open after a refusal, one real call may try the database this often. */
const TRIAL_MS = 250;

/**
 * Calls that may be given up after `timeoutMs` without harm: reads, and writes that can be
 * repeated (raising last_used_at, purging, touching a session). The others (a key, an account,
 * a usage batch) are never abandoned half-way by a timer: a late commit after a time-out would
 * count usage twice or lose the key shown once. They still fail at once while the breaker is open.
 */
const TIMED = new Set<keyof Store>([
  'getAccount',
  'getAccountByEmail',
  'listAccounts',
  'findKey',
  'listKeys',
  'touchKeys',
  'usage',
  'getMeta',
  'getPassword',
  'getInvite',
  'getTheme',
  'getSession',
  'touchSession',
  'purgeExpired',
  'purgeFormTokens',
  'listEndpoints',
  'getEndpoint',
  'countEndpoints',
  'getMessage',
  'countPendingMessages',
  'listMessages',
  'listAttempts',
  'listOverdueMessages',
  'purgeMessages',
  'ping',
]);

/**
 * Wraps a PostgreSQL store in a time-out and a circuit breaker. A database that hangs (a
 * network partition: the connection open, no bytes moving) would otherwise cost every request
 * the full time-out. After `threshold` consecutive time-outs the breaker opens: every call
 * fails at once with a 503 `unavailable` AppError and Retry-After, and a background probe pings
 * the database every `probeMs` until it answers, which closes it again (once the probe meets a
 * refusal instead of a hang, one real call may also try every 250 ms). A refused or cut
 * connection is a 503 too but does not open it; an SQL error is an answer and passes through.
 */
export function guardStore(
  store: Store,
  opts: {
    timeoutMs: number;
    url: string;
    log?: Logger;
    threshold?: number;
    probeMs?: number;
    now?: () => number;
  },
): GuardedStore {
  const threshold = opts.threshold ?? 2;
  const probeMs = opts.probeMs ?? 1000;
  const now = opts.now ?? Date.now;
  let failures = 0;
  let health: DatabaseHealth = { state: 'closed', since: now() };
  let probe: NodeJS.Timeout | undefined;
  let closed = false;
  // Whether the last failure was a time-out (a hang) rather than a refusal; trial calls.
  let hung = false;
  let trying = false;
  let lastTrial = 0;

  /** The reason when `err` means the database could not be reached; undefined for an answer. */
  const unreachable = (err: unknown): string | undefined => {
    if (err instanceof TimeoutError) return err.message;
    const failure = postgresConnectFailure(err, opts.url);
    if (failure instanceof AppError && failure.code === 'unavailable') return failure.message;
    const message = err instanceof Error ? err.message : String(err);
    // pg's words for a pool that could not hand out a connection in time, and for a client
    // whose connection died under it (ended, or errored by the socket).
    if (
      /timeout exceeded when trying to connect|Connection terminated|not queryable|Client has encountered a connection error/i.test(
        message,
      )
    ) {
      return message;
    }
    return undefined;
  };

  const open = (why: string) => {
    if (health.state === 'open' || closed) return;
    health = { state: 'open', since: now(), lastError: why };
    opts.log?.error(
      { reason: why },
      'database not answering: requests that need it get 503 at once until a probe gets through',
    );
    const tick = () => {
      probe = setTimeout(() => {
        timed(store.ping(), opts.timeoutMs).then(
          () => {
            if (!closed) closeNow();
          },
          (err: unknown) => {
            if (closed || health.state !== 'open') return;
            hung = isHang(err);
            health = { ...health, lastError: unreachable(err) ?? describe(err) };
            tick();
          },
        );
      }, probeMs);
      probe.unref();
    };
    tick();
  };

  const closeNow = () => {
    if (health.state !== 'open') return;
    const downMs = now() - health.since;
    failures = 0;
    health = { state: 'closed', since: now() };
    clearTimeout(probe);
    probe = undefined;
    opts.log?.info({ downMs }, 'database answering again');
  };

  /**
   * A call while the breaker is open. A database that refused (fast to find out) lets one real
   * call through every TRIAL_MS, so a node with traffic is back as soon as the database is; a
   * hung one is left to the background probe, so no request waits out the time-out again.
   */
  const callWhileOpen = async <A extends unknown[], R>(
    name: keyof Store,
    fn: (...args: A) => Promise<R>,
    args: A,
  ): Promise<R> => {
    const mayTry = !hung && !trying && now() - lastTrial >= TRIAL_MS;
    if (!mayTry) {
      throw new AppError('unavailable', DATABASE_UNAVAILABLE, {
        retryAfter: RETRY_AFTER_S,
        detail: `database breaker open since ${new Date(health.since).toISOString()}: ${health.lastError}`,
      });
    }
    trying = true;
    lastTrial = now();
    try {
      const result = TIMED.has(name) ? await timed(fn(...args), opts.timeoutMs) : await fn(...args);
      closeNow();
      return result;
    } catch (err) {
      const why = unreachable(err);
      if (why === undefined) {
        closeNow();
        throw err;
      }
      hung = isHang(err);
      health = { ...health, lastError: why };
      throw unavailable(why, err);
    } finally {
      trying = false;
    }
  };

  /** A call while the breaker is closed: an unreachable database counts toward opening it. */
  const callWhileClosed = async <A extends unknown[], R>(
    name: keyof Store,
    fn: (...args: A) => Promise<R>,
    args: A,
  ): Promise<R> => {
    const call = fn(...args);
    try {
      const result = TIMED.has(name) ? await timed(call, opts.timeoutMs) : await call;
      failures = 0;
      return result;
    } catch (err) {
      const why = unreachable(err);
      if (why === undefined) {
        failures = 0;
        throw err;
      }
      countFailure(err, why);
      throw unavailable(why, err);
    }
  };

  /**
   * Only a hang opens the breaker: a refusal costs a millisecond, and answering it at once
   * anyway would only make the node slower to notice the database is back (and a load
   * balancer counting 503s would take every node out together).
   */
  const countFailure = (err: unknown, why: string) => {
    if (!isHang(err)) {
      failures = 0;
      return;
    }
    failures++;
    if (failures >= threshold) {
      hung = true;
      open(why);
    }
  };

  const guard =
    <A extends unknown[], R>(name: keyof Store, fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      health.state === 'open' ? callWhileOpen(name, fn, args) : callWhileClosed(name, fn, args);

  const guarded = { ...store } as Record<string, unknown>;
  for (const [name, value] of Object.entries(store)) {
    if (typeof value !== 'function' || name === 'close') continue;
    guarded[name] = guard(name as keyof Store, (value as (...a: unknown[]) => Promise<unknown>).bind(store));
  }
  return {
    ...(guarded as unknown as Store),
    kind: store.kind,
    databaseHealth: () => ({ ...health }),
    async close() {
      closed = true;
      clearTimeout(probe);
      await store.close();
    },
  };
}

class TimeoutError extends Error {}

/** Our time-out, or pg-pool's own when no connection could be had in time (all of them hung). */
function isHang(err: unknown): boolean {
  return (
    err instanceof TimeoutError ||
    (err instanceof Error && /timeout exceeded when trying to connect|timeout expired/i.test(err.message))
  );
}

function timed<T>(p: Promise<T>, ms: number): Promise<T> {
  return withTimeout(p, ms).catch((err: unknown) => {
    // withTimeout's own rejection is the only plain Error saying "timed out after".
    if (err instanceof Error && !(err instanceof AppError) && /^timed out after \d+ ms$/.test(err.message)) {
      throw new TimeoutError(`no answer within ${ms} ms`);
    }
    throw err;
  });
}

/** The 503 for a call that could not reach the database. */
function unavailable(why: string, cause: unknown): AppError {
  return new AppError('unavailable', DATABASE_UNAVAILABLE, {
    retryAfter: RETRY_AFTER_S,
    detail: why,
    cause,
  });
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
