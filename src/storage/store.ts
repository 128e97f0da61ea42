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
}

/** What a request may be counted as in the daily usage table. */
export const USAGE_KINDS = [
  'template',
  'screenshot',
  'cache_hit',
  'not_modified',
  'error',
  'rate_limited',
] as const;
export type UsageKind = (typeof USAGE_KINDS)[number];

export interface UsageRow {
  accountId: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  kind: UsageKind;
  count: number;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
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
  /** In one transaction: inserts `next` and makes `oldId` expire at `expiresAt` (or earlier, if it already did). */
  rotateKey(oldId: string, next: ApiKeyRecord, expiresAt: number): Promise<void>;
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
  close(): Promise<void>;
}
