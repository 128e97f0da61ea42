import { ENVIRONMENT, generateKey, isId, newId } from '../auth/keys.js';
import type { Plans } from '../auth/plans.js';
import type { ServerSecrets } from '../auth/secret.js';
import { AppError } from '../errors.js';
import { type Clock, systemClock } from '../lib/clock.js';
import type { Account, ApiKeyRecord, Store, UsageKind } from '../storage/store.js';
import { USAGE_KINDS } from '../storage/store.js';
import { utcDay } from '../usage/recorder.js';

/** A key as created: the only moment the key and its signing secret exist in the clear. */
export interface CreatedKey {
  record: ApiKeyRecord;
  key: string;
  signingSecret: string;
}

export type KeyStatus = 'active' | 'expired' | 'revoked';

/** Per-day usage with every kind present (0 when nothing was counted). */
export interface UsageDay {
  day: string;
  counts: Record<UsageKind, number>;
}

/** Account and key operations shared by the CLI, the first-run set-up, the tests and the dashboard. */
export interface AccountManager {
  createAccount(input: { name: string; email: string; plan: string }): Promise<Account>;
  listAccounts(): Promise<Account[]>;
  setPlan(accountId: string, plan: string): Promise<Account>;
  createKey(input: {
    accountId: string;
    name: string;
    environment: string;
    expiresAt?: number | null;
  }): Promise<CreatedKey>;
  listKeys(accountId: string): Promise<ApiKeyRecord[]>;
  /**
   * The key `keyId` when it belongs to `accountId`; undefined for a malformed id, an unknown key
   * or another account's, alike, so a caller cannot tell another account's key ids from none.
   */
  findOwnKey(accountId: string, keyId: string): Promise<ApiKeyRecord | undefined>;
  revokeKey(keyId: string): Promise<ApiKeyRecord>;
  /** A new key like the old one; the old one expires `graceMs` from now (or sooner if it already did). */
  rotateKey(keyId: string, graceMs: number): Promise<{ created: CreatedKey; old: ApiKeyRecord }>;
  /** The last `days` UTC days of usage, oldest first, every day present. */
  usage(accountId: string, days: number): Promise<UsageDay[]>;
}

/** The status a key has at `now`. */
export function keyStatus(key: ApiKeyRecord, now: number): KeyStatus {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && key.expiresAt <= now) return 'expired';
  return 'active';
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** A rotated key in its grace period is rotated no further: its replacement is the one to rotate. */
function alreadyRotated(keyId: string, replacedBy: string): AppError {
  return new AppError(
    'conflict',
    `Key ${keyId} was already rotated; rotate its replacement ${replacedBy} instead`,
  );
}

