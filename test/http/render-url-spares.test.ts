// @module-tag chromium
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';
import { pixelAt } from '../helpers/png.js';

// The spare contexts made ahead of demand (engine/browser/spares.ts) serve one capture each: a
// context that got a caller's cookies, headers, User-Agent, locale, time zone or stylesheet is
// closed after it and never handed to the next request, whoever sends it. With one spare, a
// context given back would be the very one the next plain capture takes.
let t: TestApp;
let pages: PageServer;

const RED = [255, 0, 0, 255];
const GREEN = [0, 255, 0, 255];
const BLUE = [0, 0, 255, 255];

/** The capture used a spare (no context was made for it): its Server-Timing says so. */
const fromSpare = (res: { headers: Record<string, unknown> }) =>
  /context;dur=0(\.0)?,/.test(String(res.headers['server-timing']));

beforeAll(async () => {
  pages = await startPageServer();
  t = await startTestApp({ allowPrivateHosts: [pages.hostPort], screenshotSpareContexts: 1 });
});
afterAll(async () => {
  await t?.close();
  await pages?.close();
});

describe('spare contexts', () => {
  it('the fixture tells a capture with credentials from a plain one', async () => {
    const post = (payload: Record<string, unknown>) =>
      t.inject({
        method: 'POST',
        url: '/render/url',
        payload: { url: `${pages.url}/reader/fresh?probe`, ...payload },
      });
    for (const payload of [
      { cookies: [{ name: 'session', value: 'probe' }] },
      { headers: { 'X-Token': 'probe' } },
      { locale: 'de-DE' },
      { timezone: 'Asia/Tokyo' },
      { userAgent: 'Cardshot-Test-UA/1.0' },
      { css: 'p {}' },
    ]) {
      const res = await post({ ...payload, fresh: true });
      expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
      expect(await pixelAt(res.rawPayload, 10, 10), JSON.stringify(payload)).toEqual(RED);
    }
  });

  it('a context that got credentials and overrides never serves the next capture', async () => {
    for (let round = 0; round < 3; round++) {
      const signedIn = await t.inject({
        method: 'POST',
        url: '/render/url',
        payload: {
          url: `${pages.url}/reader/fresh?signed-in=${round}`,
          locale: 'de-DE',
          timezone: 'Asia/Tokyo',
          css: 'html, body { background: #0000ff !important }',
          cookies: [{ name: 'session', value: `s${round}` }],
          headers: { 'X-Token': `t${round}` },
          userAgent: 'Cardshot-Test-UA/1.0',
        },
      });
      expect(signedIn.statusCode, signedIn.body.slice(0, 200)).toBe(200);
      // The stylesheet reached the page (blue over the page's own colour).
      expect(await pixelAt(signedIn.rawPayload, 10, 10)).toEqual(BLUE);
      // The next plain capture, once a spare is ready, sees none of it.
      let spared = false;
      for (let i = 0; i < 10 && !spared; i++) {
        await new Promise((r) => setTimeout(r, 500));
        const plain = await t.inject({
          method: 'GET',
          url: `/render/url?${new URLSearchParams({ url: `${pages.url}/reader/fresh?after=${round}-${i}` })}`,
        });
        expect(plain.statusCode).toBe(200);
        expect(await pixelAt(plain.rawPayload, 10, 10)).toEqual(GREEN);
        spared = fromSpare(plain);
      }
      expect(spared, 'the plain capture never found a spare context').toBe(true);
    }
  });
});
