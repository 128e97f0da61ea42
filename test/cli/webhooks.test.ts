import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWebhooks } from '../../src/cli/commands/webhooks.js';
import type { ShotIo } from '../../src/cli/shot/io.js';
import { createUrlGuard } from '../../src/net/url-guard.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startWebhookReceiver, status, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { secondAccount } from '../helpers/webhooks.js';

// `npx cardshot webhooks …` in-process against a real server over HTTP and a real receiver on
// 127.0.0.1: the secret printed once, the test delivery's answer, and the exit statuses.

let t: TestApp;
let server: string;
let receiver: WebhookReceiver;
let hostileKey: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver(status(200));
  t = await startTestApp({}, { webhookGuard: createUrlGuard({ allowPrivateHosts: [receiver.hostPort] }) });
  server = await t.listen();
  hostileKey = (await secondAccount(t)).key;
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const webhooks = async (argv: string[], key = t.key.key) => {
  const out: string[] = [];
  const err: string[] = [];
  const io: ShotIo = {
    stdout: { isTTY: false, write: (d) => out.push(String(d)) },
    stderr: { isTTY: false, write: (d) => err.push(String(d)) },
    readStdin: async () => '',
  };
  const code = await runWebhooks([...argv, '--server', server, '--api-key', key], io);
  return { code, stdout: out.join(''), stderr: err.join('') };
};

describe('cardshot webhooks', () => {
  it('add prints the secret once; list never shows it; test reports the answer; the secret verifies', async () => {
    const url = `${receiver.url}/cli`;
    const add = await webhooks(['add', url, '--events', 'job.completed,render.failed']);
    expect(add.code, add.stderr).toBe(0);
    const m =
      /^Endpoint (ep_\w+) → (\S+)\nEvents: job\.completed, render\.failed\nSecret: (whsec_\S+)\nThis secret is shown only now\. /.exec(
        add.stdout,
      );
    expect(m?.[2]).toBe(url);
    const [, id, , secret] = m!;

    const list = await webhooks(['list']);
    expect(list.stdout).toContain(`${id}  active  job.completed,render.failed  ${url}`);
    expect(list.stdout).not.toContain(secret!.slice(6));

    const test = await webhooks(['test', id!]);
    expect(test.code, test.stderr).toBe(0);
    expect(test.stdout).toMatch(/^Sent test event (msg_\S+): the receiver answered HTTP 200 in \d+ ms\.\n$/);
    const got = receiver.received.at(-1)!;
    expect(new Webhook(secret!).verify(got.body, got.headers as Record<string, string>)).toMatchObject({
      type: 'webhook.test',
    });

    const log = await webhooks(['deliveries', id!]);
    expect(log.stdout).toMatch(
      /^DELIVERY +TYPE +STATUS +ATTEMPTS +LAST ANSWER +CREATED\nmsg_\S+ +webhook\.test +succeeded +1 +HTTP 200 /,
    );

    const rotated = await webhooks(['rotate', id!, '--json']);
    const r = JSON.parse(rotated.stdout);
    expect(r.secret).toMatch(/^whsec_/);
    expect(r.secret).not.toBe(secret);

    const removed = await webhooks(['remove', id!]);
    expect(removed.stdout).toBe(`Removed ${id}.\n`);
    expect((await webhooks(['list'])).stdout).not.toContain(id!);
  });

  it('test exits 1 when the receiver refuses, with its status', async () => {
    const add = await webhooks(['add', `${receiver.url}/refuses`, '--json']);
    const { id } = JSON.parse(add.stdout);
    receiver.answer(status(500));
    try {
      const r = await webhooks(['test', id]);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/the receiver answered HTTP 500 in \d+ ms\.\n$/);
    } finally {
      receiver.answer(status(200));
    }
  });

  it("refuses a private URL and another account's endpoint with the server's words: exit 1", async () => {
    const priv = await webhooks(['add', 'http://169.254.169.254/latest']);
    expect(priv.code).toBe(1);
    expect(priv.stderr).toMatch(
      /^cardshot webhooks: url must be a public address: .* \(HTTP 400, req_\S+\)\n$/,
    );
    const { id } = JSON.parse((await webhooks(['add', `${receiver.url}/mine`, '--json'])).stdout);
    for (const verb of ['test', 'rotate', 'remove', 'deliveries']) {
      const r = await webhooks([verb, id], hostileKey);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(`^cardshot webhooks: No webhook endpoint "${id}" \\(HTTP 404, req_\\S+\\)\\n$`),
      );
    }
  });

  it.each(['add', 'list', 'rotate', 'test', 'remove', 'deliveries', 'redeliver'])(
    'webhooks %s --help prints that subcommand',
    async (verb) => {
      const r = await webhooks([verb, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^ {2}npx cardshot webhooks ${verb}`));
    },
  );

  it('refuses an unknown event with exit 2 and the help', async () => {
    const r = await webhooks(['add', 'https://example.com/h', '--events', 'job.done']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^cardshot webhooks: --events takes a comma-separated list of job\.completed, /);
  });
});
