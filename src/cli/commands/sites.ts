import { siteTag } from '../../client/sites.js';
import { parseVerbArgs, UsageError } from '../admin.js';
import { follow, listFailed } from '../jobs/submit.js';
import { printable } from '../printable.js';
import { pickVerb, remoteClient, runRemote, SERVER_FLAGS, SERVER_HELP } from '../remote.js';
import { processIo, type ShotIo } from '../shot/io.js';
import { type SiteFlags, siteInputOf, sitesTable, siteText } from '../sites/show.js';

const SITE_OPTIONS = `      --origin URL           the site's origin (repeat for several: www and the bare host)
      --template NAME        the template every page's card is drawn with (blog, …)
      --theme account|none   your account's brand theme (default) or the template's own look
      --field NAME=SOURCES   where a text is read from: NAME is title, subtitle, brand or
                             imageUrl; SOURCES like og:title|title|<meta name> (repeatable;
                             nothing after = leaves the field out)
      --fallback-title T     the card of a page that cannot be read (with --fallback-subtitle S)
      --refresh 1d           read a page again after this long (15m, 12h, 1d, 2w; default 1d)
      --browser              read pages after their scripts ran (tags written by script)
      --name N               a name to know it by`;

/** Each subcommand's help, shown by `sites <verb> --help`. */
const VERB_HELP: Record<string, string> = {
  create: `  npx cardshot sites create --origin URL --template NAME [options] [--json]
      Registers a site: after this, <meta property="og:image" content="…/og/SITE/PATH">
      in a page's head gives it its card, with no key.
${SITE_OPTIONS}`,
  list: `  npx cardshot sites list [--json]
      The account's sites.`,
  show: `  npx cardshot sites show SITE [--json]
      The site's settings and the tag its pages add.`,
  update: `  npx cardshot sites update SITE [options] [--fetch] [--json]
      Changes what is given (the options of create; --fetch reads pages without a browser
      again). Cards already made stay until purged or refreshed.`,
  delete: `  npx cardshot sites delete SITE
      Deletes the site: its /og URLs answer 404 from then on.`,
  purge: `  npx cardshot sites purge SITE [--path /blog/post-1] [--json]
      Forgets the cards of one page (or, without --path, of every page): the next crawler
      reads the page again.`,
  warm: `  npx cardshot sites warm SITE [--sitemap URL] [--limit N] [--no-wait] [--json]
      Reads every page of the sitemap (default <origin>/sitemap.xml) as a job and fills the
      card cache, with a progress bar until it ends (--no-wait: print the job and return).`,
  tag: `  npx cardshot sites tag SITE /path
      Prints the <meta property="og:image" …> line for the page at /path (or a full URL on
      the site's origin).`,
};

const HELP = `Sites of your account: one og:image tag gives every page of a site its card.

${Object.values(VERB_HELP).join('\n')}

${SERVER_HELP}

Examples:
  npx cardshot sites create --origin https://blog.example.com --template blog --refresh 1d
  npx cardshot sites tag site_… /blog/post-1
  npx cardshot sites warm site_… --limit 500

Exit status: 0 on success; 1 when the server refused, or a warm had a failed page; 2 for a
command line that cannot work.`;

