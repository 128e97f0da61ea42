import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { signedIn } from '../helpers/dashboard.js';
import { startUnfurlSite, type UnfurlSite } from '../helpers/unfurl-site.js';

// The Link preview page over HTTP (the browser test draws it): the report in the page, the
// fix with a signed Cardshot card, and an image proxy that serves only what it signed for the
// account that was shown it.

let site: UnfurlSite;
let t: TestApp;

beforeAll(async () => {
  site = await startUnfurlSite();
  t = await startTestApp({ allowPrivateHosts: site.hostPorts }, { unfurlCa: site.ca });
}, 30_000);
afterAll(async () => {
  await t?.close();
  await site?.close();
});

const check = (path: string) => `/dashboard/link-preview?url=${encodeURIComponent(site.url + path)}`;

describe('Link preview page', () => {
  it('shows the problems and a signed Cardshot card as the og:image fix', async () => {
    const c = await signedIn(t);
    const res = await c.get(check('/no-image'));
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<strong>1 error, 0 warnings, 0 notes</strong>');
    expect(res.body.match(/data-platform="/g)).toHaveLength(9);
    expect(res.body).toContain('<code>og_image_missing</code> No og:image: the card has no picture');
    // The tag as copied from the page: one level of escaping undone (it keeps &amp; inside the attribute).
    const code = /<code id="lp-tags"[^>]*>([^<]*)<\/code>/.exec(res.body)![1]!;
    const copied = code
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&');
    expect(copied).toMatch(
      /^<meta property="og:image" content="http:\/\/localhost\/render\/template\?template=blog&amp;title=Launch%20week%3A%20five%20new%20templates&amp;kid=key_\w+&amp;exp=\d+&amp;sig=[\w-]+">$/,
    );
  });

  it('proxies a card image only with the signature the page gave, for that account only', async () => {
    const c = await signedIn(t);
    const body = (await c.get(check('/clean'))).body;
    const src = /<img src="(\/dashboard\/link-preview\/image\?u=[^"]+)"/
      .exec(body)![1]!
      .replace(/&amp;/g, '&');
    const img = await c.get(src);
    expect(img.statusCode).toBe(200);
    expect(img.headers['content-type']).toBe('image/png');
    expect(img.rawPayload.readUInt32BE(16)).toBe(1200);
    const forged = src.replace(/s=[0-9a-f]+/, `s=${'0'.repeat(32)}`);
    expect((await c.get(forged)).statusCode).toBe(404);
    const other = src.replace(/u=[^&]+/, `u=${encodeURIComponent(`${site.secureUrl}/img/tiny.png`)}`);
    expect((await c.get(other)).statusCode).toBe(404);
  });

  it('says why a URL cannot be checked, with a 400 page', async () => {
    const c = await signedIn(t);
    const res = await c.get('/dashboard/link-preview?url=http%3A%2F%2F10.0.0.1%2F');
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('url points to an address that is not allowed');
  });
});
