import type { WebhookDelivery, WebhookEndpoint, WebhookEventType } from '../../client/webhook-endpoints.js';
import { parseVerbArgs, table, UsageError } from '../admin.js';
import { printable } from '../printable.js';
import { pickVerb, remoteClient, runRemote, SERVER_FLAGS, SERVER_HELP } from '../remote.js';
import { processIo, type ShotIo } from '../shot/io.js';

const EVENTS = [
  'job.completed',
  'job.failed',
  'job.canceled',
  'render.succeeded',
  'render.failed',
  'delivery.succeeded',
  'delivery.failed',
];

/** Each subcommand's help, shown by `webhooks <verb> --help`. */
const VERB_HELP: Record<string, string> = {
  add: `  npx cardshot webhooks add URL [--events EVENT,…] [--json]
      A new endpoint. Cardshot POSTs signed events to URL (public https:// or http://).
      --events  any of ${EVENTS.join(', ')}
                (default: job.completed, job.failed, job.canceled)
      Prints the endpoint's whsec_ secret ONCE: keep it to verify deliveries.`,
  list: `  npx cardshot webhooks list [--json]
      The account's endpoints, their events and status (never their secrets).`,
  rotate: `  npx cardshot webhooks rotate ID [--json]
      A new secret, printed once; the old one keeps signing beside it for 24 h.`,
  test: `  npx cardshot webhooks test ID
      Sends a webhook.test event now and shows how the receiver answered.`,
  remove: `  npx cardshot webhooks remove ID
      Deletes the endpoint: nothing more is sent to it.`,
  deliveries: `  npx cardshot webhooks deliveries ID [--limit N] [--json]
      The delivery log, newest first: each message, its attempts and the answers.`,
  redeliver: `  npx cardshot webhooks redeliver ID DELIVERY_ID
      Sends a logged message again (the same webhook-id).`,
};

const HELP = `Webhook endpoints of your account, through a running Cardshot server.

${Object.values(VERB_HELP).join('\n')}

${SERVER_HELP}

Deliveries carry Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature);
docs/jobs.md shows a receiver that verifies them. Exit status: 0 on success, 1 when the server
refused (its message is printed), 2 for a command line that cannot work.`;

