import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/errors.js';
import { pngSize } from '../helpers/png.js';

const CACHE_CONTROL = 'public, max-age=31536000, immutable';
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const post = (payload: unknown, headers: Record<string, string> = {}) =>
  t.inject({ method: 'POST', url: '/render/template', payload: payload as object, headers });

const ERROR_JSON = 'application/json; charset=utf-8';

describe('POST /render/template', () => {
  it('renders a 1200×630 PNG with the spec headers', async () => {
    const res = await post({ template: 'blog', title: 'Hello from Cardshot', subtitle: 'A first card' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['cache-control']).toBe(CACHE_CONTROL);
    expect(res.headers.etag).toMatch(/^"[0-9a-f]{40}"$/);
    expect(res.headers['x-cache']).toBe('MISS');
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{20}$/);
    // A shared cache keeps one answer per key header: a caller without the key gets no copy.
    expect(res.headers.vary).toBe('x-api-key');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['server-timing']).toMatch(/render;dur=\d+(\.\d)?/);
    expect(res.headers['server-timing']).toMatch(/layout;dur=\d/);
    expect(res.headers['server-timing']).toContain('encode;desc="included in render"');
    expect(res.headers['server-timing']).toMatch(
      /^cache;dur=[\d.]+;desc="MISS", queue;dur=[\d.]+, layout;dur=[\d.]+, render;dur=[\d.]+, total;dur=[\d.]+, encode;desc="included in render"$/,
    );
    expect(pngSize(res.rawPayload)).toEqual({ width: 1200, height: 630 });
  });

  it('answers a repeat from the cache with the same bytes and ETag, without rendering', async () => {
    const body = { template: 'saas', title: 'Cached card', brand: 'Acme' };
    const first = await post(body);
    const before = t.renders();
    const second = await post(body);
    expect(second.statusCode).toBe(200);
    expect(second.headers['x-cache']).toBe('HIT');
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(t.renders()).toBe(before);
  });

  it('gives the same ETag to requests that differ only in white space and Unicode form', async () => {
    const a = await post({ template: 'blog', title: 'Caf\u00e9  au   lait ' });
    const b = await post({ template: 'blog', title: ' Cafe\u0301 au lait' });
    expect(a.headers.etag).toBe(b.headers.etag);
  });

  it('draws "fancy text" mathematical letters (𝐁𝐨𝐥𝐝, 𝘪𝘵𝘢𝘭𝘪𝘤) as the plain letters, the same card', async () => {
    const fancy = await post({ template: 'saas', title: '𝐁𝐨𝐥𝐝 𝘪𝘵𝘢𝘭𝘪𝘤 𝟙𝟚𝟛', subtitle: '𝖘𝖈𝖗𝖎𝖕𝖙' });
    const plain = await post({ template: 'saas', title: 'Bold italic 123', subtitle: 'script' });
    expect(fancy.statusCode).toBe(200);
    expect(fancy.headers.etag).toBe(plain.headers.etag);
    expect(fancy.rawPayload.equals(plain.rawPayload)).toBe(true);
  });

  it('gives different ETags to different cards', async () => {
    const a = await post({ template: 'blog', title: 'One' });
    const b = await post({ template: 'blog', title: 'Two' });
    const c = await post({ template: 'saas', title: 'One' });
    expect(new Set([a.headers.etag, b.headers.etag, c.headers.etag]).size).toBe(3);
  });

  it('coalesces identical concurrent requests into one render', async () => {
    const body = { template: 'saas', title: `Coalesced ${Date.now()}` };
    const before = t.renders();
    const results = await Promise.all(Array.from({ length: 8 }, () => post(body)));
    expect(results.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
    expect(new Set(results.map((r) => r.headers.etag)).size).toBe(1);
    expect(t.renders() - before).toBe(1);
    // One answer has the render's phases; the others say how long they waited for it.
    const timings = results.map((r) => String(r.headers['server-timing']));
    expect(timings.filter((h) => /(^|, )render;dur=/.test(h))).toHaveLength(1);
    expect(timings.filter((h) => /(^|, )wait;dur=/.test(h) && !h.includes('render;dur'))).toHaveLength(7);
  });
});

