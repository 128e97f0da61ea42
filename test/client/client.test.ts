import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalRequest as serverCanonical, signature as serverSignature } from '../../src/auth/signing.js';
import { Cardshot, CardshotError, canonicalRequest } from '../../src/client/index.js';
import { hmacBase64Url } from '../../src/client/signing.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { startPageServer } from '../helpers/pages.js';
import { pngSize } from '../helpers/png.js';

let t: TestApp;
let baseUrl: string;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-client-'));
  const plansFile = path.join(dir, 'plans.json');
  // One request per 3 s window: the second is refused with a short Retry-After.
  await writeFile(
    plansFile,
    JSON.stringify({
      trickle: { templates: '*', screenshots: false, rateLimit: { requests: 1, windowSeconds: 3 } },
    }),
  );
  const pages = chromiumAvailable() ? await startPageServer() : undefined;
  t = await startTestApp({ plansFile, ...(pages ? { allowPrivateHosts: [pages.hostPort] } : {}) });
  pageServer = pages;
  baseUrl = await t.listen();
});
let pageServer: Awaited<ReturnType<typeof startPageServer>> | undefined;
afterAll(async () => {
  await t?.close();
  await pageServer?.close();
  await rm(dir, { recursive: true, force: true });
});

const client = (extra: Partial<ConstructorParameters<typeof Cardshot>[0]> = {}) =>
  new Cardshot({ baseUrl, apiKey: t.key.key, ...extra });

async function keyOnPlan(plan: string): Promise<string> {
  const account = await t.modules.accounts.accounts.createAccount({
    name: plan,
    email: `${plan}-${Math.random().toString(36).slice(2)}@example.com`,
    plan,
  });
  return (
    await t.modules.accounts.accounts.createKey({ accountId: account.id, name: plan, environment: 'test' })
  ).key;
}

async function caught(p: Promise<unknown>): Promise<CardshotError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(CardshotError);
    return err as CardshotError;
  }
  throw new Error('expected a CardshotError');
}

