import { timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import { type Clock, systemClock } from '../lib/clock.js';
import { withTimeout } from '../lib/timeout.js';
import type { Account, ApiKeyRecord, Store } from '../storage/store.js';
import { checkKeyFormat, isId } from './keys.js';
import type { Plan, Plans } from './plans.js';
import type { ServerSecrets } from './secret.js';
import { canonicalRequest, signature, signatureMatches } from './signing.js';

/** Who is calling, attached to every authenticated request as `req.auth`. */
export interface AuthContext {
  accountId: string;
  keyId: string;
  plan: Plan;
  /** How the caller proved it: the header, the discouraged query parameter, or a signed URL. */
  via: 'header' | 'query' | 'signature';
  /** A signed URL's `exp` (unix seconds): its answer must not be cached past it. */
  signatureExpiresAt?: number;
}

/** The parts of a request authentication reads. */
export interface AuthInput {
  method: string;
  /** The path as sent, without the query. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed query (a repeated parameter is an array). */
  query: Record<string, unknown>;
}

export interface Authenticator {
  /** The caller's identity, or a 401 (`Missing or invalid API key`) / 503 (store unreachable). */
  authenticate(req: AuthInput): Promise<AuthContext>;
  /** Forgets cached verifications of `keyId` (every key when omitted): call after revoke, rotate, plan change. */
  invalidate(keyId?: string): void;
  close(): Promise<void>;
}

/** The spec's message, word for word, for every way a credential can be missing or wrong. */
export const UNAUTHORIZED = 'Missing or invalid API key';
/** Query parameters that carry credentials; other layers ignore them. */
export const AUTH_QUERY_PARAMS: ReadonlySet<string> = new Set(['api_key', 'kid', 'exp', 'sig']);

const LAST_USED_EVERY_MS = 60_000;
/** A verification this recent still admits its key while the store is unreachable. */
const STALE_MS = 30_000;
const MAX_CACHED = 10_000;
const SIG = /^[A-Za-z0-9_-]{43}$/;
const EXP = /^\d{1,12}$/;

interface Cached {
  key: ApiKeyRecord;
  account: Account;
  at: number;
}

/** Header → query key → signed URL, each checked format-first, then against the store. */
export function createAuthenticator(deps: {
  store: Store;
  secrets: ServerSecrets;
  plans: Plans;
  log: Logger;
  clock?: Clock;
  /** How long a verification is reused without asking the store (0: always ask). */
  cacheMs: number;
  /** Longest a look-up may take before the store counts as unreachable (a hung connection). */
  timeoutMs?: number;
}): Authenticator {
  const clock = deps.clock ?? systemClock;
  const cache = new Map<string, Cached>();
  const lastTouched = new Map<string, number>();
  // Raised by every invalidation: a look-up that was already running when a key was revoked
  // may carry the row as it was before, and must not put it back into the cache.
  let generation = 0;

  const deny = (detail: string): AppError => new AppError('unauthorized', UNAUTHORIZED, { detail });
  const find = (by: { id: string } | { hash: string }) =>
    withTimeout(deps.store.findKey(by), deps.timeoutMs ?? 3000);

  async function lookup(by: { id: string } | { hash: string }): Promise<Cached | undefined> {
    const cacheKey = 'id' in by ? `id:${by.id}` : `hash:${by.hash}`;
    const now = clock.now();
    const hit = cache.get(cacheKey);
    if (hit && now - hit.at < deps.cacheMs) return hit;
    let found: { key: ApiKeyRecord; account: Account } | undefined;
    const startedIn = generation;
    try {
      found = await find(by);
    } catch (err) {
      // The store is down: a key verified moments ago keeps working; anyone else waits.
      if (hit && now - hit.at < STALE_MS) return hit;
      deps.log.error({ err }, 'key store unreachable');
      throw new AppError('unavailable', 'API keys cannot be checked right now; retry shortly', {
        retryAfter: 5,
        cause: err,
      });
    }
    if (!found) {
      cache.delete(cacheKey);
      return undefined;
    }
    const entry = { ...found, at: now };
    if (startedIn !== generation) {
      // Revoked or changed while the query ran: answer from a fresh read, cache nothing.
      return fresh(by, now);
    }
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
    cache.set(cacheKey, entry);
    return entry;
  }

  async function fresh(by: { id: string } | { hash: string }, now: number): Promise<Cached | undefined> {
    const found = await find(by).catch((err) => {
      throw new AppError('unavailable', 'API keys cannot be checked right now; retry shortly', {
        retryAfter: 5,
        cause: err,
      });
    });
    return found ? { ...found, at: now } : undefined;
  }

  function admit(entry: Cached, via: AuthContext['via']): AuthContext {
    const now = clock.now();
    const { key, account } = entry;
    if (key.revokedAt !== null) throw deny(`key ${key.id} is revoked`);
    if (key.expiresAt !== null && now >= key.expiresAt) throw deny(`key ${key.id} expired`);
    const plan = deps.plans.get(account.plan);
    if (!plan) {
      throw new AppError('forbidden', 'Your plan is not configured on this server; contact its operator', {
        detail: `account ${account.id} has unknown plan "${account.plan}"`,
      });
    }
    touch(key.id, now);
    return { accountId: account.id, keyId: key.id, plan, via };
  }

  // last_used_at is written off the request path, at most once a minute per key per process.
  function touch(keyId: string, now: number): void {
    const last = lastTouched.get(keyId);
    if (last !== undefined && now - last < LAST_USED_EVERY_MS) return;
    lastTouched.set(keyId, now);
    if (lastTouched.size > MAX_CACHED) lastTouched.delete(lastTouched.keys().next().value as string);
    deps.store.touchKeys([{ id: keyId, at: now }]).catch((err) => {
      deps.log.warn({ err, keyId }, 'could not record when a key was last used');
    });
  }

  async function byKey(presented: string, via: 'header' | 'query'): Promise<AuthContext> {
    const format = checkKeyFormat(presented);
    if (!format.ok)
      throw deny(format.reason === 'malformed' ? 'malformed key' : 'key checksum does not match');
    const hash = deps.secrets.hashKey(presented);
    const entry = await lookup({ hash });
    if (!entry) throw deny(`unknown ${format.environment} key`);
    // The look-up was by hash already; comparing again in constant time costs nothing and keeps
    // the check independent of how the database compares strings.
    const a = Buffer.from(entry.key.hash, 'hex');
    const b = Buffer.from(hash, 'hex');
    if (a.length !== b.length || !timingSafeEqual(a, b)) throw deny('hash mismatch');
    return admit(entry, via);
  }

  async function bySignature(req: AuthInput): Promise<AuthContext> {
    const { kid, exp, sig } = req.query;
    if (typeof kid !== 'string' || typeof exp !== 'string' || typeof sig !== 'string') {
      throw deny('signed URL needs exactly one kid, exp and sig');
    }
    const method = req.method.toUpperCase();
    if (method !== 'GET' && method !== 'HEAD') throw deny('signed URLs are for GET only');
    if (!isId(kid, 'key') || !EXP.test(exp) || !SIG.test(sig)) throw deny('malformed signed URL');
    if (Number(exp) * 1000 <= clock.now()) throw deny(`signed URL expired at ${exp}`);
    const params: Array<[string, string]> = [];
    for (const [name, value] of Object.entries(req.query)) {
      for (const v of Array.isArray(value) ? value : [value]) params.push([name, String(v)]);
    }
    const expected = signature(
      deps.secrets.signingSecret(kid),
      canonicalRequest(req.method, req.path, params),
    );
    // Checked before the store is asked, so forged URLs cost no database round trip.
    if (!signatureMatches(sig, expected)) throw deny(`bad signature for ${kid}`);
    const entry = await lookup({ id: kid });
    if (!entry) throw deny(`signed URL names unknown key ${kid}`);
    return { ...admit(entry, 'signature'), signatureExpiresAt: Number(exp) };
  }

  return {
    async authenticate(req) {
      const header = req.headers['x-api-key'];
      if (header !== undefined) {
        if (typeof header !== 'string') throw deny('x-api-key given more than once');
        return byKey(header.trim(), 'header');
      }
      const queryKey = req.query.api_key;
      if (queryKey !== undefined) {
        if (typeof queryKey !== 'string') throw deny('api_key given more than once');
        // Signed URLs are for publishing; one that also holds the key would publish the key, so
        // it fails at once, while it is being tried out, instead of working.
        if (req.query.sig !== undefined) throw deny('api_key and a signature in one URL');
        return byKey(queryKey, 'query');
      }
      if (req.query.sig !== undefined) return bySignature(req);
      throw deny('no credentials');
    },
    invalidate(keyId) {
      generation++;
      if (keyId === undefined) {
        cache.clear();
        return;
      }
      for (const [k, v] of cache) if (v.key.id === keyId) cache.delete(k);
    },
    async close() {
      cache.clear();
    },
  };
}
