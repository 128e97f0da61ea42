import { parseArgs } from 'node:util';
import { USAGE_KINDS } from '../../storage/store.js';
import { accountOption, out, table, UsageError, withAccounts } from '../admin.js';

const HELP = `Requests per UTC day for an account.

  npx cardshot usage --account <id|email> [--days 30] [--json]`;

/** `cardshot usage`. */
export async function runUsage(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  return withAccounts('usage', HELP, async (mod) => {
    let values: { account?: string; days?: string; json?: boolean };
    try {
      ({ values } = parseArgs({
        args: argv,
        options: { account: { type: 'string' }, days: { type: 'string' }, json: { type: 'boolean' } },
      }));
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const days = Number(values.days ?? 30);
    if (!Number.isInteger(days) || days < 1 || days > 366) throw new UsageError('--days must be 1 to 366');
    const accountId = (await accountOption(mod, values.account)).id;
    const list = await mod.accounts.usage(accountId, days);
    const rows = [['DAY', ...USAGE_KINDS.map((k) => k.toUpperCase())]];
    const total = Object.fromEntries(USAGE_KINDS.map((k) => [k, 0])) as Record<string, number>;
    for (const d of list) {
      rows.push([d.day, ...USAGE_KINDS.map((k) => String(d.counts[k]))]);
      for (const k of USAGE_KINDS) total[k]! += d.counts[k];
    }
    rows.push(['total', ...USAGE_KINDS.map((k) => String(total[k]))]);
    out(values.json ?? false, { accountId, days: list, total }, table(rows));
    return 0;
  });
}
