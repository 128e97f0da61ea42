import type { ItemStatus, JobItem } from '../../client/job-types.js';
import { parseVerbArgs, UsageError } from '../admin.js';
import { saveResults } from '../jobs/save.js';
import { itemsTable, jobsTable, jobText } from '../jobs/show.js';
import { submitJob } from '../jobs/submit.js';
import { printable } from '../printable.js';
import { pickVerb, remoteClient, runRemote, SERVER_FLAGS, SERVER_HELP } from '../remote.js';
import { processIo, type ShotIo } from '../shot/io.js';

/** Each subcommand's help, shown by `jobs <verb> --help`. */
const VERB_HELP: Record<string, string> = {
  submit: `  npx cardshot jobs submit FILE.csv|FILE.json [--wait] [--out-dir DIR [--zip]] [--webhook ep_…] [--idempotency-key KEY]
      Sends a batch as one job. A .csv file has a header row of field names (template, title,
      subtitle, size, format… or url, viewport, fullPage…), one item per row; a .json file holds
      a list of items or {"items": [...], "webhook": "ep_…", "metadata": {...}}; - reads JSON
      from standard input.
      --wait             follow the job to its end (a bar on a terminal, lines otherwise)
      --out-dir DIR      wait, then save each image as DIR/<index>.<ext>
      --zip              with --out-dir: save one DIR/<job id>.zip instead
      --webhook ep_…     the endpoint told when the job ends (npx cardshot webhooks add)
      --idempotency-key  the same key within 24 h answers the job it made instead of a second`,
  get: `  npx cardshot jobs get ID [--json]
      The job's state, its item counts and its signed results link.`,
  list: `  npx cardshot jobs list [--limit N] [--cursor C] [--json]
      The account's jobs, newest first.`,
  results: `  npx cardshot jobs results ID [--status STATUS] [--out-dir DIR [--zip]] [--json]
      The job's items (each image's size, or why it failed); with --out-dir, saves the images.
      --status  queued, running, succeeded, failed or canceled`,
  cancel: `  npx cardshot jobs cancel ID [--json]
      Queued items never run; running ones finish. Prints the job as it is then.`,
};

const HELP = `Background jobs: many cards and screenshots at once, through a running Cardshot server.

${Object.values(VERB_HELP).join('\n')}

${SERVER_HELP}

Examples:
  npx cardshot jobs submit cards.csv --wait --out-dir cards/
  npx cardshot jobs submit pages.json --webhook ep_… --idempotency-key nightly-2026-11-28
  npx cardshot jobs results job_… --status failed

Exit status: 0 on success; 1 when the server refused, or a followed job had a failed item or
was canceled; 2 for a command line that cannot work.`;

const FLAGS = {
  ...SERVER_FLAGS,
  wait: { type: 'boolean' },
  'out-dir': { type: 'string' },
  zip: { type: 'boolean' },
  webhook: { type: 'string' },
  'idempotency-key': { type: 'string' },
  status: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseVerbArgs<typeof FLAGS>>['values'];
type Client = Awaited<ReturnType<typeof remoteClient>>;
type Verb = (c: Client, id: string, v: Values, io: ShotIo) => Promise<number>;

const ITEM_STATUSES: readonly string[] = ['queued', 'running', 'succeeded', 'failed', 'canceled'];

const print = (io: ShotIo, v: Values, value: unknown, text: string) => {
  io.stdout.write(v.json ? `${JSON.stringify(value)}\n` : `${text}\n`);
  return 0;
};

const VERBS: Record<string, Verb> = {
  submit: (c, file, v, io) => {
    if (v.zip && v['out-dir'] === undefined) throw new UsageError('--zip goes with --out-dir DIR');
    return submitJob(
      c,
      {
        file,
        wait: v.wait ?? false,
        outDir: v['out-dir'],
        zip: v.zip ?? false,
        webhook: v.webhook,
        idempotencyKey: v['idempotency-key'],
      },
      io,
    );
  },
  get: async (c, id, v, io) => {
    const job = await c.jobs.get(id);
    return print(io, v, job, jobText(job));
  },
  cancel: async (c, id, v, io) => {
    const job = await c.jobs.cancel(id);
    return print(io, v, job, jobText(job));
  },
  list: async (c, _id, v, io) => {
    const page = await c.jobs.list({
      limit: limitOf(v.limit),
      ...(v.cursor === undefined ? {} : { cursor: v.cursor }),
    });
    const more = page.nextCursor ? `\nMore: npx cardshot jobs list --cursor ${page.nextCursor}` : '';
    const text = page.jobs.length === 0 ? 'No jobs yet: npx cardshot jobs submit FILE' : jobsTable(page.jobs);
    return print(io, v, page, `${text}${more}`);
  },
  results: async (c, id, v, io) => {
    if (v.zip && v['out-dir'] === undefined) throw new UsageError('--zip goes with --out-dir DIR');
    if (v.status !== undefined && !ITEM_STATUSES.includes(v.status)) {
      throw new UsageError(`--status must be one of ${ITEM_STATUSES.join(', ')}`);
    }
    if (v['out-dir'] !== undefined) {
      await saveResults(c, await c.jobs.get(id), { dir: v['out-dir'], zip: v.zip ?? false }, io);
      return 0;
    }
    const items: JobItem[] = [];
    const status = v.status as ItemStatus | undefined;
    for await (const item of c.jobs.allItems(id, { limit: 100, ...(status ? { status } : {}) }))
      items.push(item);
    return print(io, v, items, items.length === 0 ? 'No such items.' : itemsTable(items));
  },
};

function limitOf(text: string | undefined): number {
  const n = text === undefined ? 20 : Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new UsageError('--limit must be 1 to 100');
  return n;
}

/** `cardshot jobs submit|get|list|results|cancel`. */
export async function runJobs(argv: string[], io: ShotIo = processIo): Promise<number> {
  return runRemote('jobs', HELP, io, async () => {
    const { values: v, positionals } = parseVerbArgs(argv, FLAGS);
    const picked = pickVerb(VERBS, VERB_HELP, { help: Boolean(v.help), positionals }, io, {
      help: HELP,
      needsId: (verb) =>
        verb === 'submit'
          ? 'jobs submit needs a FILE.csv or FILE.json'
          : `jobs ${verb} needs the job id (job_…)`,
    });
    if ('exit' in picked) return picked.exit;
    const id = positionals[1];
    if (positionals.length > 2) throw new UsageError(`unexpected "${printable(positionals[2]!)}"`);
    return picked.run(await remoteClient(v, io), id ?? '', v, io);
  });
}
