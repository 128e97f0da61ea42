import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedPoster } from '../../src/net/post.js';
import { createUrlGuard } from '../../src/net/url-guard.js';
import { attemptDelivery } from '../../src/webhooks/attempt.js';
import { newWebhookSecret } from '../../src/webhooks/signing.js';
import { type CanaryServer, startCanaryServer } from '../helpers/servers.js';
import {
  drop,
  hang,
  startWebhookReceiver,
  status,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

// One attempt against real receivers on 127.0.0.1, admitted by the guard's allow-list only.
let receiver: WebhookReceiver;
let canary: CanaryServer;
let poster: ReturnType<typeof createGuardedPoster>;
const secret = newWebhookSecret();
const body = JSON.stringify({ type: 'webhook.test', timestamp: '2026-01-15T12:00:00.000Z', data: { n: 1 } });

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  canary = await startCanaryServer();
  poster = createGuardedPoster({ guard: createUrlGuard({ allowPrivateHosts: [receiver.hostPort] }) });
});
afterAll(async () => {
  await receiver.close();
  await canary.close();
});

const attempt = (path: string, timeoutMs = 2000, secrets = [secret]) =>
  attemptDelivery(poster, {
    url: `${receiver.url}${path}`,
    id: 'msg_abc',
    body,
    secrets,
    now: Date.now(),
    timeoutMs,
  });

describe('one delivery attempt', () => {
  it('POSTs the body signed per Standard Webhooks: the standardwebhooks library verifies it', async () => {
    receiver.answer(status(204));
    const before = receiver.received.length;
    const out = await attempt('/ok');
    expect(out).toMatchObject({ result: 'succeeded', status: 204, error: null });
    const got = receiver.received[before]!;
    expect(got.body).toBe(body);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['webhook-id']).toBe('msg_abc');
    expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    const verified = new Webhook(secret).verify(got.body, got.headers as Record<string, string>);
    expect(verified).toEqual(JSON.parse(body));
    // A secret it was not signed with fails.
    expect(() =>
      new Webhook(newWebhookSecret()).verify(got.body, got.headers as Record<string, string>),
    ).toThrow();
  });

  it('signs with every secret given, space-separated; each verifies alone', async () => {
    receiver.answer(status(200));
    const other = newWebhookSecret();
    const before = receiver.received.length;
    await attempt('/two', 2000, [secret, other]);
    const got = receiver.received[before]!;
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const s of [secret, other]) {
      expect(new Webhook(s).verify(got.body, got.headers as Record<string, string>)).toEqual(
        JSON.parse(body),
      );
    }
  });

  it('a 500 fails with its status, the first 1 KB of the answer and the Retry-After asked for', async () => {
    receiver.answer((res) => {
      res.writeHead(500, { 'retry-after': '120' });
      res.end('x'.repeat(3000));
    });
    const out = await attempt('/500');
    expect(out).toMatchObject({ result: 'failed', status: 500, retryAfterMs: 120_000 });
    expect(out.error).toBe('HTTP 500: only a 2xx answer counts as delivered');
    expect(out.response).toBe('x'.repeat(1024));
  });

  it('a redirect to 169.254.169.254 is a failure and is never followed', async () => {
    for (const to of ['http://169.254.169.254/latest/meta-data/', canary.url]) {
      receiver.answer(status(302, { location: to }));
      const before = receiver.received.length;
      const out = await attempt('/redirect');
      expect(out).toMatchObject({ result: 'failed', status: 302 });
      expect(out.error).toBe('HTTP 302: redirects are not followed; give the endpoint its final URL');
      expect(receiver.received.length).toBe(before + 1);
    }
    // The loopback canary was named by a redirect and never called.
    expect(canary.connections).toBe(0);
  });

  it('a receiver that never answers fails at the time-out', async () => {
    receiver.answer(hang);
    const started = Date.now();
    const out = await attempt('/hang', 500);
    expect(out).toMatchObject({ result: 'failed', status: null, error: 'No answer within 500 ms' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('a dropped connection fails without a status', async () => {
    receiver.answer(drop);
    const out = await attempt('/drop');
    expect(out).toMatchObject({
      result: 'failed',
      status: null,
      error: 'The connection failed or was closed before an answer came',
    });
  });

  it('410 Gone says the endpoint is to be disabled', async () => {
    receiver.answer(status(410));
    expect(await attempt('/gone')).toMatchObject({ result: 'gone', status: 410 });
  });

  it('an endless answer is read to 4 KB, then dropped: the attempt still ends with its status', async () => {
    receiver.answer((res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const t = setInterval(() => {
        res.write('y'.repeat(16 * 1024));
      }, 5);
      res.on('close', () => clearInterval(t));
    });
    const out = await attempt('/endless', 3000);
    expect(out).toMatchObject({ result: 'succeeded', status: 200 });
    expect(out.response).toBe('y'.repeat(1024));
    expect(out.durationMs).toBeLessThan(2000);
  });

  it('a URL the guard refuses is never connected to', async () => {
    const out = await attemptDelivery(poster, {
      url: `${canary.url}/hook`,
      id: 'msg_abc',
      body,
      secrets: [secret],
      now: Date.now(),
      timeoutMs: 2000,
    });
    expect(out).toMatchObject({
      result: 'failed',
      status: null,
      error: 'The URL is not allowed: webhooks go to public addresses only',
    });
    expect(canary.connections).toBe(0);
  });
});