/** Validates input and talks to the store; `onKeyChanged` lets caches forget a key at once. */
export function createAccountManager(deps: {
  store: Store;
  secrets: ServerSecrets;
  plans: Plans;
  /** Active keys an account may hold (CARDSHOT_MAX_KEYS_PER_ACCOUNT); unlimited when absent. */
  maxActiveKeys?: number;
  clock?: Clock;
  onKeyChanged?: (keyId?: string) => void;
}): AccountManager {
  const clock = deps.clock ?? systemClock;
  const changed = (keyId?: string) => deps.onKeyChanged?.(keyId);

  const requirePlan = (plan: string) => {
    if (!deps.plans.has(plan)) {
      throw new AppError(
        'bad_request',
        `Unknown plan "${plan}"; use one of: ${[...deps.plans.keys()].join(', ')}`,
      );
    }
  };
  const requireAccount = async (id: string) => {
    const account = isId(id, 'acc') ? await deps.store.getAccount(id) : undefined;
    if (!account) throw new AppError('not_found', `No account ${id}`);
    return account;
  };
  const requireKey = async (id: string) => {
    const found = isId(id, 'key') ? await deps.store.findKey({ id }) : undefined;
    if (!found) throw new AppError('not_found', `No key ${id}`);
    return found.key;
  };
  const text = (field: string, value: string, max: number) => {
    const v = value.trim();
    if (v === '') throw new AppError('bad_request', `${field} must not be empty`);
    if ([...v].length > max) throw new AppError('bad_request', `${field} must be at most ${max} characters`);
    return v;
  };

  const makeKey = (accountId: string, name: string, environment: string, expiresAt: number | null) => {
    const { key, prefix, last4 } = generateKey(environment);
    const record: ApiKeyRecord = {
      id: newId('key'),
      accountId,
      name,
      environment,
      prefix,
      last4,
      hash: deps.secrets.hashKey(key),
      createdAt: clock.now(),
      lastUsedAt: null,
      expiresAt,
      revokedAt: null,
      replacedBy: null,
    };
    return { record, key, signingSecret: deps.secrets.signingSecret(record.id) };
  };

  return {
    async createAccount(input) {
      requirePlan(input.plan);
      const email = text('email', input.email, 320).toLowerCase();
      if (!EMAIL.test(email)) throw new AppError('bad_request', 'email must look like name@example.com');
      const account: Account = {
        id: newId('acc'),
        name: text('name', input.name, 200),
        email,
        plan: input.plan,
        createdAt: clock.now(),
      };
      await deps.store.createAccount(account);
      return account;
    },

    listAccounts: () => deps.store.listAccounts(),

    async setPlan(accountId, plan) {
      requirePlan(plan);
      await requireAccount(accountId);
      const account = await deps.store.setAccountPlan(accountId, plan);
      changed();
      return account!;
    },

    async createKey(input) {
      await requireAccount(input.accountId);
      const environment = input.environment.trim();
      if (!ENVIRONMENT.test(environment)) {
        throw new AppError(
          'bad_request',
          'environment must be 1 to 16 lower-case letters and digits, starting with a letter (production, staging, development, ci…)',
        );
      }
      const expiresAt = input.expiresAt ?? null;
      if (expiresAt !== null && expiresAt <= clock.now()) {
        throw new AppError('bad_request', 'expiry must be in the future');
      }
      const max = deps.maxActiveKeys;
      if (max !== undefined) {
        // Counted before the insert: two creations at the same instant may both pass (one over).
        const now = clock.now();
        const active = (await deps.store.listKeys(input.accountId)).filter(
          (k) => keyStatus(k, now) === 'active',
        ).length;
        if (active >= max) {
          throw new AppError(
            'conflict',
            `This account already has ${active} active keys, the most it may have (${max}); revoke one it no longer uses first`,
          );
        }
      }
      const created = makeKey(input.accountId, text('name', input.name, 200), environment, expiresAt);
      await deps.store.insertKey(created.record);
      return created;
    },

    async listKeys(accountId) {
      await requireAccount(accountId);
      return deps.store.listKeys(accountId);
    },

    async findOwnKey(accountId, keyId) {
      const found = isId(keyId, 'key') ? await deps.store.findKey({ id: keyId }) : undefined;
      return found && found.key.accountId === accountId ? found.key : undefined;
    },

    async revokeKey(keyId) {
      await requireKey(keyId);
      const key = await deps.store.revokeKey(keyId, clock.now());
      changed(keyId);
      return key!;
    },

    async rotateKey(keyId, graceMs) {
      const old = await requireKey(keyId);
      if (old.revokedAt !== null)
        throw new AppError('bad_request', `Key ${keyId} is revoked; create a new key`);
      // Its expiry is now the grace deadline, which a second rotation would hand to the new key.
      if (old.replacedBy !== null) throw alreadyRotated(keyId, old.replacedBy);
      if (!(graceMs >= 0)) throw new AppError('bad_request', 'grace must be zero or more');
      const now = clock.now();
      if (old.expiresAt !== null && old.expiresAt <= now)
        throw new AppError('bad_request', `Key ${keyId} has expired; create a new key`);
      // Rotation answers exposure, not lifetime: the new key ends when the old one would have,
      // and the grace period never lets the old one outlive its own expiry.
      const created = makeKey(old.accountId, old.name, old.environment, old.expiresAt);
      const oldUntil = old.expiresAt === null ? now + graceMs : Math.min(old.expiresAt, now + graceMs);
      const replaced = await deps.store.rotateKey(keyId, created.record, oldUntil);
      if (!replaced) {
        const now = await requireKey(keyId);
        if (now.replacedBy !== null) throw alreadyRotated(keyId, now.replacedBy);
        throw new AppError('bad_request', `Key ${keyId} is revoked; create a new key`);
      }
      changed(keyId);
      const after = (await deps.store.findKey({ id: keyId }))!.key;
      return { created, old: after };
    },

    async usage(accountId, days) {
      await requireAccount(accountId);
      const n = Math.max(1, Math.min(366, Math.floor(days)));
      const now = clock.now();
      const list: UsageDay[] = [];
      for (let i = n - 1; i >= 0; i--) {
        const counts = Object.fromEntries(USAGE_KINDS.map((k) => [k, 0])) as Record<UsageKind, number>;
        list.push({ day: utcDay(now - i * 86_400_000), counts });
      }
      const rows = await deps.store.usage(accountId, list[0]!.day, list[list.length - 1]!.day);
      const byDay = new Map(list.map((d) => [d.day, d]));
      for (const r of rows) {
        const d = byDay.get(r.day);
        if (d && r.kind in d.counts) d.counts[r.kind] += r.count;
      }
      return list;
    },
  };
}
