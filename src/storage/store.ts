import type { Kysely } from 'kysely';
import type { WebhookStore } from '../webhooks/store.js';
import type { Tables } from './tables.js';

/**
 * The store of accounts, API keys and daily usage. One implementation (kysely) runs on SQLite
 * by default and on PostgreSQL with DATABASE_URL; both pass the same contract suite.
 * Times are unix milliseconds everywhere, so both databases store plain integers.
 */
export interface Account {
  id: string;
  name: string;
  /** Lower-cased; unique. */
  email: string;
  plan: string;
  createdAt: number;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  environment: string;
  /** The key's first characters (`cs_production_Ab12`), safe to show. */
  prefix: string;
  /** The key's last four characters, safe to show. */
  last4: string;
  /** Hex HMAC-SHA-256 of the whole key under the server secret; the key itself is never stored. */
  hash: string;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
  /** The key that replaced this one when it was rotated (it then works only until its grace ends). */
  replacedBy: string | null;
}

/** What a request may be counted as in the daily usage table. */
export const USAGE_KINDS = [
  'template',
  'screenshot',
  'cache_hit',
  'not_modified',
  'error',
  'rate_limited',
  'unfurl',
] as const;
export type UsageKind = (typeof USAGE_KINDS)[number];

export interface UsageRow {
  accountId: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  kind: UsageKind;
  count: number;
}

/** A dashboard session; `hash` is the HMAC of the cookie's value, never the value itself. */
export interface SessionRecord {
  hash: string;
  accountId: string;
  createdAt: number;
  /** Raised at most once a minute; the idle timeout counts from here. */
  lastSeenAt: number;
  /** The absolute end of the session, whatever its activity. */
  expiresAt: number;
}

/** A one-time invite link; `hash` is the HMAC of the link's token. */
export interface InviteRecord {
  hash: string;
  accountId: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

/**
 * An account's brand theme as stored: colours `#RRGGBB`, a font family name, and an optional
 * logo already normalised to PNG. `version` is the content hash the theme service computed.
 */
export interface ThemeRecord {
  accountId: string;
  background: string;
  text: string;
  accent: string;
  font: string;
  /** A family the account uploaded, drawn instead of `font` where it has the glyphs; null: none. */
  fontFamily?: string | null;
  logo: { data: Buffer; width: number; height: number; sha256: string } | null;
  version: string;
  updatedAt: number;
}

/** Brand themes: at most one per account, deleted with the account. */
export interface ThemeStore {
  getTheme(accountId: string): Promise<ThemeRecord | undefined>;
  /** Inserts or replaces the account's theme (whole: colours, font and logo together). */
  setTheme(theme: ThemeRecord): Promise<void>;
  /** Removes the account's theme; true when it had one. */
  clearTheme(accountId: string): Promise<boolean>;
}

/** Dashboard sign-in state: passwords, invites, sessions and one-time form tokens. */
export interface DashboardStore {
  getAccountByEmail(email: string): Promise<Account | undefined>;
  /** Inserts or replaces the account's password hash. */
  setPassword(accountId: string, hash: string, at: number): Promise<void>;
  getPassword(accountId: string): Promise<string | undefined>;

  insertInvite(invite: InviteRecord): Promise<void>;
  getInvite(hash: string): Promise<InviteRecord | undefined>;
  /**
   * Marks the invite used if it is unused and unexpired at `now`, atomically (two nodes
   * racing on the same link: one wins); the account id when this call used it.
   */
  useInvite(hash: string, now: number): Promise<string | undefined>;
  /** Marks every unused invite of the account used at `now` (a new password or a newer link); how many. */
  voidInvitesOf(accountId: string, now: number): Promise<number>;

  insertSession(session: SessionRecord): Promise<void>;
  getSession(hash: string): Promise<SessionRecord | undefined>;
  touchSession(hash: string, at: number): Promise<void>;
  deleteSession(hash: string): Promise<void>;
  /** Signs the account out everywhere (after a password change); how many sessions ended. */
  deleteSessionsOf(accountId: string): Promise<number>;
  /** Removes sessions past their absolute end or idle since `idleBefore`, and invites expired before `now`. */
  purgeExpired(now: number, idleBefore: number): Promise<void>;

  /** Records a one-time form token; false when it was already used. */
  useFormToken(hash: string, at: number): Promise<boolean>;
  /** Forgets form tokens used before `before`. */
  purgeFormTokens(before: number): Promise<void>;
}

export interface Store extends DashboardStore, ThemeStore, WebhookStore {
  readonly kind: 'sqlite' | 'postgres';
  /**
   * The open, migrated database, for areas that keep their own tables in it (jobs): they add
   * their table shapes with `db.withTables<…>()` and their migrations to migrations/.
   */
  readonly db: Kysely<Tables>;
  /** Inserts an account; refuses a second account with the same email. */
  createAccount(account: Account): Promise<void>;
  getAccount(id: string): Promise<Account | undefined>;
  listAccounts(): Promise<Account[]>;
  /** Changes the plan; undefined when no such account. */
  setAccountPlan(id: string, plan: string): Promise<Account | undefined>;

  insertKey(key: ApiKeyRecord): Promise<void>;
  /** The key (by id or by hash) with its account, in one query. */
  findKey(
    by: { id: string } | { hash: string },
  ): Promise<{ key: ApiKeyRecord; account: Account } | undefined>;
  listKeys(accountId: string): Promise<ApiKeyRecord[]>;
  /** Sets revoked_at once (a second revoke keeps the first time); undefined when no such key. */
  revokeKey(id: string, at: number): Promise<ApiKeyRecord | undefined>;
  /**
   * In one transaction: marks `oldId` as replaced by `next`, inserts `next` and makes `oldId`
   * expire at `expiresAt` (or earlier, if it already did). False, with nothing written, when
   * `oldId` was already replaced or revoked (a rotation that lost a race).
   */
  rotateKey(oldId: string, next: ApiKeyRecord, expiresAt: number): Promise<boolean>;
  /** Raises last_used_at to the given times (never lowers it). */
  touchKeys(entries: ReadonlyArray<{ id: string; at: number }>): Promise<void>;

  /** Adds counts to the daily usage table in one transaction. */
  addUsage(rows: readonly UsageRow[]): Promise<void>;
  /** Usage rows of an account for days in [fromDay, toDay], ordered by day. */
  usage(accountId: string, fromDay: string, toDay: string): Promise<UsageRow[]>;

  /** Stores `value` under `name` unless a value is there; true when this call stored it. */
  claimMeta(name: string, value: string): Promise<boolean>;
  getMeta(name: string): Promise<string | undefined>;

  /** Cheap round trip, for readiness checks. */
  ping(): Promise<void>;
  /**
   * PostgreSQL only: whether the breaker in front of it is open (it hung or refused; calls fail
   * at once with 503 until a background probe gets through). See storage/breaker.ts.
   */
  databaseHealth?(): { state: 'closed' | 'open'; since: number; lastError?: string };
  close(): Promise<void>;
}
