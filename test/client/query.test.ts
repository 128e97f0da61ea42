import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { canonicalRequest, signature } from '../../src/auth/signing.js';
import { Cardshot, type ScreenshotInput } from '../../src/client/index.js';

// What the client puts on the wire, recorded by a plain local HTTP server: the exact path and
// query (order, encoding, defaults left out), the body of template calls, and how the answer's
// headers come back in the result. The server's own reading of these options is tested with
// the server (test/client/client.test.ts).

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let base: string;
let seen: Recorded[] = [];
/** What the recording server answers next. */
let answer: { status: number; headers: Record<string, string>; body: Buffer } = {
  status: 200,
  headers: {},
  body: Buffer.alloc(0),
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen = [];
  answer = { status: 200, headers: { 'content-type': 'image/png' }, body: Buffer.from('png-bytes') };
});

const client = () => new Cardshot({ baseUrl: `${base}/`, apiKey: 'cs_test_key' });

/** Every option at a value that is not its default, given in an order unlike the wire's. */
const EVERY_OPTION: ScreenshotInput = {
  fresh: true,
  ttl: 3600,
  quality: 80,
  format: 'webp',
  scale: 2,
  blockCookieBanners: true,
  blockAds: true,
  hideSelectors: ['#cookie-banner', '.ad > iframe'],
  darkMode: true,
  delay: 1500,
  waitForSelector: 'main h1',
  selector: '[data-card="hero"]',
  fullPage: true,
  waitUntil: 'networkidle',
  viewport: 'desktop',
  url: 'https://example.com/a b?x=1&y=2#top',
};

const EVERY_OPTION_QUERY =
  'url=https%3A%2F%2Fexample.com%2Fa%20b%3Fx%3D1%26y%3D2%23top&viewport=desktop&waitUntil=networkidle' +
  '&fullPage=true&selector=%5Bdata-card%3D%22hero%22%5D&waitForSelector=main%20h1&delay=1500&darkMode=true' +
  '&hideSelectors=%23cookie-banner%2C.ad%20%3E%20iframe&blockAds=true&blockCookieBanners=true&scale=2' +
  '&format=webp&quality=80&ttl=3600&fresh=true';