describe('Cardshot client against the real server', () => {
  it('renders a card, then gets it from the cache, then as 304 with its ETag', async () => {
    const cs = client();
    const card = { template: 'saas', title: `Client ${Date.now()}`, brand: 'Acme' } as const;
    const first = await cs.renderTemplate(card);
    expect(first.notModified).toBe(false);
    if (first.notModified) throw new Error('unreachable');
    expect(pngSize(Buffer.from(first.png))).toEqual({ width: 1200, height: 630 });
    expect(first.cache).toBe('MISS');
    expect(first.etag).toMatch(/^"[0-9a-f]{40}"$/);
    expect(first.requestId).toMatch(/^req_/);
    expect(first.rateLimit).toMatchObject({ limit: 600, remaining: expect.any(Number) });
    expect(first.rateLimit!.resetAt).toBeInstanceOf(Date);
    const again = await cs.renderTemplate(card);
    expect(again.cache).toBe('HIT');
    const same = await cs.renderTemplate(card, { ifNoneMatch: first.etag });
    expect(same).toMatchObject({ notModified: true, png: null, etag: first.etag });
  });

  it('throws typed errors carrying the status, the exact message and the request id', async () => {
    const bad = await caught(client().renderTemplate({ template: 'blog', title: '' }));
    expect(bad).toMatchObject({ status: 400, code: 'bad_request', message: 'title must not be empty' });
    expect(bad.requestId).toMatch(/^req_/);
    expect(bad.retryAfter).toBeUndefined();

    const unknown = await caught(client().renderTemplate({ template: 'blgo', title: 'x' }));
    expect(unknown.message).toBe('template must be one of: blog, product, saas (got "blgo")');

    const noKey = await caught(
      client({ apiKey: 'cs_test_wrong' }).renderTemplate({ template: 'blog', title: 'x' }),
    );
    expect(noKey).toMatchObject({ status: 401, code: 'unauthorized', message: 'Missing or invalid API key' });

    const free = new Cardshot({ baseUrl, apiKey: await keyOnPlan('free') });
    const plan = await caught(free.renderTemplate({ template: 'product', title: 'x' }));
    expect(plan).toMatchObject({
      status: 403,
      code: 'forbidden',
      message: 'Template not available on your plan',
    });
  });

  it('carries Retry-After on 429, and retries after it when asked to', async () => {
    const key = await keyOnPlan('trickle');
    const once = new Cardshot({ baseUrl, apiKey: key });
    await once.renderTemplate({ template: 'blog', title: 'First' });
    const limited = await caught(once.renderTemplate({ template: 'blog', title: 'Second' }));
    expect(limited).toMatchObject({ status: 429, code: 'rate_limited', message: 'Rate limit exceeded' });
    expect(limited.retryAfter).toBeGreaterThanOrEqual(1);
    expect(limited.retryAfter).toBeLessThanOrEqual(3);

    // Same budget, now with retries: the client waits out Retry-After and the request succeeds.
    const patient = new Cardshot({ baseUrl, apiKey: key, retries: 2, maxRetryDelayMs: 5000 });
    const started = Date.now();
    const res = await patient.renderTemplate({ template: 'blog', title: 'Third' });
    expect(res.notModified).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);

    // A Retry-After longer than the client will wait is not waited for.
    const hasty = new Cardshot({ baseUrl, apiKey: key, retries: 3, maxRetryDelayMs: 100 });
    const e = await caught(hasty.renderTemplate({ template: 'blog', title: 'Fourth' }));
    expect(e.status).toBe(429);
  });

  it('retries a 503 with backoff through a custom fetch, and gives up after `retries`', async () => {
    let calls = 0;
    // The fetch option: the first two answers are a busy server's, then the real one.
    const flaky: typeof fetch = async (input, init) => {
      calls++;
      if (calls <= 2) {
        return new Response(JSON.stringify({ error: 'The template renderer is busy; retry shortly' }), {
          status: 503,
          headers: { 'content-type': 'application/json', 'x-request-id': 'req_busy' },
        });
      }
      return fetch(input, init);
    };
    const ok = await client({ fetch: flaky, retries: 2, retryDelayMs: 10 }).renderTemplate({
      template: 'blog',
      title: 'Busy',
    });
    expect(ok.notModified).toBe(false);
    expect(calls).toBe(3);

    calls = 0;
    const e = await caught(
      client({ fetch: flaky, retries: 1, retryDelayMs: 10 }).renderTemplate({
        template: 'blog',
        title: 'Busy',
      }),
    );
    expect(e).toMatchObject({
      status: 503,
      code: 'unavailable',
      message: 'The template renderer is busy; retry shortly',
      requestId: 'req_busy',
    });
    expect(calls).toBe(2);
  });

  it('times out against a server that never answers, and reports unreachable servers and aborts', async () => {
    const silent: Server = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const port = (silent.address() as { port: number }).port;
    try {
      const started = Date.now();
      const e = await caught(
        new Cardshot({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 300 }).renderTemplate({
          template: 'blog',
          title: 'x',
        }),
      );
      expect(e).toMatchObject({
        status: 0,
        code: 'timeout',
        message: 'No answer from Cardshot within 300 ms',
      });
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      silent.close();
    }
    const closed = await caught(
      new Cardshot({ baseUrl: 'http://127.0.0.1:9' }).renderTemplate({ template: 'blog', title: 'x' }),
    );
    expect(closed).toMatchObject({ status: 0, code: 'network' });
    const controller = new AbortController();
    controller.abort();
    const aborted = await caught(
      client().renderTemplate({ template: 'blog', title: 'x' }, { signal: controller.signal }),
    );
    expect(aborted.code).toBe('aborted');
  });

  it('signs template URLs the real server accepts (no key in the URL), and tampering is refused', async () => {
    const cs = new Cardshot({ baseUrl, keyId: t.key.record.id, signingSecret: t.key.signingSecret });
    const card = {
      template: 'blog',
      title: 'Signed: 50% off & more (today!)',
      subtitle: "It's ~ok*",
    } as const;
    const url = await cs.signedTemplateUrl(card, { expiresInSeconds: 600 });
    expect(url.startsWith(`${baseUrl}/render/template?`)).toBe(true);
    expect(url).not.toContain(t.key.key);
    expect(url).not.toContain('+');
    const res = await fetch(url);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(pngSize(Buffer.from(await res.arrayBuffer()))).toEqual({ width: 1200, height: 630 });
    // The same card as the header-authenticated request renders.
    const direct = await client().renderTemplate(card);
    expect(res.headers.get('etag')).toBe(direct.etag);

    const tampered = url.replace('Signed', 'Signet');
    expect((await fetch(tampered)).status).toBe(401);
    const expired = await cs.signedTemplateUrl(card, { expiresAt: new Date(Date.now() - 1000) });
    expect((await fetch(expired)).status).toBe(401);
    await expect(new Cardshot({ baseUrl }).signedTemplateUrl(card)).rejects.toThrow(
      'keyId and signingSecret',
    );
  });

  it('signs exactly like the server: the same canonical string and signature for any parameters', async () => {
    const pairs = fc.array(fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 12 })), {
      maxLength: 6,
    });
    fc.assert(
      fc.property(fc.constantFrom('GET', 'HEAD'), fc.webPath(), pairs, (method, p, params) => {
        expect(canonicalRequest(method, p, params)).toBe(serverCanonical(method, p, params));
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1 }),
        fc.string({ unit: 'binary' }),
        async (secret, message) => {
          expect(await hmacBase64Url(secret, message)).toBe(serverSignature(secret, message));
        },
      ),
      { numRuns: 50 },
    );
  });

  it.skipIf(!chromiumAvailable())(
    'takes a screenshot, and signs screenshot URLs the server accepts',
    { tags: ['chromium'], timeout: 90_000 },
    async () => {
      const cs = client({ keyId: t.key.record.id, signingSecret: t.key.signingSecret });
      const shot = await cs.screenshot({
        url: `${pageServer!.url}/split`,
        viewport: 'og',
        waitUntil: 'load',
      });
      if (shot.notModified) throw new Error('unexpected 304');
      expect(pngSize(Buffer.from(shot.png))).toEqual({ width: 1200, height: 630 });
      expect(shot.targetStatus).toBe(200);
      expect(shot.cache).toBe('MISS');
      const signed = await cs.signedScreenshotUrl({ url: `${pageServer!.url}/split`, viewport: 'og' });
      const res = await fetch(signed);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-cache')).toBe('HIT');
      const e = await caught(cs.screenshot({ url: 'http://169.254.169.254/latest/meta-data/' }));
      expect(e).toMatchObject({ status: 400, message: 'url points to an address that is not allowed' });
    },
  );

  it.skipIf(!chromiumAvailable())(
    'takes screenshots with options and cards in other formats, and signs URLs that carry them',
    { tags: ['chromium'], timeout: 90_000 },
    async () => {
      const cs = client({ keyId: t.key.record.id, signingSecret: t.key.signingSecret });
      const tall = await cs.screenshot({
        url: `${pageServer!.url}/tall`,
        fullPage: true,
        format: 'webp',
        quality: 80,
      });
      expect(tall).toMatchObject({
        notModified: false,
        format: 'webp',
        contentType: 'image/webp',
        pageHeight: 100000,
        fullPageTruncated: true,
      });
      if (tall.notModified) throw new Error('unreachable');
      // WebP holds at most 16,383 px a side: one less than the server's default cap.
      expect(await sharp(tall.image).metadata()).toMatchObject({
        format: 'webp',
        width: 1200,
        height: 16383,
      });

      const input = { url: `${pageServer!.url}/split`, scale: 2, format: 'jpeg', quality: 70 } as const;
      const jpeg = await cs.screenshot(input);
      if (jpeg.notModified) throw new Error('unreachable');
      expect([...jpeg.image.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
      expect(await sharp(jpeg.image).metadata()).toMatchObject({ format: 'jpeg', width: 2400, height: 1260 });
      expect(jpeg).toMatchObject({ contentType: 'image/jpeg', cache: 'MISS', fullPageTruncated: false });
      expect(jpeg.pageHeight).toBeUndefined();
      // The signed URL of the same options is the same request: served from the cache.
      const res = await fetch(await cs.signedScreenshotUrl(input));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/jpeg');
      expect(res.headers.get('x-cache')).toBe('HIT');

      const e = await caught(
        cs.screenshot({ url: `${pageServer!.url}/split`, format: 'png', quality: 80 } as never),
      );
      expect(e.status).toBe(400);
      expect(e.message).toContain('quality');

      const card = await cs.renderTemplate({ template: 'blog', title: `WebP ${Date.now()}`, format: 'webp' });
      if (card.notModified) throw new Error('unreachable');
      expect(card).toMatchObject({ format: 'webp', contentType: 'image/webp' });
      expect(await sharp(card.image).metadata()).toMatchObject({ format: 'webp', width: 1200, height: 630 });
      const signedCard = await fetch(
        await cs.signedTemplateUrl({ template: 'blog', title: 'Signed AVIF', format: 'avif' }),
      );
      expect(signedCard.status).toBe(200);
      expect(signedCard.headers.get('content-type')).toBe('image/avif');
    },
  );
});