const FLAGS = {
  ...SERVER_FLAGS,
  origin: { type: 'string', multiple: true },
  template: { type: 'string' },
  theme: { type: 'string' },
  field: { type: 'string', multiple: true },
  'fallback-title': { type: 'string' },
  'fallback-subtitle': { type: 'string' },
  refresh: { type: 'string' },
  browser: { type: 'boolean' },
  fetch: { type: 'boolean' },
  name: { type: 'string' },
  path: { type: 'string' },
  sitemap: { type: 'string' },
  limit: { type: 'string' },
  'no-wait': { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Flags = SiteFlags & {
  path?: string | undefined;
  sitemap?: string | undefined;
  limit?: string | undefined;
  'no-wait'?: boolean | undefined;
  json?: boolean | undefined;
};
type Client = Awaited<ReturnType<typeof remoteClient>>;
/** One subcommand: the client, the site id, what follows it, the flags; prints, returns the exit status. */
type Verb = (
  c: Client,
  a: { id: string; extra: string | undefined; v: Flags; io: ShotIo },
) => Promise<number>;

const print = (io: ShotIo, v: Flags, value: unknown, text: string, status = 0) => {
  io.stdout.write(v.json ? `${JSON.stringify(value)}\n` : `${text}\n`);
  return status;
};

const VERBS: Record<string, Verb> = {
  async create(c, { v, io }) {
    const site = await c.sites.create(siteInputOf(v, false) as Parameters<Client['sites']['create']>[0]);
    return print(io, v, site, `${siteText(site)}\nWarm its cache: npx cardshot sites warm ${site.id}`);
  },
  async list(c, { v, io }) {
    const sites = await c.sites.list();
    const text =
      sites.length === 0
        ? 'No sites yet: npx cardshot sites create --origin https://… --template blog'
        : sitesTable(sites);
    return print(io, v, sites, text);
  },
  async show(c, { id, v, io }) {
    const site = await c.sites.get(id);
    return print(io, v, site, siteText(site));
  },
  async update(c, { id, v, io }) {
    const site = await c.sites.update(id, siteInputOf(v, true));
    return print(io, v, site, siteText(site));
  },
  async delete(c, { id, v, io }) {
    await c.sites.delete(id);
    return print(io, v, { id, deleted: true }, `Deleted ${printable(id)}: its /og URLs answer 404 now.`);
  },
  async purge(c, { id, v, io }) {
    const purged = await c.sites.purge(id, v.path === undefined ? {} : { path: v.path });
    // --json prints the API's answer: {"purged": "page", "path"} or {"purged": "site"}.
    const text =
      v.path === undefined
        ? 'Purged every page of the site: each is read again when a crawler next asks.'
        : `Purged ${printable(v.path)}: the next crawler reads the page again.`;
    return print(io, v, purged, text);
  },
  async warm(c, { id, v, io }) {
    const job = await c.sites.warm(id, {
      ...(v.sitemap === undefined ? {} : { sitemap: v.sitemap }),
      ...(v.limit === undefined ? {} : { limit: limitOf(v.limit) }),
    });
    if (v['no-wait']) {
      const text = `Warming ${printable(id)}: job ${job.id} with ${job.items} pages\nFollow it: npx cardshot jobs get ${job.id}`;
      return print(io, v, job, text);
    }
    if (!v.json) io.stdout.write(`Warming ${printable(id)}: job ${job.id} with ${job.items} pages\n`);
    const started = performance.now();
    const ended = await follow(c, job.id, v.json ? { ...io, stdout: { write: () => 0 } } : io);
    const secs = ((performance.now() - started) / 1000).toFixed(1);
    const ok = ended.status === 'completed' && ended.counts.failed === 0;
    const failed = ended.counts.failed ? `, ${ended.counts.failed} failed` : '';
    if (!v.json) {
      io.stdout.write(
        `Warmed ${ended.counts.succeeded} of ${ended.items} pages in ${secs} s (job ${ended.status}${failed})\n`,
      );
      await listFailed(c, ended, io);
    }
    return v.json ? print(io, v, ended, '', ok ? 0 : 1) : ok ? 0 : 1;
  },
  async tag(c, { id, extra, io }) {
    const site = await c.sites.get(id);
    try {
      io.stdout.write(`${printable(siteTag(site, extra ?? '/'))}\n`);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    return 0;
  },
};

function limitOf(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(`--limit must be a whole number of pages, at least 1 (got "${printable(text)}")`);
  }
  return n;
}

/** `cardshot sites create|list|show|update|delete|purge|warm|tag`. */
export async function runSites(argv: string[], io: ShotIo = processIo): Promise<number> {
  return runRemote('sites', HELP, io, async () => {
    const { values: v, positionals } = parseVerbArgs(argv, FLAGS);
    const picked = pickVerb(VERBS, VERB_HELP, { help: Boolean(v.help), positionals }, io, {
      help: HELP,
      withoutId: ['create'],
      needsId: (verb) => `sites ${verb} needs the site id (site_…)`,
    });
    if ('exit' in picked) return picked.exit;
    const max = picked.verb === 'tag' ? 3 : picked.verb === 'create' ? 1 : 2;
    if (positionals.length > max) throw new UsageError(`unexpected "${printable(positionals[max]!)}"`);
    return picked.run(await remoteClient(v, io), {
      id: positionals[1] ?? '',
      extra: positionals[2],
      v: v as Flags,
      io,
    });
  });
}