describe('GET /render/template', () => {
  it('answers exactly like POST for the same fields', async () => {
    const fields = { template: 'saas', title: 'Ship faster', subtitle: 'Deploy previews for every branch' };
    const viaPost = await post(fields);
    const viaGet = await t.inject({ method: 'GET', url: '/render/template', query: fields });
    expect(viaGet.statusCode).toBe(200);
    expect(viaGet.headers['content-type']).toBe('image/png');
    expect(viaGet.headers['cache-control']).toBe(CACHE_CONTROL);
    expect(viaGet.headers.etag).toBe(viaPost.headers.etag);
    expect(viaGet.rawPayload.equals(viaPost.rawPayload)).toBe(true);
  });

  it('refuses a repeated query parameter', async () => {
    const res = await t.inject({ method: 'GET', url: '/render/template?template=blog&title=a&title=b' });
    await expectError(res, 400, 'title must be given once');
  });

  it('names an unknown query parameter', async () => {
    const res = await t.inject({
      method: 'GET',
      url: '/render/template?template=blog&title=a&subTitle=b',
    });
    await expectError(
      res,
      400,
      'Unknown query parameter "subTitle" (did you mean "subtitle"?). Allowed: template, title, subtitle, brand, imageUrl, size, theme, format, quality, v',
    );
  });

  it('takes a version (v=2) that changes the URL a crawler caches, not the card', async () => {
    const plain = await t.inject({ method: 'GET', url: '/render/template?template=saas&title=Versioned' });
    const v2 = await t.inject({ method: 'GET', url: '/render/template?template=saas&title=Versioned&v=2' });
    expect(v2.statusCode).toBe(200);
    expect(v2.headers.etag).toBe(plain.headers.etag);
    expect(v2.rawPayload.equals(plain.rawPayload)).toBe(true);
    for (const [v, error] of [
      ['', 'v must be 1 to 64 letters, digits, dots, dashes or underscores'],
      ['<x>', 'v must be 1 to 64 letters, digits, dots, dashes or underscores'],
      ['a'.repeat(65), 'v must be 1 to 64 letters, digits, dots, dashes or underscores'],
    ]) {
      const res = await t.inject({
        method: 'GET',
        url: `/render/template?template=saas&title=Versioned&v=${encodeURIComponent(v!)}`,
      });
      expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 400, body: { error } });
    }
    const twice = await t.inject({ method: 'GET', url: '/render/template?template=saas&title=V&v=1&v=2' });
    expect(twice.json()).toEqual({ error: 'v must be given once' });
    // A JSON body has no URL to version: v there is an unknown field.
    const posted = await t.inject({
      method: 'POST',
      url: '/render/template',
      payload: { template: 'saas', title: 'V', v: '2' },
    });
    expect(posted.json()).toEqual({
      error:
        'Unknown field "v". Allowed: template, title, subtitle, brand, imageUrl, size, theme, format, quality',
    });
  });
});

describe('HEAD /render/template', () => {
  it('answers with the GET headers and no body', async () => {
    const url = '/render/template?template=blog&title=Head%20request';
    const head = await t.inject({ method: 'HEAD', url });
    const get = await t.inject({ method: 'GET', url });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toBe('image/png');
    expect(head.headers.etag).toBe(get.headers.etag);
    expect(head.rawPayload.length).toBe(0);
  });
});

describe('If-None-Match', () => {
  it('gives 304 with the same ETag and Cache-Control, no body, and no render', async () => {
    const body = { template: 'product', title: `Conditional ${Date.now()}` };
    const etag = `"${await t.modules.templates.etagOf({ template: 'product', fields: { title: body.title }, size: 'og' }, undefined, t.account.id)}"`;
    const before = t.renders();
    // Never rendered before: a client holding the tag must still get 304 without a render.
    for (const header of [etag, `"0000", ${etag}`, `W/${etag}`, '*']) {
      const res = await post(body, { 'if-none-match': header });
      expect(res.statusCode, header).toBe(304);
      expect(res.headers.etag).toBe(etag);
      expect(res.headers['cache-control']).toBe(CACHE_CONTROL);
      expect(res.rawPayload.length).toBe(0);
    }
    expect(t.renders()).toBe(before);
    const miss = await post(body, { 'if-none-match': '"not-this-one"' });
    expect(miss.statusCode).toBe(200);
    expect(miss.headers.etag).toBe(etag);
    expect(t.renders()).toBe(before + 1);
  });

  it('works on GET too', async () => {
    const first = await t.inject({
      method: 'GET',
      url: '/render/template?template=blog&title=Conditional%20GET',
    });
    const res = await t.inject({
      method: 'GET',
      url: '/render/template?template=blog&title=Conditional%20GET',
      headers: { 'if-none-match': first.headers.etag as string },
    });
    expect(res.statusCode).toBe(304);
  });
});

