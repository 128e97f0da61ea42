import type { StorageTarget } from '../../client/storage.js';
import { parseVerbArgs, table, UsageError } from '../admin.js';
import { printable } from '../printable.js';
import { pickVerb, remoteClient, runRemote, SERVER_FLAGS, SERVER_HELP } from '../remote.js';
import { processIo, type ShotIo } from '../shot/io.js';

/** Each subcommand's help, shown by `storage <verb> --help`. */
const VERB_HELP: Record<string, string> = {
  add: `  printf %s "$SECRET_ACCESS_KEY" | npx cardshot storage add ENDPOINT --bucket B --access-key-id ID
        [--region R] [--prefix P] [--path-template T] [--sync-path-template T]
        [--virtual-hosted] [--name N] [--json]
      A new S3-compatible target. The secret access key is read from standard input (never
      from the command line, which other users of the machine can see); it is stored
      encrypted and never shown again.`,
  list: `  npx cardshot storage list [--json]
      The account's targets (never their secrets).`,
  test: `  npx cardshot storage test ID [--json]
      Writes a small object to the target and deletes it; prints the storage's error code if it cannot.`,
  remove: `  npx cardshot storage remove ID
      Deletes the target (objects already stored stay in the bucket).`,
};

const HELP = `S3-compatible storage targets of your account, through a running Cardshot server.

${Object.values(VERB_HELP).join('\n')}

${SERVER_HELP}

Renders with store=s3 (and response=json) and jobs with "store": "s3" are uploaded to a target.
Exit status: 0 on success, 1 when the server refused or a test failed, 2 for a command line
that cannot work.`;

const FLAGS = {
  ...SERVER_FLAGS,
  bucket: { type: 'string' },
  'access-key-id': { type: 'string' },
  region: { type: 'string' },
  prefix: { type: 'string' },
  'path-template': { type: 'string' },
  'sync-path-template': { type: 'string' },
  'virtual-hosted': { type: 'boolean' },
  name: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Flags = Partial<
  Record<
    'bucket' | 'access-key-id' | 'region' | 'prefix' | 'path-template' | 'sync-path-template' | 'name',
    string | undefined
  >
> & {
  'virtual-hosted'?: boolean | undefined;
  json?: boolean | undefined;
};
type Client = Awaited<ReturnType<typeof remoteClient>>;
type Verb = (c: Client, args: { id: string; v: Flags; io: ShotIo }) => Promise<number>;

const print = (io: ShotIo, v: Flags, value: unknown, text: string, status = 0) => {
  io.stdout.write(v.json ? `${JSON.stringify(value)}\n` : `${text}\n`);
  return status;
};

const VERBS: Record<string, Verb> = {
  async add(c, { id: endpoint, v, io }) {
    if (!v.bucket || !v['access-key-id'])
      throw new UsageError('storage add needs --bucket and --access-key-id');
    const secret = (await io.readStdin()).trim();
    if (secret === '')
      throw new UsageError('storage add reads the secret access key from standard input: pipe it in');
    const made = await c.storage.create({
      endpoint,
      bucket: v.bucket,
      accessKeyId: v['access-key-id'],
      secretAccessKey: secret,
      ...(v.region ? { region: v.region } : {}),
      ...(v.prefix !== undefined ? { prefix: v.prefix } : {}),
      ...(v['path-template'] ? { pathTemplate: v['path-template'] } : {}),
      ...(v['sync-path-template'] ? { syncPathTemplate: v['sync-path-template'] } : {}),
      ...(v['virtual-hosted'] ? { pathStyle: false } : {}),
      ...(v.name ? { name: v.name } : {}),
    });
    return print(io, v, made, `${describe(made)}\nTest it: npx cardshot storage test ${made.id}`);
  },
  async list(c, { v, io }) {
    const list = await c.storage.list();
    const text =
      list.length === 0
        ? 'No storage targets yet: npx cardshot storage add ENDPOINT --bucket B --access-key-id ID'
        : table([
            ['ID', 'NAME', 'BUCKET', 'PREFIX', 'ENDPOINT'],
            ...list.map((t) => [t.id, printable(t.name), t.bucket, t.prefix || '-', printable(t.endpoint)]),
          ]);
    return print(io, v, list, text);
  },
  async test(c, { id, v, io }) {
    const r = await c.storage.test(id);
    const text = r.ok
      ? `Wrote and deleted a test object in ${r.durationMs} ms.`
      : `The storage refused: ${printable(r.error ?? r.code ?? 'unknown error')}`;
    return print(io, v, r, text, r.ok ? 0 : 1);
  },
  async remove(c, { id, v, io }) {
    await c.storage.remove(id);
    return print(io, v, { id, removed: true }, `Removed ${printable(id)}.`);
  },
};

/** `cardshot storage add|list|test|remove`. */
export async function runStorage(argv: string[], io: ShotIo = processIo): Promise<number> {
  return runRemote('storage', HELP, io, async () => {
    const { values: v, positionals } = parseVerbArgs(argv, FLAGS);
    const picked = pickVerb(VERBS, VERB_HELP, { help: Boolean(v.help), positionals }, io, {
      help: HELP,
      needsId: (verb) =>
        verb === 'add'
          ? 'storage add needs the endpoint (https://…)'
          : `storage ${verb} needs the target id (st_…)`,
    });
    if ('exit' in picked) return picked.exit;
    return picked.run(await remoteClient(v, io), { id: positionals[1] ?? '', v: v as Flags, io });
  });
}

function describe(t: StorageTarget): string {
  return `Target ${t.id} → ${printable(t.endpoint)} bucket ${t.bucket}${t.prefix ? ` prefix ${t.prefix}` : ''}\nJob items: ${t.pathTemplate}\nRenders: ${t.syncPathTemplate}`;
}
