import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../src/client/index.js';
import { newWebhookSecret, signedHeaders } from '../../src/webhooks/signing.js';

const body = JSON.stringify({
  type: 'job.completed',
  timestamp: '2026-01-15T12:00:00.000Z',
  data: { id: 'job_1' },
});

describe('verifyWebhook (the TS client)', () => {
  it('accepts what the standardwebhooks library signs, and what the server signs', async () => {
    const secret = newWebhookSecret();
    const now = new Date();
    const sig = new Webhook(secret).sign('msg_1', now, body);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': sig,
    };
    expect(await verifyWebhook(body, headers, secret)).toEqual(JSON.parse(body));
    const server = signedHeaders([secret], 'msg_2', Math.floor(Date.now() / 1000), body);
    expect(await verifyWebhook(new TextEncoder().encode(body), new Headers(server), secret)).toEqual(
      JSON.parse(body),
    );
  });

  it('accepts either secret during a rotation (two signatures, space-separated)', async () => {
    const [a, b] = [newWebhookSecret(), newWebhookSecret()];
    const headers = signedHeaders([b, a], 'msg_3', Math.floor(Date.now() / 1000), body);
    for (const s of [a, b]) expect((await verifyWebhook(body, headers, s)).type).toBe('job.completed');
    await expect(verifyWebhook(body, headers, newWebhookSecret())).rejects.toThrow(
      'No signature matches this secret',
    );
  });

  it('refuses a changed body, a replayed timestamp and missing headers', async () => {
    const secret = newWebhookSecret();
    const ts = Math.floor(Date.now() / 1000);
    const headers = signedHeaders([secret], 'msg_4', ts, body);
    await expect(verifyWebhook(body.replace('job_1', 'job_2'), headers, secret)).rejects.toBeInstanceOf(
      WebhookVerificationError,
    );
    const old = signedHeaders([secret], 'msg_4', ts - 600, body);
    await expect(verifyWebhook(body, old, secret)).rejects.toThrow(
      'The webhook-timestamp is not within 5 minutes of now (a replay?)',
    );
    await expect(verifyWebhook(body, { 'webhook-id': 'msg_4' }, secret)).rejects.toThrow(
      'Missing webhook-id, webhook-timestamp or webhook-signature header',
    );
    // The standardwebhooks library refuses the same changed body.
    expect(() => new Webhook(secret).verify(body.replace('job_1', 'job_2'), headers)).toThrow();
  });
});
