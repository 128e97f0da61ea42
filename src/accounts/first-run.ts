import { mkdir, readdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Account } from '../storage/store.js';
import { type Credentials, inviteUrl } from './credentials.js';
import type { CreatedKey } from './manager.js';
import type { AccountsModule } from './open.js';

/** What the first start created: shown once (on a terminal, or else in data/first-run.txt). */
export interface FirstRun {
  account: Account;
  created: CreatedKey;
  /** One-time dashboard invite for the account (choose a password, then signed in). */
  invite: { token: string; expiresAt: number };
}

/**
 * On the first start with an empty database: a default account on the pro plan, one
 * development key and a dashboard invite link. A meta row claimed atomically makes this happen once, even when several
 * nodes start together, and never again on later starts.
 */
export async function firstRun(mod: AccountsModule): Promise<FirstRun | null> {
  if (!(await mod.store.claimMeta('first_run', new Date().toISOString()))) return null;
  if ((await mod.store.listAccounts()).length > 0) return null;
  const plan = mod.plans.has('pro') ? 'pro' : [...mod.plans.keys()][0]!;
  const account = await mod.accounts.createAccount({
    name: 'Default account',
    email: 'admin@localhost',
    plan,
  });
  const created = await mod.accounts.createKey({
    accountId: account.id,
    name: 'Development key',
    environment: 'development',
  });
  const invite = await mod.credentials.createInvite(account.id);
  return { account, created, invite };
}

/** The text printed once on the first start: the dashboard link, the key, the signing secret and a curl command. */
export function firstRunMessage(baseUrl: string, first: FirstRun): string {
  const { account, created, invite } = first;
  const hours = Math.round((invite.expiresAt - Date.now()) / 3_600_000);
  const curl = `curl -sS -H 'x-api-key: ${created.key}' '${baseUrl}/render/template?template=blog&title=Hello%20from%20Cardshot' -o card.png`;
  return [
    '',
    `Cardshot created the account ${account.id} (${account.email}, plan ${account.plan}) and a development key.`,
    '',
    `Dashboard: open this link to choose a password and sign in (works once, for ${hours} hours):`,
    '',
    `  ${inviteUrl(baseUrl, invite.token)}`,
    '',
    `  Later: ${baseUrl}/dashboard   (new link: npx cardshot accounts invite ${account.email})`,
    '',
    'The key is shown this once; it is stored only as a hash:',
    '',
    `  API key:        ${created.key}`,
    `  Key id:         ${created.record.id}`,
    `  Signing secret: ${created.signingSecret}   (for signed URLs: npx cardshot sign --help)`,
    '',
    'Try it:',
    '',
    `  ${curl}`,
    '',
    `More keys: npx cardshot keys create --account ${account.id} --name "My app" --environment production`,
    '',
  ].join('\n');
}

/** The name of the first-run file, and how long it may live at most (the invite's default life). */
export const FIRST_RUN_FILE = 'first-run.txt';
export const FIRST_RUN_FILE_HOURS = 72;
const FIRST_RUN_NAME = /^first-run(?:-\d+)?\.txt$/;
const INVITE_TOKEN = /csinv_[A-Za-z0-9_-]{20,}/;

/** The first-run message as written to the file: with when the file goes away. */
export function firstRunFileText(message: string): string {
  return `${message}
Copy the key now: Cardshot deletes this file once the dashboard invite above is used (or
replaced by a newer one), and at the latest ${FIRST_RUN_FILE_HOURS} hours after it was written.
`;
}

/**
 * Deletes first-run files whose secrets should no longer lie around: once their invite link no
 * longer works (used, replaced by a newer one, or expired), and in any case 72 hours after they
 * were written (also when this database does not know their invite). Returns the paths removed. Runs at start, every few minutes, and right after an
 * invite is used; a file that cannot be read or removed is left for the next sweep.
 */
export async function sweepFirstRunFiles(
  dataDir: string,
  credentials: Pick<Credentials, 'inviteState'>,
  now = Date.now(),
): Promise<string[]> {
  let names: string[];
  try {
    names = (await readdir(dataDir)).filter((n) => FIRST_RUN_NAME.test(n));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const file = path.join(dataDir, name);
    try {
      const info = await stat(file);
      if (!info.isFile()) continue;
      const old = now - info.mtimeMs >= FIRST_RUN_FILE_HOURS * 3_600_000;
      const token = INVITE_TOKEN.exec(await readFile(file, 'utf8'))?.[0];
      // An invite this database does not know (the file of an earlier first run on another
      // database) is kept until the 72 hours are up: it may be the only copy of a working key.
      const inviteDead = token !== undefined && (await credentials.inviteState(token)) === 'spent';
      if (old || inviteDead) {
        await unlink(file);
        removed.push(file);
      }
    } catch {
      // Gone already, or unreadable: the next sweep tries again.
    }
  }
  return removed;
}

/**
 * Writes the first-run message into `dataDir` (mode 0600) and returns the file's path. An
 * earlier one is never replaced: a second first run in the same data dir (the same node moved
 * onto an empty PostgreSQL) would otherwise destroy the only copy of the first key, so the new
 * one goes beside it as first-run-2.txt, -3, …. Creating with O_EXCL also refuses to write
 * through a symlink planted at the name.
 */
export async function writeFirstRunFile(dataDir: string, message: string): Promise<string> {
  // With PostgreSQL and CARDSHOT_SECRET nothing else may have created the data dir.
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  for (let n = 1; ; n++) {
    const file = path.join(dataDir, n === 1 ? FIRST_RUN_FILE : `first-run-${n}.txt`);
    try {
      await writeFile(file, message, { mode: 0o600, flag: 'wx' });
      return file;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
