import { randomBytes } from 'node:crypto';
import { isId } from '../auth/keys.js';
import { checkPasswordPolicy, decoyHash, hashPassword, verifyPassword } from '../auth/passwords.js';
import type { ServerSecrets } from '../auth/secret.js';
import { AppError } from '../errors.js';
import { type Clock, systemClock } from '../lib/clock.js';
import type { Account, Store } from '../storage/store.js';

/** How people prove who they are to the dashboard: passwords and one-time invite links. */
export interface Credentials {
  /** A new invite link token for the account (shown once; only its hash is stored). */
  createInvite(accountId: string): Promise<{ token: string; expiresAt: number }>;
  /** The account an unused, unexpired invite belongs to; undefined otherwise. Uses nothing up. */
  inspectInvite(token: string): Promise<Account | undefined>;
  /** Whether an invite still works ('live'), no longer does ('spent': used, replaced, expired), or is not in this database. */
  inviteState(token: string): Promise<'live' | 'spent' | 'unknown'>;
  /** Checks the password policy, uses the invite (once), sets the password, ends other sessions. */
  acceptInvite(token: string, password: string): Promise<Account>;
  /** Sets the password of the account with this id or email and signs it out everywhere. */
  setPassword(idOrEmail: string, password: string): Promise<Account>;
  /** The account when email and password match; null otherwise, in about the same time either way. */
  verify(email: string, password: string): Promise<Account | null>;
  /** The account with this id or email, or a 404. */
  findAccount(idOrEmail: string): Promise<Account>;
}

const INVITE = /^csinv_[A-Za-z0-9_-]{32}$/;

/** The invite link for `token` under `baseUrl` (the token travels in the query, which logs redact). */
export function inviteUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/dashboard/invite?token=${token}`;
}

/** Credentials over the store; invites last `inviteMs`. */
export function createCredentials(deps: {
  store: Store;
  secrets: ServerSecrets;
  inviteMs: number;
  clock?: Clock;
  /** scrypt's cost for new passwords (log2 N); tests only, see createModules. */
  passwordCost?: number;
}): Credentials {
  const clock = deps.clock ?? systemClock;
  const { store, secrets } = deps;

  const findAccount = async (idOrEmail: string): Promise<Account> => {
    const v = idOrEmail.trim();
    const account = isId(v, 'acc')
      ? await store.getAccount(v)
      : await store.getAccountByEmail(v.toLowerCase());
    if (!account) throw new AppError('not_found', `No account ${v}`);
    return account;
  };

  const storePassword = async (account: Account, password: string) => {
    checkPasswordPolicy(password, account.email);
    const now = clock.now();
    await store.setPassword(account.id, await hashPassword(password, deps.passwordCost), now);
    // A new password ends every session, so whoever knew the old one is signed out too, and
    // voids every other invite link: an old link must not set the password again.
    await store.deleteSessionsOf(account.id);
    await store.voidInvitesOf(account.id, now);
  };

  const inspectInvite = async (token: string): Promise<Account | undefined> => {
    if (!INVITE.test(token)) return undefined;
    const invite = await store.getInvite(secrets.hashToken(token));
    if (!invite || invite.usedAt !== null || invite.expiresAt <= clock.now()) return undefined;
    return store.getAccount(invite.accountId);
  };

  return {
    findAccount,

    async createInvite(accountId) {
      const account = await findAccount(accountId);
      const token = `csinv_${randomBytes(24).toString('base64url')}`;
      const now = clock.now();
      const expiresAt = now + deps.inviteMs;
      // Only the newest link works: one sent earlier (perhaps to an old address) stops working.
      await store.voidInvitesOf(account.id, now);
      await store.insertInvite({
        hash: secrets.hashToken(token),
        accountId: account.id,
        createdAt: now,
        expiresAt,
        usedAt: null,
      });
      return { token, expiresAt };
    },

    inspectInvite,

    async inviteState(token) {
      if (!INVITE.test(token)) return 'unknown';
      const invite = await store.getInvite(secrets.hashToken(token));
      if (!invite) return 'unknown';
      return invite.usedAt !== null || invite.expiresAt <= clock.now() ? 'spent' : 'live';
    },

    async acceptInvite(token, password) {
      const account = await inspectInvite(token);
      const expired = new AppError(
        'bad_request',
        'This invite link has expired or was already used; ask for a new one',
      );
      if (!account) throw expired;
      // Policy first, so a rejected password does not use the link up.
      checkPasswordPolicy(password, account.email);
      const used = await store.useInvite(secrets.hashToken(token), clock.now());
      if (used !== account.id) throw expired;
      await storePassword(account, password);
      return account;
    },

    async setPassword(idOrEmail, password) {
      const account = await findAccount(idOrEmail);
      await storePassword(account, password);
      return account;
    },

    async verify(email, password) {
      const account = await store.getAccountByEmail(email.trim().toLowerCase());
      const stored = account ? await store.getPassword(account.id) : undefined;
      const ok = await verifyPassword(password, stored ?? (await decoyHash(deps.passwordCost)));
      return ok && account && stored ? account : null;
    },
  };
}
