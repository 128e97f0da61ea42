import { parseArgs } from 'node:util';
import type { Account } from '../../storage/store.js';
import { iso, out, required, table, UsageError, when, withAccounts } from '../admin.js';

const HELP = `Manage accounts (SQLite in the data dir, or DATABASE_URL).

  npx cardshot accounts create --name "Acme" --email ops@acme.com --plan pro [--json]
  npx cardshot accounts list [--json]
  npx cardshot accounts set-plan <account-id> <plan> [--json]`;

/** JSON shape of an account for --json output. */
export function accountJson(a: Account) {
  return { id: a.id, name: a.name, email: a.email, plan: a.plan, createdAt: iso(a.createdAt) };
}

/** `cardshot accounts …`. */
export async function runAccounts(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (!verb || verb === '--help' || verb === '-h') {
    process.stdout.write(`${HELP}\n`);
    return verb ? 0 : 2;
  }
  return withAccounts(`accounts ${verb}`, HELP, async ({ accounts, plans }) => {
    const { values, positionals } = parse(rest);
    const json = values.json ?? false;
    switch (verb) {
      case 'create': {
        const a = await accounts.createAccount({
          name: required(values.name, '--name'),
          email: required(values.email, '--email'),
          plan: required(values.plan, `--plan (${[...plans.keys()].join(', ')})`),
        });
        out(json, accountJson(a), `Created account ${a.id} (${a.name}, ${a.email}, plan ${a.plan})`);
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
        const [id, plan] = positionals;
        if (!id || !plan) throw new UsageError('set-plan needs an account id and a plan');
        const a = await accounts.setPlan(id, plan);
        out(json, accountJson(a), `Account ${a.id} is now on plan ${a.plan}`);
        return 0;
      }
      default:
        throw new UsageError(`unknown verb "${verb}"`);
    }
  });
}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        email: { type: 'string' },
        plan: { type: 'string' },
        json: { type: 'boolean' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
