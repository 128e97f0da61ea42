import { inviteUrl } from '../../accounts/credentials.js';
import type { AccountsModule } from '../../accounts/open.js';
import { linkOrigin } from '../../accounts/origin.js';
import type { Config } from '../../settings.js';
import type { Account } from '../../storage/store.js';
import { iso, out, parseVerbArgs, required, table, UsageError, when, withAccounts } from '../admin.js';
import { promptHidden, readStdin } from '../prompt.js';

const HELP = `Manage accounts (SQLite in the data dir, or DATABASE_URL).

  npx cardshot accounts create --name "Acme" --email ops@acme.com --plan pro [--json]
  npx cardshot accounts list [--json]
  npx cardshot accounts set-plan <account-id|email> <plan> [--json]
  npx cardshot accounts invite <account-id|email> [--json]
  npx cardshot accounts set-password <account-id|email>

create and invite print a one-time link to the dashboard where the person chooses a password
(valid CARDSHOT_INVITE_HOURS, 72 by default). set-password asks for the password twice on a
terminal, or reads it from standard input, one line (or the same line twice):
  printf '%s\\n' "$PW" | npx cardshot accounts set-password ops@acme.com
Links use CARDSHOT_PUBLIC_URL, else the address the server on this data dir listens at.
Setting a password signs the account out of every dashboard session.`;

/** JSON shape of an account for --json output. */
export function accountJson(a: Account) {
  return { id: a.id, name: a.name, email: a.email, plan: a.plan, createdAt: iso(a.createdAt) };
}

/** A new invite link for the account, as text and JSON. */
async function invite(mod: AccountsModule, config: Config, accountId: string) {
  const { token, expiresAt } = await mod.credentials.createInvite(accountId);
  const url = inviteUrl(linkOrigin(config), token);
  const text = [
    `Dashboard invite link (works once, until ${when(expiresAt)}):`,
    '',
    `  ${url}`,
    '',
    'Open it to choose a password and sign in. Anyone with the link can, so send it privately.',
  ].join('\n');
  return { url, expiresAt: iso(expiresAt), text };
}

/**
 * The new password, from the terminal (asked twice) or from standard input: one line per prompt,
 * so `printf '%s\n%s\n' "$PW" "$PW"` (answers to both prompts) sets "$PW", not "$PW\n$PW".
 */
async function readPassword(): Promise<string> {
  if (!process.stdin.isTTY) return passwordFromLines(await readStdin());
  const first = await promptHidden('New password: ');
  const second = await promptHidden('Repeat it: ');
  if (first !== second) throw new UsageError('the two passwords do not match');
  return first;
}

/** The password in piped input: one line, or the same line twice (the prompt and its repeat). */
export function passwordFromLines(text: string): string {
  const lines = text.split(/\r?\n/);
  if (lines.length === 1) return lines[0]!;
  if (lines.length === 2) {
    if (lines[0] !== lines[1]) throw new UsageError('the two passwords do not match');
    return lines[0]!;
  }
  throw new UsageError('standard input must hold the password on one line, or on two identical lines');
}

/** `cardshot accounts …`. */
export async function runAccounts(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (!verb || verb === '--help' || verb === '-h') {
    process.stdout.write(`${HELP}\n`);
    return verb ? 0 : 2;
  }
  return withAccounts(`accounts ${verb}`, HELP, async (mod, config) => {
    const { accounts, plans } = mod;
    const { values, positionals } = parse(rest);
    const json = values.json ?? false;
    switch (verb) {
      case 'create': {
        const a = await accounts.createAccount({
          name: required(values.name, '--name'),
          email: required(values.email, '--email'),
          plan: required(values.plan, `--plan (${[...plans.keys()].join(', ')})`),
        });
        const inv = await invite(mod, config, a.id);
        out(
          json,
          { ...accountJson(a), inviteUrl: inv.url, inviteExpiresAt: inv.expiresAt },
          `Created account ${a.id} (${a.name}, ${a.email}, plan ${a.plan})\n\n${inv.text}`,
        );
        return 0;
      }
      case 'list': {
        const list = await accounts.listAccounts();
        const rows = [['ID', 'NAME', 'EMAIL', 'PLAN', 'CREATED']];
        for (const a of list) rows.push([a.id, a.name, a.email, a.plan, when(a.createdAt)]);
        out(json, { accounts: list.map(accountJson) }, list.length ? table(rows) : 'No accounts yet.');
        return 0;
      }
      case 'set-plan': {
        const [who, plan] = positionals;
        if (!who || !plan) throw new UsageError('set-plan needs an account id or email and a plan');
        const a = await accounts.setPlan((await mod.credentials.findAccount(who)).id, plan);
        out(json, accountJson(a), `Account ${a.id} is now on plan ${a.plan}`);
        return 0;
      }
      case 'invite': {
        const [who] = positionals;
        if (!who) throw new UsageError('invite needs an account id or email');
        const a = await mod.credentials.findAccount(who);
        const inv = await invite(mod, config, a.id);
        out(json, { ...accountJson(a), inviteUrl: inv.url, inviteExpiresAt: inv.expiresAt }, inv.text);
        return 0;
      }
      case 'set-password': {
        const [who] = positionals;
        if (!who) throw new UsageError('set-password needs an account id or email');
        // Look the account up before asking, so a typo fails before anyone types a password.
        await mod.credentials.findAccount(who);
        const a = await mod.credentials.setPassword(who, await readPassword());
        out(
          json,
          accountJson(a),
          `Password set for ${a.email}. Sign in at ${linkOrigin(config)}/dashboard (other sessions were signed out).`,
        );
        return 0;
      }
      default:
        throw new UsageError(`unknown verb "${verb}"`);
    }
  });
}

function parse(argv: string[]) {
  return parseVerbArgs(argv, {
    name: { type: 'string' },
    email: { type: 'string' },
    plan: { type: 'string' },
    json: { type: 'boolean' },
  } as const);
}
