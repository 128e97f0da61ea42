// @module-tag chromium
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';
import { pixelAt } from '../helpers/png.js';
import { S3_KEY, type S3Server, startS3Server } from '../helpers/s3.js';

// store=s3 on a screenshot (real Chromium, a loopback page, s3rver): the capture in the bucket
// is the image the route answers, with its type and metadata, and the JSON says where it is.
let t: TestApp;
let pages: PageServer;
let s3: S3Server;

beforeAll(async () => {
  pages = await startPageServer();
  s3 = await startS3Server(['shots']);
  t = await startTestApp({ allowPrivateHosts: [pages.hostPort], storageAllowPrivateHosts: [s3.hostPort] });
  const res = await t.inject({
    method: 'POST',
    url: '/storage',
    payload: { endpoint: s3.endpoint, bucket: 'shots', ...S3_KEY, syncPathTemplate: '{name}/{etag}.{ext}' },
  });
  expect(res.statusCode).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await s3?.close();
  await pages?.close();
});

describe('store=s3 on /render/url', () => {
  it('GET and POST upload the capture and answer its location beside the page facts', {
    timeout: 60_000,
  }, async () => {
    const url = `${pages.url}/split`;
    const image = await t.inject({ method: 'GET', url: `/render/url?${new URLSearchParams({ url })}` });
    expect(image.statusCode).toBe(200);
    const etag = String(image.headers.etag).replaceAll('"', '');
    const key = `127.0.0.1/${etag}.png`;
    for (const res of [
      await t.inject({
        method: 'GET',
        url: `/render/url?${new URLSearchParams({ url, response: 'json', store: 's3' })}`,
      }),
      await t.inject({ method: 'POST', url: '/render/url', payload: { url, response: 'json', store: 's3' } }),
    ]) {
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body.image).toMatchObject({
        contentType: 'image/png',
        width: 1200,
        height: 630,
        etag: image.headers.etag,
      });
      expect(body.image.url).not.toContain('store=');
      expect(body.page).toMatchObject({ finalUrl: url, status: 200 });
      expect(body.storage).toEqual({
        bucket: 'shots',
        key,
        url: `${s3.endpoint}/shots/${key}`,
        etag: expect.any(String),
      });
    }
    const stored = await s3.get('shots', key);
    expect(stored.body.equals(image.rawPayload)).toBe(true);
    expect(await pixelAt(stored.body, 100, 300)).toEqual([255, 0, 0, 255]);
    expect(stored.contentType).toBe('image/png');
    expect(stored.metadata).toEqual({
      'cardshot-etag': image.headers.etag,
      'cardshot-request': expect.stringMatching(/\S/),
      'cardshot-source': url,
    });
  });

  it('refuses store=s3 without response=json before any capture', async () => {
    const res = await t.inject({
      method: 'GET',
      url: `/render/url?${new URLSearchParams({ url: `${pages.url}/split`, store: 's3' })}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/^store=s3 needs response=json/);
  });
});