describe('the screenshot query the client sends', () => {
  it('writes every option in one fixed order, RFC 3986-encoded, whatever order it was given in', async () => {
    await client().screenshot(EVERY_OPTION);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'GET', url: `/render/url?${EVERY_OPTION_QUERY}`, body: '' });
    expect(seen[0]!.headers['x-api-key']).toBe('cs_test_key');
  });

  it('leaves out options at their default, so both forms of a request are one URL', async () => {
    await client().screenshot({ url: 'https://example.com/' });
    await client().screenshot({
      url: 'https://example.com/',
      fullPage: false,
      darkMode: false,
      blockAds: false,
      blockCookieBanners: false,
      fresh: false,
      delay: 0,
      format: 'png',
      hideSelectors: [],
      selector: '',
    });
    expect(seen.map((r) => r.url)).toEqual([
      '/render/url?url=https%3A%2F%2Fexample.com%2F',
      '/render/url?url=https%3A%2F%2Fexample.com%2F',
    ]);
  });

  it('sends scale=1 (not the mobile viewport’s default) and a comma-separated hideSelectors string as given', async () => {
    await client().screenshot({ url: 'https://example.com/', viewport: 'mobile', scale: 1 });
    await client().screenshot({ url: 'https://example.com/', hideSelectors: '.a, .b' });
    await client().screenshot({ url: 'https://example.com/', hideSelectors: [' .a ', '', '.b'] });
    expect(seen.map((r) => r.url)).toEqual([
      '/render/url?url=https%3A%2F%2Fexample.com%2F&viewport=mobile&scale=1',
      '/render/url?url=https%3A%2F%2Fexample.com%2F&hideSelectors=.a%2C%20.b',
      '/render/url?url=https%3A%2F%2Fexample.com%2F&hideSelectors=.a%2C.b',
    ]);
  });

  it('reads the format, the page height and the truncation from the answer', async () => {
    answer = {
      status: 200,
      headers: {
        'content-type': 'image/webp',
        'x-page-height': '23154',
        'x-full-page-truncated': 'true',
        'x-target-status': '200',
        'x-cache': 'MISS',
        etag: '"abc"',
        age: '0',
      },
      body: Buffer.from('RIFF....WEBP'),
    };
    const shot = await client().screenshot({ url: 'https://example.com/', fullPage: true, format: 'webp' });
    expect(shot).toMatchObject({
      notModified: false,
      format: 'webp',
      contentType: 'image/webp',
      pageHeight: 23154,
      fullPageTruncated: true,
      targetStatus: 200,
      cache: 'MISS',
      etag: '"abc"',
    });
    if (shot.notModified) throw new Error('unreachable');
    expect(Buffer.from(shot.image).toString()).toBe('RIFF....WEBP');
    expect(shot.png).toBe(shot.image);

    answer = { status: 200, headers: { 'content-type': 'image/png' }, body: Buffer.from('png') };
    const plain = await client().screenshot({ url: 'https://example.com/' });
    expect(plain).toMatchObject({ format: 'png', contentType: 'image/png', fullPageTruncated: false });
    expect(plain.pageHeight).toBeUndefined();

    answer = { status: 304, headers: { etag: '"abc"' }, body: Buffer.alloc(0) };
    const same = await client().screenshot({ url: 'https://example.com/' }, { ifNoneMatch: '"abc"' });
    expect(same).toMatchObject({ notModified: true, image: null, format: undefined, contentType: undefined });
    expect(seen.at(-1)!.headers['if-none-match']).toBe('"abc"');
  });

  it('signs exactly the query it would send, and the server verifies it with every option', async () => {
    const secret = 'cssig_test-secret';
    const cs = new Cardshot({
      baseUrl: 'https://cards.example.com/base/',
      keyId: 'key_abc',
      signingSecret: secret,
    });
    // Every option includes fresh, which a signed URL may carry for 30 minutes at most.
    const expiresAt = new Date(Date.now() + 20 * 60_000);
    const signed = await cs.signedScreenshotUrl(EVERY_OPTION, { expiresAt });
    expect(signed).toMatch(
      new RegExp(
        `^https://cards\\.example\\.com/base/render/url\\?${EVERY_OPTION_QUERY.replace(/[.?*+^$[\]\\(){}|]/g, '\\$&')}&kid=key_abc&exp=${Math.floor(expiresAt.getTime() / 1000)}&sig=[\\w-]{43}$`,
      ),
    );
    // The server's own canonical form and HMAC over the decoded parameters give the same sig.
    // The path signed is the one the server sees: a proxy in front strips the base path.
    const u = new URL(signed);
    const params = [...u.searchParams.entries()];
    expect(u.searchParams.get('hideSelectors')).toBe('#cookie-banner,.ad > iframe');
    expect(signature(secret, canonicalRequest('GET', '/render/url', params))).toBe(u.searchParams.get('sig'));
  });
});

