import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import type { ServerSecrets } from '../auth/secret.js';
import { type Clock, systemClock } from '../lib/clock.js';
import type { Account, SessionRecord, Store } from '../storage/store.js';

/** A signed-in dashboard visitor. */
export interface ActiveSession {
  /** The cookie's value; only its HMAC is stored. */
  id: string;
  record: SessionRecord;
  account: Account;
}

export type Resolved = { state: 'active'; session: ActiveSession } | { state: 'expired' } | { state: 'none' };

/** Dashboard sessions in the database, so every node accepts every cookie (issue 6). */
export interface Sessions {
  /** Starts a session for the account; the id goes into the cookie. */
  start(accountId: string): Promise<{ id: string; expiresAt: number }>;
  /** The session behind a cookie value: active, expired (idle or absolute), or none. */
  resolve(id: string | undefined): Promise<Resolved>;
  end(id: string): Promise<void>;
  /** The CSRF token of a session or pre-session id. */
  csrfToken(boundTo: string): string;
  /** Constant-time check of a presented CSRF token. */
  csrfMatches(boundTo: string, presented: unknown): boolean;
  /**
   * A one-time token for a form that shows a key (create, rotate), issued by the server and
   * bound to the session: `nonce.issuedAt.signature`.
   */
  formToken(boundTo: string): string;
  /**
   * Takes a presented one-time token: false when this server did not issue it for `boundTo`,
   * when it is older than a day, or when it was already used (a reloaded or re-sent POST).
   */
  useFormToken(boundTo: string, token: string): Promise<boolean>;
  readonly idleMs: number;
  readonly maxMs: number;
  close(): Promise<void>;
}

const ID = /^[A-Za-z0-9_-]{43}$/;
/** last_seen_at is written at most this often per session, not on every page view. */
const TOUCH_EVERY_MS = 60_000;
const PURGE_EVERY_MS = 10 * 60_000;
const FORM_TOKENS_KEPT_MS = 7 * 86_400_000;
/**
 * A form token is good for a day: well inside the week its use is remembered, so a token
 * cannot be sent again once the purge has forgotten it.
 */
const FORM_TOKEN_TTL_MS = 86_400_000;
const FORM_TOKEN = /^([A-Za-z0-9_-]{43})\.([0-9a-z]{1,12})\.([0-9a-f]{64})$/;

/** A new 256-bit random id, base64url (43 characters). */
export function randomId(): string {
  return randomBytes(32).toString('base64url');
}

/** Sessions with an idle and an absolute lifetime, and a background purge of ended ones. */
export function createSessions(deps: {
  store: Store;
  secrets: ServerSecrets;
  idleMs: number;
  maxMs: number;
  log: Logger;
  clock?: Clock;
}): Sessions {
  const clock = deps.clock ?? systemClock;
  const { store, secrets } = deps;

  const purge = async () => {
    const now = clock.now();
    try {
      await store.purgeExpired(now, now - deps.idleMs);
      await store.purgeFormTokens(now - FORM_TOKENS_KEPT_MS);
    } catch (err) {
      deps.log.warn({ err }, 'could not purge ended dashboard sessions');
    }
  };
  const timer = setInterval(() => void purge(), PURGE_EVERY_MS);
  timer.unref();

  return {
    idleMs: deps.idleMs,
    maxMs: deps.maxMs,

    async start(accountId) {
      const id = randomId();
      const now = clock.now();
      const expiresAt = now + deps.maxMs;
      await store.insertSession({
        hash: secrets.hashToken(id),
        accountId,
        createdAt: now,
        lastSeenAt: now,
        expiresAt,
      });
      return { id, expiresAt };
    },

    async resolve(id) {
      if (id === undefined || !ID.test(id)) return { state: 'none' };
      const hash = secrets.hashToken(id);
      const record = await store.getSession(hash);
      if (!record) return { state: 'none' };
      const now = clock.now();
      if (record.expiresAt <= now || record.lastSeenAt + deps.idleMs <= now) {
        await store.deleteSession(hash);
        return { state: 'expired' };
      }
      const account = await store.getAccount(record.accountId);
      if (!account) return { state: 'none' };
      if (now - record.lastSeenAt >= TOUCH_EVERY_MS) {
        await store.touchSession(hash, now);
        record.lastSeenAt = now;
      }
      return { state: 'active', session: { id, record, account } };
    },

    async end(id) {
      if (ID.test(id)) await store.deleteSession(secrets.hashToken(id));
    },

    csrfToken: (boundTo) => secrets.csrfToken(boundTo),

    csrfMatches(boundTo, presented) {
      if (typeof presented !== 'string') return false;
      const a = Buffer.from(presented);
      const b = Buffer.from(secrets.csrfToken(boundTo));
      return a.length === b.length && timingSafeEqual(a, b);
    },

    formToken(boundTo) {
      const body = `${randomId()}.${clock.now().toString(36)}`;
      return `${body}.${secrets.hashToken(`form:${boundTo}:${body}`)}`;
    },

    async useFormToken(boundTo, token) {
      const m = FORM_TOKEN.exec(token);
      if (!m) return false;
      const body = `${m[1]}.${m[2]}`;
      const want = Buffer.from(secrets.hashToken(`form:${boundTo}:${body}`));
      const got = Buffer.from(m[3]!);
      if (!timingSafeEqual(want, got)) return false;
      const age = clock.now() - Number.parseInt(m[2]!, 36);
      if (!(age >= -60_000 && age <= FORM_TOKEN_TTL_MS)) return false;
      return store.useFormToken(secrets.hashToken(`form:${token}`), clock.now());
    },

    async close() {
      clearInterval(timer);
    },
  };
}
