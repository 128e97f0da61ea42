import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUrlGuard } from '../../src/net/url-guard.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { csrfOf, type DashClient, onceOf, signedIn } from '../helpers/dashboard.js';
import { startWebhookReceiver, status, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { secondAccount } from '../helpers/webhooks.js';

// The Jobs and Webhooks pages over HTTP on a real app (SQLite, the SQLite queue, the real
// renderer, a real receiver on 127.0.0.1): what each page shows, the secret shown once, the
// forms' CSRF, and a second account that sees none of the first one's jobs or endpoints.

let t: TestApp;
let receiver: WebhookReceiver;
let c: DashClient;
let other: DashClient;

beforeAll(async () => {
  receiver = await startWebhookReceiver(status(200));
  t = await startTestApp(
    { jobsWorkers: 2 },
    { webhookGuard: createUrlGuard({ allowPrivateHosts: [receiver.hostPort] }) },
  );
  c = await signedIn(t);
  const hostile = await secondAccount(t, 'Hostile');
  const email = (await t.store.getAccount(hostile.accountId))!.email;
  other = await signedIn(t, email);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

/** Submits a job through the API as the test account and waits for it to end. */
async function finishedJob(items: unknown[]): Promise<string> {
  const res = await t.inject({ method: 'POST', url: '/jobs', payload: { items } });
  expect(res.statusCode, res.body).toBe(202);
  const id = res.json().id as string;
  for (let i = 0; i < 400; i++) {
    const job = (await t.inject({ method: 'GET', url: `/jobs/${id}` })).json();
    if (!['queued', 'running'].includes(job.status)) return id;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`job ${id} did not end`);
}

describe('Jobs pages', () => {
  let id = '';
  beforeAll(async () => {
    id = await finishedJob([
      { template: 'blog', title: 'Dashboard one' },
      { template: 'blog', title: 'Dashboard two', format: 'webp' },
    ]);
  }, 30_000);

  it('lists the job with its progress, and links it', async () => {
    const res = await c.get('/dashboard/jobs');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`<a class="key-name mono" href="/dashboard/jobs/${id}">${id}</a>`);
    expect(res.body).toContain('<span class="badge active">Completed</span>');
    expect(res.body).toContain('<span class="job-count">2 / 2</span>');
    expect(res.body).toContain('<a href="/dashboard/jobs" aria-current="page">');
    // Nothing runs: no live updates.
    expect(res.body).not.toContain('jobs.js');
  });

  it('shows the items with signed image links that work without a key, and the zip', async () => {
    const res = await c.get(`/dashboard/jobs/${id}`);
    expect(res.statusCode).toBe(200);
    const links = [
      ...res.body.matchAll(/<a href="(\/jobs\/[^"]+\/items\/\d\?expires=\d+&amp;signature=[^"]+)"/g),
    ].map((m) => m[1]!.replaceAll('&amp;', '&'));
    expect(links).toHaveLength(2);
    const img = await t.app.inject({ method: 'GET', url: links[1]! });
    expect(img.statusCode).toBe(200);
    expect(img.headers['content-type']).toBe('image/webp');
    expect(res.body).toContain('1200×630 WEBP');
    const zip = /<a class="button primary" href="([^"]+)" download>Download zip<\/a>/.exec(res.body)?.[1];
    const got = await t.app.inject({ method: 'GET', url: zip!.replaceAll('&amp;', '&') });
    expect(got.statusCode).toBe(200);
    expect(got.rawPayload.subarray(0, 2).toString()).toBe('PK');
    // Ended: no cancel button.
    expect(res.body).not.toContain('Cancel job');
  });

  it('filters items by status, and shows a failed item with its reason', async () => {
    const failing = await finishedJob([
      { template: 'blog', title: 'fine' },
      { template: 'product', title: 'Lamp', imageUrl: 'http://127.0.0.1:9/missing.png' },
    ]);
    const res = await c.get(`/dashboard/jobs/${failing}?status=failed`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(
      /<a href="\/dashboard\/jobs\/job_\S+\?status=failed" aria-current="page">Failed <span class="tab-count">1<\/span><\/a>/,
    );
    expect(res.body).toMatch(
      /<th scope="row" class="num"><span class="phone-only">Item <\/span>1<\/th>\s*<td data-label="Status"><span class="badge error">Failed<\/span><\/td>/,
    );
    expect(res.body).toMatch(/<span class="item-error">imageUrl[^<]+<\/span>/);
    expect(res.body).not.toMatch(/<th scope="row" class="num"><span class="phone-only">Item <\/span>0<\/th>/);
  }, 30_000);

  it('pages the items 25 at a time, keeping the filter', async () => {
    const many = await finishedJob(
      Array.from({ length: 27 }, (_, i) => ({ template: 'blog', title: `p${i}` })),
    );
    const first = await c.get(`/dashboard/jobs/${many}?status=succeeded`);
    expect(first.body.match(/<th scope="row" class="num">/g)).toHaveLength(25);
    const next = /<a class="button small" href="([^"]+)">Next items<\/a>/.exec(first.body)?.[1];
    expect(next).toBe(`/dashboard/jobs/${many}?status=succeeded&amp;after=24`);
    const second = await c.get(next!.replaceAll('&amp;', '&'));
    expect(second.body.match(/<th scope="row" class="num">/g)).toHaveLength(2);
    expect(second.body).toContain('<span class="phone-only">Item </span>26</th>');
    expect(second.body).not.toContain('Next items');
  }, 30_000);

  it('cancels a running job after a confirmation, with the CSRF token', async () => {
    const many = Array.from({ length: 80 }, (_, i) => ({ template: 'blog', title: `c${i}` }));
    const sub = await t.inject({ method: 'POST', url: '/jobs', payload: { items: many } });
    const big = sub.json().id as string;
    const confirm = await c.get(`/dashboard/jobs/${big}/cancel`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('Cancel job');
    const forged = await c.post(`/dashboard/jobs/${big}/cancel`, {});
    expect(forged.statusCode).toBe(403);
    const done = await c.post(`/dashboard/jobs/${big}/cancel`, { _csrf: csrfOf(confirm.body) });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe(`/dashboard/jobs/${big}?notice=canceled`);
    const page = await c.get(done.headers.location as string);
    expect(page.body).toContain('The job is canceled: its waiting items will not run.');
    expect(page.body).toContain('<span class="badge revoked">Canceled</span>');
  });

  it("answers another account's job with the dashboard's 404 page, on every route", async () => {
    for (const url of [`/dashboard/jobs/${id}`, `/dashboard/jobs/${id}/cancel`]) {
      const res = await other.get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body).not.toContain(id);
    }
    const post = await other.post(`/dashboard/jobs/${id}/cancel`, {
      _csrf: await other.csrf('/dashboard/jobs'),
    });
    expect(post.statusCode).toBe(404);
    expect((await other.get('/dashboard/jobs')).body).not.toContain(id);
  });
});

