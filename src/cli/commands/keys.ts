import { type AccountManager, type CreatedKey, keyStatus } from '../../accounts/manager.js';
import type { AccountsModule } from '../../accounts/open.js';
import type { Config } from '../../settings.js';
import type { ApiKeyRecord } from '../../storage/store.js';
import {
  accountOption,
  iso,
  out,
  parseDuration,
  parseExpiry,
  parseVerbArgs,
  required,
  table,
  UsageError,
  when,
  withAccounts,
} from '../admin.js';

const HELP = `Manage API keys. A key and its signing secret are printed once, at creation.

  npx cardshot keys create --account <id|email> --name "My app" --environment production [--expires 90d|2027-01-01] [--json]
  npx cardshot keys list --account <id|email> [--json]
  npx cardshot keys revoke <key-id> [--json]
  npx cardshot keys rotate <key-id> [--grace 24h] [--json]

Use one key per environment (production, staging, development, or your own label) so each can
be revoked alone. Rotation creates a new key; the old one keeps working for the grace period.`;

/** JSON shape of a stored key (never the key itself). */
export function keyJson(k: ApiKeyRecord, now = Date.now()) {
  return {
    id: k.id,
    accountId: k.accountId,
    name: k.name,
    environment: k.environment,
    hint: `${k.prefix}…${k.last4}`,
    createdAt: iso(k.createdAt),
    lastUsedAt: iso(k.lastUsedAt),
    expiresAt: iso(k.expiresAt),
    revokedAt: iso(k.revokedAt),
    replacedBy: k.replacedBy,
    status: keyStatus(k, now),
  };
}

/** The STATUS column: a key in its rotation grace period names its replacement. */
function statusText(k: ApiKeyRecord, now: number): string {
  const status = keyStatus(k, now);
  return status === 'active' && k.replacedBy !== null ? `rotated (→ ${k.replacedBy})` : status;
}

function createdJson(c: CreatedKey) {
  return { ...keyJson(c.record), key: c.key, signingSecret: c.signingSecret };
}

function createdText(c: CreatedKey): string {
  return [
    `Created key ${c.record.id} (${c.record.name}, ${c.record.environment}) for ${c.record.accountId}.`,
    'Shown this once; Cardshot keeps only a hash:',
    '',
    `  API key:        ${c.key}`,
    `  Signing secret: ${c.signingSecret}   (signed URLs with kid=${c.record.id})`,
    '',
    `Expires: ${c.record.expiresAt === null ? 'never' : when(c.record.expiresAt)}`,
    'Keep both out of front-end code, apps and repositories; rotate the key if it is exposed.',
  ].join('\n');
}

/** `cardshot keys …`. */
export async function runKeys(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (!verb || verb === '--help' || verb === '-h') {
    process.stdout.write(`${HELP}\n`);
    return verb ? 0 : 2;
  }
  return withAccounts(`keys ${verb}`, HELP, async (mod, config) => {
    const { accounts } = mod;
    const args = parse(rest);
    switch (verb) {
      case 'create':
        return createKey(mod, args);
      case 'list':
        return listKeys(mod, args);
      case 'revoke':
        return revokeKey(accounts, args, config);
      case 'rotate':
        return rotateKey(accounts, args);
      default:
        throw new UsageError(`unknown verb "${verb}"`);
    }
  });
}

type Args = ReturnType<typeof parse>;

async function createKey(mod: AccountsModule, { values }: Args): Promise<number> {
  const created = await mod.accounts.createKey({
    accountId: (await accountOption(mod, values.account)).id,
    name: required(values.name, '--name'),
    environment: required(values.environment, '--environment'),
    expiresAt: values.expires === undefined ? null : parseExpiry(values.expires),
  });
  out(values.json ?? false, createdJson(created), createdText(created));
  return 0;
}

async function listKeys(mod: AccountsModule, { values }: Args): Promise<number> {
  const list = await mod.accounts.listKeys((await accountOption(mod, values.account)).id);
  const now = Date.now();
  out(
    values.json ?? false,
    { keys: list.map((k) => keyJson(k, now)) },
    list.length ? keysTable(list, now) : 'No keys yet.',
  );
  return 0;
}

function keysTable(list: ApiKeyRecord[], now: number): string {
  const rows = [['ID', 'NAME', 'ENVIRONMENT', 'KEY', 'CREATED', 'LAST USED', 'EXPIRES', 'STATUS']];
  for (const k of list) {
    rows.push([
      k.id,
      k.name,
      k.environment,
      `${k.prefix}…${k.last4}`,
      when(k.createdAt),
      when(k.lastUsedAt),
      when(k.expiresAt),
      statusText(k, now),
    ]);
  }
  return table(rows);
}

async function revokeKey(
  accounts: AccountManager,
  { values, positionals }: Args,
  config: Config,
): Promise<number> {
  const id = positionals[0];
  if (!id) throw new UsageError('revoke needs a key id');
  const k = await accounts.revokeKey(id);
  // Running servers trust a verified key for CARDSHOT_KEY_CACHE_SECONDS unless Redis tells them.
  const when401 =
    config.redisUrl === '' && config.keyCacheSeconds > 0
      ? `within ${config.keyCacheSeconds} s (CARDSHOT_KEY_CACHE_SECONDS)`
      : 'at once';
  out(
    values.json ?? false,
    keyJson(k),
    `Revoked key ${k.id} (${k.name}); running servers answer 401 to it ${when401}.`,
  );
  return 0;
}

async function rotateKey(accounts: AccountManager, { values, positionals }: Args): Promise<number> {
  const id = positionals[0];
  if (!id) throw new UsageError('rotate needs a key id');
  const grace = parseDuration(values.grace ?? '24h', '--grace');
  const asked = Date.now() + grace;
  const { created, old } = await accounts.rotateKey(id, grace);
  out(
    values.json ?? false,
    { key: createdJson(created), old: keyJson(old) },
    [
      `${createdText(created)}\n\nThe old key ${old.id} keeps working until ${when(old.expiresAt)}.`,
      ...rotationNotes(created, old, asked),
    ].join('\n'),
  );
  return 0;
}

/**
 * Rotation keeps the old key's expiry (it answers exposure, not lifetime): the notes say so
 * when that cuts the grace period short (`asked` is when it would have ended) or gives the
 * new key an end date.
 */
function rotationNotes(created: CreatedKey, old: ApiKeyRecord, asked: number): string[] {
  return [
    old.expiresAt !== null && old.expiresAt < asked - 60_000
      ? `The grace period ends early: the old key expires at ${when(old.expiresAt)} anyway.`
      : '',
    created.record.expiresAt !== null
      ? `The new key keeps the old one's expiry, ${when(created.record.expiresAt)}; create a key without --expires for one that does not expire.`
      : '',
  ].filter(Boolean);
}

function parse(argv: string[]) {
  return parseVerbArgs(argv, {
    account: { type: 'string' },
    name: { type: 'string' },
    environment: { type: 'string' },
    expires: { type: 'string' },
    grace: { type: 'string' },
    json: { type: 'boolean' },
  } as const);
}