describe('fields a template does not draw', () => {
  it('brand is part of the ETag of every template that draws it (all three built-ins do)', async () => {
    const { TEMPLATES } = await import('../helpers/builtins.js');
    for (const def of Object.values(TEMPLATES)) {
      expect(def.uses.brand).toBe(true);
      const plain = await post({ template: def.name, title: 'Brand or not' });
      const branded = await post({ template: def.name, title: 'Brand or not', brand: 'Drawn Inc' });
      expect(plain.statusCode).toBe(200);
      expect(branded.statusCode).toBe(200);
      expect(branded.headers.etag).not.toBe(plain.headers.etag);
    }
  });

  it('accepts imageUrl on every template that does not draw artwork, without fetching it', async () => {
    const { TEMPLATES } = await import('../helpers/builtins.js');
    for (const def of Object.values(TEMPLATES).filter((d) => !d.uses.artwork)) {
      // A fetch of this address would be refused (422): a 200 proves it was never fetched.
      const res = await post({
        template: def.name,
        title: 'Text only',
        imageUrl: 'http://127.0.0.1:9/never.png',
      });
      const plain = await post({ template: def.name, title: 'Text only' });
      expect(res.statusCode).toBe(200);
      expect(res.headers.etag).toBe(plain.headers.etag);
    }
  });
});

