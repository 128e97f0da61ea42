// @module-tag chromium
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pixelAt } from '../helpers/png.js';

// The CDP commands a POST /render/url sends before navigation (cookies, the header interception,
// User-Agent and locale, time zone, the css script) are answered before the page is fetched
// (prepare.ts). On real Chromium, capture after capture (each in a fresh spare context), the
// page must see every one of them on its very first request and in its first script: the cookie
// and the headers as the server got them, navigator.language, the time zone, and the stylesheet
// before anything is painted. (Sending the navigation without awaiting their answers raced under
// CI's load: a css background image was once never requested.)

const GREEN = [0, 255, 0, 255];
const CAPTURES = 8;
const AGENT = 'Cardshot-First-Request-UA/1.0';

let t: TestApp;
let site: Server;
let origin: string;
/** The headers of the first request for each `id`. */
const first = new Map<string, IncomingHttpHeaders>();

/** Green when the first script sees every option, red otherwise. */
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><script>
const ok = document.cookie.includes('first=cookie-value')
  && navigator.language === 'de-DE'
  && Intl.DateTimeFormat().resolvedOptions().locale === 'de-DE'
  && Intl.DateTimeFormat().resolvedOptions().timeZone === 'Asia/Tokyo'
  && navigator.userAgent === ${JSON.stringify(AGENT)}
  && getComputedStyle(document.documentElement).getPropertyValue('--first-paint').trim() === 'yes';
document.documentElement.style.background = ok ? '#00ff00' : '#ff0000';
</script><style>html,body{margin:0;height:100%}</style></head><body></body></html>`;

beforeAll(async () => {
  site = createServer((req, res) => {
    const id = new URL(req.url ?? '/', 'http://x').searchParams.get('id') ?? '';
    if (!first.has(id)) first.set(id, req.headers);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const port = (site.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  t = await startTestApp({ allowPrivateHosts: [`127.0.0.1:${port}`] });
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => site?.close(resolve));
});

describe('options sent before navigation without waiting for their answers', () => {
  it(`are all in place at the page's first request and first script, ${CAPTURES} captures in a row`, async () => {
    for (let i = 0; i < CAPTURES; i++) {
      const id = `c${i}`;
      const res = await t.inject({
        method: 'POST',
        url: '/render/url',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({
          url: `${origin}/first?id=${id}`,
          locale: 'de-DE',
          timezone: 'Asia/Tokyo',
          css: ':root { --first-paint: yes }',
          cookies: [{ name: 'first', value: 'cookie-value' }],
          userAgent: AGENT,
          headers: { 'X-First': 'header-value' },
        }),
      });
      expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
      const heard = first.get(id);
      expect(heard?.cookie, `capture ${i}`).toBe('first=cookie-value');
      expect(heard?.['accept-language'], `capture ${i}`).toBe('de-DE');
      expect(heard?.['user-agent'], `capture ${i}`).toBe(AGENT);
      expect(heard?.['x-first'], `capture ${i}`).toBe('header-value');
      expect(await pixelAt(res.rawPayload, 5, 5), `capture ${i}`).toEqual(GREEN);
    }
  });
});
