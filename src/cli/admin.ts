import { type ParseArgsConfig, parseArgs } from 'node:util';
import { type AccountsModule, openAccounts } from '../accounts/open.js';
import { sendKeyNotices } from '../auth/key-notices.js';
import { ConfigError } from '../config/load.js';
import { isAppError } from '../errors.js';
import { createLogger } from '../log.js';
import { templateNamesOnDisk } from '../render/template/files/area.js';
import type { Config } from '../settings.js';
import { EX_UNAVAILABLE } from '../start-error.js';
import { describeStorageError } from '../storage/errors.js';
import { loadCliConfig } from './data-dir.js';

/** Thrown for a command line that cannot work (exit 2, with the command's help). */
export class UsageError extends Error {}

/** `parseArgs` with positionals (the verb, an id), its complaints turned into usage errors. */
type VerbArgsConfig<O> = { args: string[]; allowPositionals: true; options: O };

export function parseVerbArgs<O extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: O,
): ReturnType<typeof parseArgs<VerbArgsConfig<O>>> {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/**
 * Runs an admin command against the configured database (SQLite in the data dir, or
 * DATABASE_URL), closing it afterwards. Known failures print one line and exit 1; usage
 * errors exit 2 with the help text; configuration errors exit 78.
 */
export async function withAccounts(
  name: string,
  help: string,
  body: (mod: AccountsModule, config: Config) => Promise<number>,
): Promise<number> {
  let mod: AccountsModule | undefined;
  try {
    const config = loadCliConfig(process.stderr);
    mod = await openAccounts(config, createLogger(config, process.stderr as never), {
      templates: templateNamesOnDisk(config),
    });
    const changed: Array<string | undefined> = [];
    mod.onKeyChanged((keyId) => changed.push(keyId));
    const code = await body(mod, config);
    if (changed.length > 0 && config.redisUrl !== '') {
      // Running nodes cache verified keys: tell them now rather than when their cache expires.
      const failed = await sendKeyNotices(config.redisUrl, config.redisPrefix, changed);
      if (failed) {
        process.stderr.write(
          `cardshot ${name}: warning: could not notify running nodes through Redis (${failed}); they apply the change within CARDSHOT_KEY_CACHE_SECONDS (${config.keyCacheSeconds} s)\n`,
        );
      }
    }
    return code;
  } catch (err) {
    return report(name, help, err);
  } finally {
    await mod?.close();
  }
}

/** Prints a failure the way every command does and returns its exit status. */
export function report(name: string, help: string, err: unknown): number {
  if (err instanceof UsageError) {
    process.stderr.write(`cardshot ${name}: ${err.message}\n\n${help}\n`);
    return 2;
  }
  if (err instanceof ConfigError) {
    process.stderr.write(`cardshot ${name}: configuration error: ${err.message}\n`);
    return 78;
  }
  if (isAppError(err)) {
    process.stderr.write(`cardshot ${name}: ${err.message}\n`);
    // An unreachable database (storage/connect-error.ts) exits as the server's start does.
    return err.code === 'unavailable' ? EX_UNAVAILABLE : 1;
  }
  // Anything else is still one line, never a stack: the cause in words when it is the disk or
  // the database (a full disk, a read-only volume), the error's own message otherwise.
  process.stderr.write(`cardshot ${name}: ${failureLine(err)}\n`);
  return 1;
}

/** One line for an unexpected failure: the storage cause in words, or the error's message. */
export function failureLine(err: unknown): string {
  const cause = describeStorageError(err);
  if (cause) return cause;
  const message = err instanceof Error ? err.message : String(err);
  return `failed: ${message.split('\n')[0]}`;
}

const UNITS: Record<string, number> = {
  s: 1e3,
  m: 60e3,
  h: 3600e3,
  d: 86_400e3,
  w: 7 * 86_400e3,
  y: 365 * 86_400e3,
};

/** `90s`, `15m`, `24h`, `30d`, `2w`, `1y` → milliseconds. */
export function parseDuration(text: string, what: string): number {
  const m = /^(\d+)\s*([smhdwy])$/.exec(text.trim());
  if (!m)
    throw new UsageError(`${what} must be a duration such as 90s, 15m, 24h, 30d, 2w or 1y (got "${text}")`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

/** A duration from now, or an absolute ISO 8601 date/time → unix ms. */
export function parseExpiry(text: string, now = Date.now()): number {
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const t = Date.parse(text);
    if (Number.isNaN(t)) throw new UsageError(`--expires: "${text}" is not a valid date`);
    return t;
  }
  return now + parseDuration(text, '--expires');
}

/** ISO time or a dash, for tables. */
export function when(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** ISO time or null, for JSON. */
export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** Left-aligned columns separated by two spaces. */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => [...(r[i] ?? '')].length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Writes one JSON object (scripts) or text (people). */
export function out(json: boolean, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

/**
 * The account `--account` names, by id (`acc_…`) or by email, as every command that takes it
 * accepts both; a usage error when it is missing, "No account …" (exit 1) when none matches.
 */
export async function accountOption(mod: Pick<AccountsModule, 'credentials'>, value: string | undefined) {
  return mod.credentials.findAccount(required(value, '--account'));
}

/** The value of a required option, or a usage error naming it. */
export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`);
  return value;
}