describe('bad input', () => {
  const cases: Array<[string, unknown, string]> = [
    ['missing title', { template: 'blog' }, 'title is required'],
    ['empty title', { template: 'blog', title: '   ' }, 'title must not be empty'],
    ['null title', { template: 'blog', title: null }, 'title is required'],
    ['number title', { template: 'blog', title: 42 }, 'title must be a string'],
    ['object subtitle', { template: 'blog', title: 'a', subtitle: { x: 1 } }, 'subtitle must be a string'],
    ['missing template', { title: 'a' }, 'template is required; use one of: blog, product, saas'],
    [
      'unknown template',
      { template: 'blgo', title: 'a' },
      'template must be one of: blog, product, saas (got "blgo")',
    ],
    [
      'typo field',
      { template: 'blog', title: 'a', subTitle: 'b' },
      'Unknown field "subTitle" (did you mean "subtitle"?). Allowed: template, title, subtitle, brand, imageUrl, size, theme, format, quality',
    ],
    [
      'unknown field',
      { template: 'blog', title: 'a', color: 'red' },
      'Unknown field "color". Allowed: template, title, subtitle, brand, imageUrl, size, theme, format, quality',
    ],
    [
      'long title',
      { template: 'blog', title: 'x'.repeat(201) },
      'title must be at most 200 characters (got 201)',
    ],
    [
      'long subtitle',
      { template: 'blog', title: 'a', subtitle: 'x'.repeat(301) },
      'subtitle must be at most 300 characters (got 301)',
    ],
    [
      'long brand',
      { template: 'blog', title: 'a', brand: 'x'.repeat(61) },
      'brand must be at most 60 characters (got 61)',
    ],
    [
      'long imageUrl',
      { template: 'product', title: 'a', imageUrl: `https://example.com/${'x'.repeat(2030)}` },
      'imageUrl must be at most 2048 characters (got 2050)',
    ],
    [
      'relative imageUrl',
      { template: 'product', title: 'a', imageUrl: '/logo.png' },
      'imageUrl must be an absolute http or https URL',
    ],
    [
      'file imageUrl',
      { template: 'product', title: 'a', imageUrl: 'file:///etc/passwd' },
      'imageUrl must be an absolute http or https URL',
    ],
    ['array body', [{ template: 'blog', title: 'a' }], 'Request body must be a JSON object'],
    // Nothing to draw: zero-width space, joiner and BOM, a soft hyphen, a lone combining tilde.
    ['invisible title', { template: 'blog', title: '\u200b\u200d\ufeff' }, 'title must not be empty'],
    ['soft-hyphen title', { template: 'blog', title: ' \u00ad ' }, 'title must not be empty'],
    ['combining-mark title', { template: 'blog', title: '\u0303' }, 'title must not be empty'],
    [
      'unpaired surrogate',
      { template: 'blog', title: 'Caf\ud800' },
      'title contains invalid text (malformed UTF-8 or an unpaired surrogate)',
    ],
    [
      'replacement character',
      { template: 'blog', title: 'ok', subtitle: 'Caf\ufffd' },
      'subtitle contains invalid text (malformed UTF-8 or an unpaired surrogate)',
    ],
  ];
  for (const [name, body, message] of cases) {
    it(`400 for ${name}`, async () => {
      const res = await post(body);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toBe(ERROR_JSON);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.etag).toBeUndefined();
      expect(res.json()).toEqual({ error: message });
    });
  }

  it('400 for malformed UTF-8 in the body and in the query string, never a card of boxes', async () => {
    const body = await t.inject({
      method: 'POST',
      url: '/render/template',
      payload: Buffer.concat([
        Buffer.from('{"template":"blog","title":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(' x"}'),
      ]),
      headers: { 'content-type': 'application/json' },
    });
    await expectError(body, 400, 'title contains invalid text (malformed UTF-8 or an unpaired surrogate)');
    const query = await t.inject({ method: 'GET', url: '/render/template?template=blog&title=Caf%E0%A4' });
    await expectError(query, 400, 'title contains invalid text (malformed UTF-8 or an unpaired surrogate)');
  });

  it('treats an invisible subtitle as absent: the same card and ETag as without one', async () => {
    const plain = await post({ template: 'blog', title: 'Invisible subtitle' });
    const invisible = await post({
      template: 'blog',
      title: 'Invisible subtitle',
      subtitle: '\u200b \u2060',
    });
    expect(invisible.statusCode).toBe(200);
    expect(invisible.headers.etag).toBe(plain.headers.etag);
  });

  it('400 for a field given twice in the body (JSON would silently keep the last)', async () => {
    for (const payload of [
      '{"template":"blog","title":"Real title","title":"Different"}',
      // The same key spelled with an escape is the same key.
      '{"template":"blog","\\u0074itle":"Real title","title":"Different"}',
    ]) {
      const res = await t.inject({
        method: 'POST',
        url: '/render/template',
        payload,
        headers: { 'content-type': 'application/json' },
      });
      await expectError(res, 400, '"title" appears twice in the request body; send each field once');
    }
  });

  it('counts characters, not bytes: 200 emoji or CJK characters are accepted', async () => {
    for (const ch of ['漢', '🎉']) {
      expect((await post({ template: 'blog', title: ch.repeat(200) })).statusCode).toBe(200);
      const over = await post({ template: 'blog', title: ch.repeat(201) });
      await expectError(over, 400, 'title must be at most 200 characters (got 201)');
    }
  });

  it('400 for malformed JSON', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/render/template',
      payload: '{"template": "blog", "title": ',
      headers: { 'content-type': 'application/json' },
    });
    await expectError(res, 400, 'Request body is not valid JSON');
  });

  it('400 for an empty JSON body', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/render/template',
      payload: '',
      headers: { 'content-type': 'application/json' },
    });
    await expectError(res, 400, 'Request body is empty; send a JSON object');
  });

  it('413 for a body over 16 KiB', async () => {
    const res = await post({ template: 'blog', title: 'a', subtitle: 'x'.repeat(17 * 1024) });
    await expectError(res, 413, 'Request body must be at most 16 KiB');
  });

  it('415 for a body that is not JSON', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await t.inject({
        method: 'POST',
        url: '/render/template',
        payload: 'template=blog&title=a',
        headers: { 'content-type': type },
      });
      await expectError(res, 415, 'Content-Type must be application/json');
    }
  });

  it('415 naming the encoding for a compressed body, not "not valid JSON"', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/render/template',
      payload: gzipSync(JSON.stringify({ template: 'blog', title: 'a' })),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    await expectError(res, 415, 'Content-Encoding "gzip" is not supported; send the body uncompressed');
    const plain = await t.inject({
      method: 'POST',
      url: '/render/template',
      payload: JSON.stringify({ template: 'blog', title: 'a' }),
      headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
    });
    expect(plain.statusCode).toBe(200);
  });

  it('reads the body as UTF-8: another declared charset is 415, a byte order mark is ignored', async () => {
    const latin1 = await t.inject({
      method: 'POST',
      url: '/render/template',
      payload: Buffer.from('{"template":"blog","title":"caf\xe9"}', 'latin1'),
      headers: { 'content-type': 'application/json; charset=ISO-8859-1' },
    });
    expect({ status: latin1.statusCode, body: latin1.json() }).toEqual({
      status: 415,
      body: { error: 'charset "iso-8859-1" is not supported; send the body as UTF-8' },
    });
    const body = JSON.stringify({ template: 'blog', title: 'Café' });
    const declared = await t.inject({
      method: 'POST',
      url: '/render/template',
      payload: body,
      headers: { 'content-type': 'application/json; charset="UTF-8"' },
    });
    const bom = await t.inject({
      method: 'POST',
      url: '/render/template',
      payload: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]),
      headers: { 'content-type': 'application/json' },
    });
    expect(declared.statusCode).toBe(200);
    expect(bom.statusCode).toBe(200);
    expect(bom.headers.etag).toBe(declared.headers.etag);
  });

  it('400 for card fields in the query string of a POST, which would be ignored', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/render/template?title=From%20the%20query',
      payload: { template: 'blog', title: 'From the body' },
    });
    await expectError(
      res,
      400,
      `POST reads the card's fields from the JSON body, not the query string (got "title")`,
    );
  });

  it('404 for an unknown route, 405 with Allow for a wrong method', async () => {
    const missing = await t.inject({ method: 'GET', url: '/render/nothing' });
    await expectError(missing, 404, 'No route for GET /render/nothing');
    expect(missing.headers['x-request-id']).toMatch(/^req_/);
    const wrong = await t.inject({ method: 'DELETE', url: '/render/template' });
    expect(wrong.statusCode).toBe(405);
    expect(wrong.headers.allow).toBe('GET, HEAD, POST');
    expect(wrong.json()).toEqual({
      error: 'Method DELETE is not allowed on /render/template; use GET or HEAD or POST',
    });
  });

  it('keeps the caller-supplied request id, and never echoes a hostile one', async () => {
    const kept = await post({ template: 'blog', title: 'a' }, { 'x-request-id': 'lb-123.abc' });
    expect(kept.headers['x-request-id']).toBe('lb-123.abc');
    const replaced = await post({ template: 'blog', title: 'a' }, { 'x-request-id': 'bad id\r\nx: y' });
    expect(replaced.headers['x-request-id']).toMatch(/^req_/);
  });
});