describe('the template calls', () => {
  it('POST the format and quality in the body; signed URLs carry them after the fields, PNG left out', async () => {
    await client().renderTemplate({ template: 'blog', title: 'Hello', format: 'jpeg', quality: 85 });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/render/template' });
    expect(JSON.parse(seen[0]!.body)).toEqual({
      template: 'blog',
      title: 'Hello',
      format: 'jpeg',
      quality: 85,
    });

    const cs = new Cardshot({ baseUrl: base, keyId: 'key_abc', signingSecret: 'cssig_x' });
    const exp = { expiresAt: 1893456000_000 };
    const avif = await cs.signedTemplateUrl(
      { template: 'saas', title: 'Ship', format: 'avif', quality: 50 },
      exp,
    );
    expect(avif).toMatch(
      /\/render\/template\?template=saas&title=Ship&format=avif&quality=50&kid=key_abc&exp=1893456000&sig=[\w-]{43}$/,
    );
    const png = await cs.signedTemplateUrl({ template: 'saas', title: 'Ship', format: 'png' }, exp);
    const none = await cs.signedTemplateUrl({ template: 'saas', title: 'Ship' }, exp);
    expect(png).toBe(none);
    expect(none).toMatch(/\/render\/template\?template=saas&title=Ship&kid=key_abc&exp=1893456000&sig=/);
  });

  it("sends a custom template's fields like the built-ins', in a stable order", async () => {
    const cs = new Cardshot({ baseUrl: base, keyId: 'key_abc', signingSecret: 'cssig_x' });
    const exp = { expiresAt: 1893456000_000 };
    const url = await cs.signedTemplateUrl(
      {
        v: '3',
        size: 'story',
        seats: 40,
        title: 'Meetup',
        template: 'event',
        accent: '#0EA5E9',
        brand: 'Acme',
      },
      exp,
    );
    expect(url).toMatch(
      /\/render\/template\?template=event&title=Meetup&accent=%230EA5E9&seats=40&brand=Acme&size=story&v=3&kid=key_abc&exp=1893456000&sig=[\w-]{43}$/,
    );
    // The same input written in another order is the same URL (CDNs cache by it).
    const again = await cs.signedTemplateUrl(
      {
        template: 'event',
        brand: 'Acme',
        accent: '#0EA5E9',
        title: 'Meetup',
        seats: 40,
        size: 'story',
        v: '3',
      },
      exp,
    );
    expect(again).toBe(url);
    await cs.renderTemplate({ template: 'event', title: 'Meetup', seats: 40, size: 'square' });
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({
      template: 'event',
      title: 'Meetup',
      seats: 40,
      size: 'square',
    });
  });

  it('reads the content type of a template answer', async () => {
    answer = {
      status: 200,
      headers: { 'content-type': 'image/jpeg', 'x-cache': 'HIT' },
      body: Buffer.from('jpg'),
    };
    const card = await client().renderTemplate({ template: 'blog', title: 'Hi', format: 'jpeg' });
    expect(card).toMatchObject({ format: 'jpeg', contentType: 'image/jpeg', cache: 'HIT' });
  });
});

// Compile-time checks, run by `npm run check`: each line must be refused by the types (tsc
// fails on an @ts-expect-error that has no error). Never called.
function typeChecks(cs: Cardshot): void {
  // @ts-expect-error quality needs a lossy format
  void cs.screenshot({ url: 'https://example.com/', quality: 80 });
  // @ts-expect-error PNG takes no quality
  void cs.screenshot({ url: 'https://example.com/', format: 'png', quality: 80 });
  // @ts-expect-error scale is 1, 2 or 3
  void cs.screenshot({ url: 'https://example.com/', scale: 4 });
  // @ts-expect-error no such format
  void cs.screenshot({ url: 'https://example.com/', format: 'gif' });
  // @ts-expect-error format for cards too
  void cs.renderTemplate({ template: 'blog', title: 'x', format: 'bmp' });
}
void typeChecks;

// The card fields come from the generated CardshotTemplates: each line must be refused.
function templateTypeChecks(cs: Cardshot): void {
  // @ts-expect-error blog needs a title
  void cs.renderTemplate({ template: 'blog', subtitle: 'x' });
  // @ts-expect-error a misspelt field
  void cs.renderTemplate({ template: 'blog', title: 'x', subTitle: 'y' });
  // @ts-expect-error a size no template has
  void cs.renderTemplate({ template: 'saas', title: 'x', size: 'huge' });
  // @ts-expect-error theme takes only 'none'
  void cs.signedTemplateUrl({ template: 'product', title: 'x', theme: 'dark' });
  // A template the types do not know takes any fields (the server checks them).
  void cs.renderTemplate({ template: 'event', headline: 'x', seats: 40, size: 'story' });
  void cs.signedTemplateUrl({ template: 'blog', title: 'x', size: 'og', v: '2' });
}
void templateTypeChecks;
