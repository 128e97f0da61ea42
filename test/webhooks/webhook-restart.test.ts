import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createUrlGuard } from '../../src/net/url-guard.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startWebhookReceiver, status } from '../helpers/webhook-receiver.js';
import { addEndpoint, settled, verifyAt } from '../helpers/webhooks.js';

// A retry scheduled before a stop is made by the next start, on the same data dir, under the
// same webhook-id and signed with the same secret: deliveries live in the queue, not in memory.
const apps: TestApp[] = [];
let dir = '';
afterAll(async () => {
  for (const a of apps) await a.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a webhook retry across a restart', () => {
  it('is made by the next start, same webhook-id, same secret', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-wh-restart-'));
    const receiver = await startWebhookReceiver(status(503));
    try {
      const opts = {
        webhookGuard: createUrlGuard({ allowPrivateHosts: [receiver.hostPort] }),
        webhookBackoff: () => 1500,
      };
      const first = await startTestApp({ dataDir: dir }, opts);
      apps.push(first);
      const { json } = await addEndpoint(first, { url: `${receiver.url}/hook` });
      const id = json.id as string;
      const sent = (await first.inject({ method: 'POST', url: `/webhooks/${id}/test` })).json();
      await settled(first, id, sent.id, { done: (d) => d.attempts.length === 1 });
      await first.close();

      receiver.answer(status(200));
      const second = await startTestApp({ dataDir: dir }, opts);
      apps.push(second);
      // Read as the first app's account: the store is the same file.
      const done = await settled(second, id, sent.id, { key: first.key.key, timeoutMs: 10_000 });
      expect(done.attempts.map((a) => a.status)).toEqual([503, 200]);
      const got = receiver.received.filter((r) => r.headers['webhook-id'] === sent.id);
      expect(got).toHaveLength(2);
      expect(
        verifyAt(json.secret as string, got[1]!, Number(got[1]!.headers['webhook-timestamp']) * 1000),
      ).toMatchObject({
        type: 'webhook.test',
      });
    } finally {
      await receiver.close();
    }
  });
});