describe('Webhooks pages', () => {
  const add = async (url: string, events = ['job.completed']) => {
    const page = await c.get('/dashboard/webhooks');
    const form: Record<string, string> = { _csrf: csrfOf(page.body), once: onceOf(page.body), url };
    for (const e of events) form[`ev-${e}`] = 'on';
    return { page, form, res: await c.post('/dashboard/webhooks', form) };
  };

  it('adds an endpoint and shows its secret once; the same form sent again shows nothing', async () => {
    const { form, res } = await add(`${receiver.url}/dash`, ['job.completed', 'render.failed']);
    expect(res.statusCode).toBe(201);
    const secret = /<code id="new-secret" aria-labelledby="new-secret-label">(whsec_[^<]+)<\/code>/.exec(
      res.body,
    )?.[1];
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const again = await c.post('/dashboard/webhooks', form);
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe('/dashboard/webhooks?notice=shown-once');
    const list = await c.get('/dashboard/webhooks');
    expect(list.body).toContain(`${receiver.url}/dash`);
    expect(list.body).not.toContain(secret!.slice(6));
    expect(JSON.stringify(t.logs)).not.toContain(secret!.slice(6));
  });

  it("shows the service's refusal of a private URL in the form, keeping what was typed", async () => {
    const { res } = await add('http://10.1.2.3/hook');
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain(
      '<div class="alert error" role="alert" id="add-error">Url must be a public address: Cardshot does not call private, loopback or link-local addresses, or names that do not resolve.</div>',
    );
    expect(res.body).toContain('value="http://10.1.2.3/hook"');
  });

  it('sends a test event, logs the attempt with the answer, and redelivers it', async () => {
    const { res } = await add(`${receiver.url}/logged`);
    const id = /<code>(ep_\w+)<\/code>/.exec(res.body)![1]!;
    const detail = await c.get(`/dashboard/webhooks/${id}`);
    expect(detail.body).toContain('No deliveries yet.');
    const before = receiver.received.length;
    const sent = await c.post(`/dashboard/webhooks/${id}/test`, { _csrf: csrfOf(detail.body) });
    expect(sent.headers.location).toBe(`/dashboard/webhooks/${id}?notice=tested`);
    await receiver.waitFor(before + 1);
    let page = await c.get(`/dashboard/webhooks/${id}`);
    for (let i = 0; i < 100 && !page.body.includes('Delivered'); i++) {
      await new Promise((r) => setTimeout(r, 25));
      page = await c.get(`/dashboard/webhooks/${id}`);
    }
    expect(page.body).toMatch(/<span class="badge active">Delivered<\/span>/);
    expect(page.body).toContain('<pre class="answer">answer 200</pre>');
    const msg = /action="\/dashboard\/webhooks\/ep_\w+\/deliveries\/([^/]+)\/redeliver"/.exec(page.body)![1]!;
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(msg);
    const re = await c.post(`/dashboard/webhooks/${id}/deliveries/${msg}/redeliver`, {
      _csrf: csrfOf(page.body),
    });
    expect(re.headers.location).toBe(`/dashboard/webhooks/${id}?notice=redelivered`);
    await receiver.waitFor(before + 2);
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(msg);
  });

  it('rotates the secret (shown once) and deletes the endpoint after confirmations', async () => {
    const { res } = await add(`${receiver.url}/rotating`);
    const id = /<code>(ep_\w+)<\/code>/.exec(res.body)![1]!;
    const first = /id="new-secret"[^>]*>(whsec_[^<]+)</.exec(res.body)![1]!;
    const confirm = await c.get(`/dashboard/webhooks/${id}/rotate`);
    const form = { _csrf: csrfOf(confirm.body), once: onceOf(confirm.body) };
    const rotated = await c.post(`/dashboard/webhooks/${id}/rotate`, form);
    expect(rotated.statusCode).toBe(201);
    const second = /id="new-secret"[^>]*>(whsec_[^<]+)</.exec(rotated.body)![1]!;
    expect(second).not.toBe(first);
    expect(rotated.body).toContain('The old secret keeps signing beside the new one until');
    expect((await c.post(`/dashboard/webhooks/${id}/rotate`, form)).headers.location).toBe(
      `/dashboard/webhooks/${id}?notice=shown-once`,
    );
    const del = await c.get(`/dashboard/webhooks/${id}/delete`);
    const gone = await c.post(`/dashboard/webhooks/${id}/delete`, {
      _csrf: csrfOf(del.body),
      once: onceOf(del.body),
    });
    expect(gone.headers.location).toBe('/dashboard/webhooks?notice=deleted');
    expect((await c.get('/dashboard/webhooks')).body).not.toContain(id);
  });

  it("answers another account's endpoint with 404 on every page and form", async () => {
    const { res } = await add(`${receiver.url}/private`);
    const id = /<code>(ep_\w+)<\/code>/.exec(res.body)![1]!;
    for (const url of [
      `/dashboard/webhooks/${id}`,
      `/dashboard/webhooks/${id}/rotate`,
      `/dashboard/webhooks/${id}/delete`,
    ]) {
      expect((await other.get(url)).statusCode, url).toBe(404);
    }
    const token = await other.csrf('/dashboard/webhooks');
    for (const url of [`/dashboard/webhooks/${id}/test`, `/dashboard/webhooks/${id}/delete`]) {
      expect((await other.post(url, { _csrf: token })).statusCode, url).toBe(404);
    }
    expect((await other.get('/dashboard/webhooks')).body).not.toContain(id);
    expect((await c.get(`/dashboard/webhooks/${id}`)).statusCode).toBe(200);
  });
});