describe('overload', () => {
  it('503 with Retry-After when the render queue is full', async () => {
    const small = await startTestApp({
      renderConcurrency: 1,
      renderQueueSize: 0,
      cacheMemoryBytes: 0,
      cacheDiskBytes: 0,
    });
    try {
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          small.inject({
            method: 'POST',
            url: '/render/template',
            payload: { template: 'blog', title: `Busy ${i}` },
          }),
        ),
      );
      const busy = results.filter((r) => r.statusCode === 503);
      expect(busy.length).toBeGreaterThan(0);
      expect(results.some((r) => r.statusCode === 200)).toBe(true);
      expect(busy[0]!.headers['retry-after']).toBe('1');
      expect(busy[0]!.json()).toEqual({ error: 'The template renderer is busy; retry shortly' });
      expect(results.every((r) => r.statusCode === 200 || r.statusCode === 503)).toBe(true);
    } finally {
      await small.close();
    }
  });
});

describe('logs', () => {
  it('writes one line per request with status, route and timing', async () => {
    const res = await post({ template: 'blog', title: 'Logged' }, { 'x-request-id': 'log-check-1' });
    expect(res.statusCode).toBe(200);
    const line = t.logs.find((l) => l.reqId === 'log-check-1' && l.msg === 'request');
    expect(line).toMatchObject({ method: 'POST', url: '/render/template', status: 200 });
    expect(typeof line?.ms).toBe('number');
  });
});
