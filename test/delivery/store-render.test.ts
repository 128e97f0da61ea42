import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pngSize } from '../helpers/png.js';
import { S3_KEY, type S3Server, startS3Server } from '../helpers/s3.js';
import { type SigV4Gate, startSigV4Gate } from '../helpers/sigv4-gate.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

// store=s3 on a synchronous card render: the card arrives in a real S3-protocol server with its
// bytes, type and metadata, and the JSON answer says where; failures carry the storage's code.
let t: TestApp;
let s3: S3Server;
let gate: SigV4Gate;
let proxy: TcpProxy;
const TIMEOUT_MS = 1500;

const add = async (extra: Record<string, unknown> = {}) => {
  const res = await t.inject({
    method: 'POST',
    url: '/storage',
    payload: { endpoint: gate.endpoint, bucket: 'cards', ...S3_KEY, ...extra },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
};
const card = { template: 'blog', title: 'Stored in a bucket', subtitle: 'store=s3' };
const render = (payload: Record<string, unknown>) =>
  t.inject({ method: 'POST', url: '/render/template', payload });

beforeAll(async () => {
  s3 = await startS3Server(['cards']);
  gate = await startSigV4Gate(s3.port, { [S3_KEY.accessKeyId]: S3_KEY.secretAccessKey });
  proxy = await startTcpProxy('127.0.0.1', gate.port);
  t = await startTestApp(
    {
      storageAllowPrivateHosts: [gate.hostPort, `127.0.0.1:${proxy.port}`],
      storageTimeoutMs: TIMEOUT_MS,
      storageAttempts: 2,
    },
    { storageBackoff: () => 50 },
  );
});
afterAll(async () => {
  await t?.close();
  await proxy?.close();
  await gate?.close();
  await s3?.close();
});

describe('POST /render/template with response=json and store=s3', () => {
  it('uploads the card with its type and metadata and answers its location', async () => {
    const id = await add({ prefix: 'sync', syncPathTemplate: '{date}/{name}-{id}.{ext}' });
    const image = await render(card);
    expect(image.statusCode).toBe(200);
    const res = await render({ ...card, response: 'json', store: 's3' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const requestId = res.headers['x-request-id'] as string;
    const date = new Date().toISOString().slice(0, 10);
    const key = `sync/${date}/blog-${requestId}.png`;
    const body = res.json();
    expect(body).toEqual({
      image: {
        url: expect.stringContaining(
          '/render/template?template=blog&title=Stored%20in%20a%20bucket&subtitle=store%3Ds3&kid=',
        ),
        contentType: 'image/png',
        width: 1200,
        height: 630,
        bytes: image.rawPayload.length,
        etag: image.headers.etag,
      },
      storage: {
        bucket: 'cards',
        key,
        url: `${gate.endpoint}/cards/${key}`,
        etag: expect.stringMatching(/^"[0-9a-f]{32}"$/),
      },
    });
    const stored = await s3.get('cards', key);
    expect(stored.body.equals(image.rawPayload)).toBe(true);
    expect(pngSize(stored.body)).toEqual({ width: 1200, height: 630 });
    expect(stored.contentType).toBe('image/png');
    expect(stored.metadata).toEqual({
      'cardshot-etag': image.headers.etag,
      'cardshot-request': requestId,
      'cardshot-source': 'blog',
    });
    await t.inject({ method: 'DELETE', url: `/storage/${id}` });
  });

  it('names one of several targets with storage=', async () => {
    const a = await add({ prefix: 'a' });
    const b = await add({ prefix: 'b' });
    const several = await render({ ...card, response: 'json', store: 's3' });
    expect(several.statusCode).toBe(400);
    expect(several.json()).toEqual({
      error: 'This account has 2 storage targets: name one with storage=<id> (see GET /storage)',
    });
    const res = await render({ ...card, response: 'json', store: 's3', storage: b });
    expect(res.statusCode).toBe(200);
    expect(res.json().storage.key).toMatch(/^b\//);
    for (const id of [a, b]) await t.inject({ method: 'DELETE', url: `/storage/${id}` });
  });

  it.each([
    [
      { store: 's3' },
      'store=s3 needs response=json: the answer is the stored object\'s location ({"storage": {bucket, key, url, etag}}), not the image',
    ],
    [
      { store: 'gcs', response: 'json' },
      'store must be s3 (an S3-compatible target added with POST /storage)',
    ],
    [
      { storage: 'st_abc', response: 'json' },
      'storage names the target of store=s3: add store=s3, or leave storage out',
    ],
    [
      { store: 's3', storage: 'bucket', response: 'json' },
      'storage must be a storage target id (st_…, see GET /storage)',
    ],
    [{ store: 's3', response: 'json' }, 'store=s3 needs a storage target: add one with POST /storage first'],
    [{ response: 'xml' }, 'response must be image (the default) or json'],
  ])('refuses %j with a clear 400', async (extra, message) => {
    const res = await render({ ...card, ...extra });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: message });
  });

  it('works from GET too, with the query', async () => {
    const id = await add({ prefix: 'get' });
    const res = await t.inject({
      method: 'GET',
      url: '/render/template?template=blog&title=From%20GET&response=json&store=s3',
    });
    expect(res.statusCode).toBe(200);
    const { storage } = res.json();
    expect((await s3.head('cards', storage.key)).contentType).toBe('image/png');
    await t.inject({ method: 'DELETE', url: `/storage/${id}` });
  });
});

describe('failed uploads', () => {
  it("answers 502 with the storage's code when the bucket is missing", async () => {
    const id = await add({ bucket: 'no-such-bucket' });
    const res = await render({ ...card, response: 'json', store: 's3' });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({
      error:
        'The render was made but could not be stored: NoSuchBucket: The specified bucket does not exist (1 attempt)',
    });
    await t.inject({ method: 'DELETE', url: `/storage/${id}` });
  });

  it('answers 502 SignatureDoesNotMatch for a wrong secret, which appears nowhere', async () => {
    const id = await add({ secretAccessKey: 'a-wrong-secret-0123456789' });
    const res = await render({ ...card, response: 'json', store: 's3' });
    expect(res.statusCode).toBe(502);
    expect(res.json().error).toMatch(/^The render was made but could not be stored: SignatureDoesNotMatch: /);
    expect(res.body).not.toContain('a-wrong-secret');
    expect(JSON.stringify(t.logs)).not.toContain('a-wrong-secret');
    await t.inject({ method: 'DELETE', url: `/storage/${id}` });
  });

  it('times out a storage that stalls mid-upload, within the bound, and retries once', async () => {
    const id = await add({ endpoint: `http://127.0.0.1:${proxy.port}` });
    proxy.pause();
    try {
      const started = Date.now();
      const res = await render({ ...card, response: 'json', store: 's3' });
      const took = Date.now() - started;
      expect(res.statusCode).toBe(504);
      expect(res.json()).toEqual({
        error: `The render was made but could not be stored: Timeout: the storage did not finish the upload within ${TIMEOUT_MS} ms (2 attempts)`,
      });
      // Two attempts of 1.5 s and a 50 ms back-off (and the render), never an open-ended wait.
      expect(took).toBeGreaterThanOrEqual(2 * TIMEOUT_MS);
      expect(took).toBeLessThan(2 * TIMEOUT_MS + 5000);
    } finally {
      proxy.resume();
    }
    await t.inject({ method: 'DELETE', url: `/storage/${id}` });
  });
});