const FLAGS = {
  ...SERVER_FLAGS,
  events: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Flags = { events?: string | undefined; limit?: string | undefined; json?: boolean | undefined };
type Client = Awaited<ReturnType<typeof remoteClient>>;
/** One subcommand: the client, its positionals after the verb, its flags; prints, returns the exit status. */
type Verb = (
  c: Client,
  args: { id: string; extra: string | undefined; v: Flags; io: ShotIo },
) => Promise<number>;

const print = (io: ShotIo, v: Flags, value: unknown, text: string) => {
  io.stdout.write(v.json ? `${JSON.stringify(value)}\n` : `${text}\n`);
  return 0;
};

const VERBS: Record<string, Verb> = {
  async add(c, { id: url, v, io }) {
    const events = v.events === undefined ? undefined : parseEvents(v.events);
    const made = await c.webhooks.create({ url, ...(events ? { events } : {}) });
    return print(io, v, made, `${describe(made)}\n${secretLines(made.secret)}`);
  },
  async list(c, { v, io }) {
    const list = await c.webhooks.list();
    const text =
      list.length === 0 ? 'No webhook endpoints yet: npx cardshot webhooks add URL' : endpointTable(list);
    return print(io, v, list, text);
  },
  async rotate(c, { id, v, io }) {
    const r = await c.webhooks.rotate(id);
    const until = r.previousSecretExpiresAt ?? '';
    const text = `${describe(r)}\n${secretLines(r.secret)}\nThe old secret keeps signing beside it until ${until}.`;
    return print(io, v, r, text);
  },
  test: (c, { id, v, io }) => sendTest(c, id, io, v.json ?? false),
  async remove(c, { id, v, io }) {
    await c.webhooks.remove(id);
    return print(io, v, { id, removed: true }, `Removed ${printable(id)}.`);
  },
  async deliveries(c, { id, v, io }) {
    const limit = v.limit === undefined ? 20 : Number(v.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      throw new UsageError('--limit must be 1 to 100');
    const page = await c.webhooks.deliveries(id, { limit });
    return print(io, v, page, deliveryLines(page.deliveries));
  },
  async redeliver(c, { id, extra, v, io }) {
    if (!extra) throw new UsageError('webhooks redeliver needs the endpoint id and the delivery id (msg_…)');
    const sent = await c.webhooks.redeliver(id, extra);
    return print(io, v, sent, `Queued ${sent.type} ${sent.id} again.`);
  },
};

/** `cardshot webhooks add|list|rotate|test|remove|deliveries|redeliver`. */
export async function runWebhooks(argv: string[], io: ShotIo = processIo): Promise<number> {
  return runRemote('webhooks', HELP, io, async () => {
    const { values: v, positionals } = parseVerbArgs(argv, FLAGS);
    const picked = pickVerb(VERBS, VERB_HELP, { help: Boolean(v.help), positionals }, io, {
      help: HELP,
      needsId: (verb) =>
        verb === 'add'
          ? 'webhooks add needs the URL to send events to'
          : `webhooks ${verb} needs the endpoint id (ep_…)`,
    });
    if ('exit' in picked) return picked.exit;
    const [, id, extra] = positionals;
    return picked.run(await remoteClient(v, io), { id: id ?? '', extra, v, io });
  });
}

function parseEvents(text: string): WebhookEventType[] {
  const events = text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const bad = events.find((e) => !EVENTS.includes(e));
  if (bad !== undefined || events.length === 0) {
    throw new UsageError(`--events takes a comma-separated list of ${EVENTS.join(', ')}`);
  }
  return events as WebhookEventType[];
}

function describe(e: WebhookEndpoint): string {
  return `Endpoint ${e.id} → ${printable(e.url)}\nEvents: ${e.events.join(', ')}`;
}

function secretLines(secret: string): string {
  return `Secret: ${secret}\nThis secret is shown only now. Store it where your receiver reads it (for example WEBHOOK_SECRET).`;
}

function endpointTable(list: readonly WebhookEndpoint[]): string {
  return table([
    ['ID', 'STATUS', 'EVENTS', 'URL'],
    ...list.map((e) => [e.id, e.status, e.events.join(','), printable(e.url)]),
  ]);
}

function deliveryLines(list: readonly WebhookDelivery[]): string {
  if (list.length === 0) return 'No deliveries yet.';
  const rows = [['DELIVERY', 'TYPE', 'STATUS', 'ATTEMPTS', 'LAST ANSWER', 'CREATED']];
  for (const d of list) {
    const last = d.attempts.at(-1);
    const answer =
      last === undefined
        ? '-'
        : last.status === null
          ? printable(last.error ?? 'no answer')
          : `HTTP ${last.status}`;
    rows.push([d.id, d.type, d.status, String(d.attempts.length), answer, d.createdAt]);
  }
  return table(rows);
}

/** Sends a test event and waits (up to 20 s) for its first attempt, so the answer shows here. */
async function sendTest(client: Client, id: string, io: ShotIo, json: boolean): Promise<number> {
  const sent = await client.webhooks.test(id);
  const end = Date.now() + 20_000;
  let found: WebhookDelivery | undefined = sent;
  while (Date.now() < end) {
    const page = await client.webhooks.deliveries(id, { limit: 20 });
    found = page.deliveries.find((d) => d.id === sent.id);
    if (found && found.attempts.length > 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const attempt = found?.attempts[0];
  if (json) {
    io.stdout.write(`${JSON.stringify(found ?? sent)}\n`);
  } else if (!attempt) {
    io.stdout.write(
      `Queued test event ${sent.id}; no attempt yet (see: npx cardshot webhooks deliveries ${id}).\n`,
    );
  } else {
    const answer =
      attempt.status === null ? printable(attempt.error ?? 'no answer') : `HTTP ${attempt.status}`;
    io.stdout.write(
      `Sent test event ${sent.id}: the receiver answered ${answer} in ${attempt.durationMs} ms.\n`,
    );
  }
  return attempt !== undefined && attempt.status !== null && attempt.status >= 200 && attempt.status < 300
    ? 0
    : 1;
}
