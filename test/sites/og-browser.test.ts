// @module-tag chromium
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { HAS_TESSERACT, ocr, wordsRead } from '../helpers/ocr.js';
import { type SitePages, startSitePages } from '../helpers/site-pages.js';

/**
 * `render: "browser"` (issue 30 §1): a page whose script writes its title and og:title gets the
 * fallback when read without a browser, and its own card when the site asks for the browser.
 */
let t: TestApp;
let fixture: SitePages;
/** Another origin, which the URL guard allows too: only the site's origins keep the browser off it. */
let elsewhere: SitePages;

beforeAll(async () => {
  fixture = await startSitePages();
  elsewhere = await startSitePages();
  t = await startTestApp({ allowPrivateHosts: [fixture.hostPort, elsewhere.hostPort] });
}, 30_000);

afterAll(async () => {
  await t?.close();
  await fixture?.close();
  await elsewhere?.close();
});

async function site(render: 'fetch' | 'browser', origins = [fixture.url]): Promise<string> {
  const res = await t.inject({
    method: 'POST',
    url: '/sites',
    payload: { origins, template: 'blog', render, fallback: { title: 'Fallback card' } },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().site.id;
}

describe('render: "browser"', () => {
  it('reads the tags a script wrote; the fetch reader gets the fallback', { timeout: 60_000 }, async () => {
    const fetched = await t.inject({
      method: 'GET',
      url: `/og/${await site('fetch')}/blog/script-tags`,
      auth: false,
    });
    expect(fetched.statusCode).toBe(200);
    expect(fetched.headers['x-cardshot-fallback']).toBe('no-title');

    const rendered = await t.inject({
      method: 'GET',
      url: `/og/${await site('browser')}/blog/script-tags`,
      auth: false,
    });
    expect(rendered.statusCode, rendered.body.slice(0, 200)).toBe(200);
    expect(rendered.headers['content-type']).toBe('image/png');
    expect(rendered.headers['x-cardshot-fallback']).toBeUndefined();
    if (HAS_TESSERACT) expect(wordsRead(await ocr(rendered.rawPayload), 'Written by script')).toBe(1);
  });

  it('takes a cardshot:title a script wrote over the page title', { timeout: 60_000 }, async () => {
    const id = await site('browser');
    const res = await t.inject({ method: 'GET', url: `/og/${id}/blog/script-override`, auth: false });
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect(res.headers['x-cardshot-fallback']).toBeUndefined();
    if (HAS_TESSERACT) {
      const text = await ocr(res.rawPayload);
      expect(wordsRead(text, 'Steered by script')).toBe(1);
      expect(wordsRead(text, 'Unwanted default heading')).toBe(0);
    }
  });

  it('stops a redirect off the site before it is sent: the fallback, and the other origin never asked', {
    timeout: 60_000,
  }, async () => {
    const target = `${elsewhere.url}/blog/post-1`;
    const path = `/redirect-to?to=${encodeURIComponent(target)}`;
    for (const render of ['fetch', 'browser'] as const) {
      const res = await t.inject({ method: 'GET', url: `/og/${await site(render)}${path}`, auth: false });
      expect(res.statusCode, `${render}: ${res.body.slice(0, 200)}`).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['x-cardshot-fallback'], render).toBe('refused');
    }
    expect(fixture.hits(path)).toBe(2);
    expect(elsewhere.hits('/blog/post-1')).toBe(0);

    // Within the site the browser follows it, as the fetch reader does.
    const within = await t.inject({
      method: 'GET',
      url: `/og/${await site('browser')}/redirect`,
      auth: false,
    });
    expect(within.statusCode).toBe(200);
    expect(within.headers['x-cardshot-fallback']).toBeUndefined();
    if (HAS_TESSERACT) expect(wordsRead(await ocr(within.rawPayload), 'Shipping cards at scale')).toBe(1);
  });

  it("stops a script's move off the site once the page loaded: the fallback, the other origin never asked", {
    timeout: 60_000,
  }, async () => {
    const path = `/script-to?to=${encodeURIComponent(`${elsewhere.url}/blog/title-only`)}`;
    const res = await t.inject({ method: 'GET', url: `/og/${await site('browser')}${path}`, auth: false });
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect(res.headers['x-cardshot-fallback']).toBe('refused');
    expect(fixture.hits(path)).toBe(1);
    expect(elsewhere.hits('/blog/title-only')).toBe(0);
  });

  it('ends at once a loaded page that keeps moving itself off the site while a font never comes (hostile)', {
    timeout: 60_000,
  }, async () => {
    const path = `/moves-forever?to=${encodeURIComponent(`${elsewhere.url}/landing`)}`;
    const before = elsewhere.agents().length;
    const started = performance.now();
    const res = await t.inject({ method: 'GET', url: `/og/${await site('browser')}${path}`, auth: false });
    const ms = performance.now() - started;
    // What a failure needs to be read (it failed once in 20 runs, unexplained, at 140 ms).
    const seen = `${ms.toFixed(0)} ms, fallback ${res.headers['x-cardshot-fallback']}, page read ${fixture.hits(path)}×, other origin asked ${elsewhere.agents().length - before}×`;
    expect(res.statusCode, `${seen}; ${res.body.slice(0, 200)}`).toBe(200);
    expect(res.headers['x-cardshot-fallback'], seen).toBe('refused');
    // Not after the capture's wait for fonts (3 s): the first move off the site ends it.
    expect(ms, seen).toBeLessThan(2_500);
    expect(elsewhere.agents(), seen).toHaveLength(before);
    // The browser is fine for the next page.
    const next = await t.inject({
      method: 'GET',
      url: `/og/${await site('browser')}/blog/post-1`,
      auth: false,
    });
    expect(next.statusCode).toBe(200);
    expect(next.headers['x-cardshot-fallback'], 'the next page, after the hostile one').toBeUndefined();
  });

  it('ends eight such reads at once within seconds, none reaching the other origin (hostile)', {
    timeout: 60_000,
  }, async () => {
    const id = await site('browser');
    const before = elsewhere.agents().length;
    const started = performance.now();
    const reads = await Promise.all(
      [0, 1, 2, 3, 4, 5, 6, 7].map(async (i) => {
        const path = `/moves-forever?to=${encodeURIComponent(`${elsewhere.url}/landing`)}&at-once=${i}`;
        const res = await t.inject({ method: 'GET', url: `/og/${id}${path}`, auth: false });
        return { res, ms: performance.now() - started };
      }),
    );
    for (const { res, ms } of reads) {
      const seen = `${ms.toFixed(0)} ms, fallback ${res.headers['x-cardshot-fallback']}`;
      expect(res.statusCode, seen).toBe(200);
      expect(res.headers['x-cardshot-fallback'], seen).toBe('refused');
      // Two at a time on 2 cores: about 1 s for all eight, 4–10 s on loaded CI nodes (four
      // rounds). On a busy machine each move was replaced by the next before it could be stopped,
      // and such reads waited out the read's 15 s deadline: a read that did would answer 15 s or
      // more after its own start, so after this bound whatever the queue did.
      expect(ms, seen).toBeLessThan(15_000);
    }
    expect(elsewhere.agents()).toHaveLength(before);
  });

  it("follows a redirect to the site's other origin", { timeout: 60_000 }, async () => {
    const id = await site('browser', [fixture.url, elsewhere.url]);
    const path = `/redirect-to?to=${encodeURIComponent(`${elsewhere.url}/`)}`;
    const res = await t.inject({ method: 'GET', url: `/og/${id}${path}`, auth: false });
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect(res.headers['x-cardshot-fallback']).toBeUndefined();
    expect(elsewhere.hits('/')).toBe(1);
    if (HAS_TESSERACT) expect(wordsRead(await ocr(res.rawPayload), 'Fixture Blog Home')).toBe(1);
  });

  it('reads og: tags in name= and twitter: tags in property=, as the fetch reader does', {
    timeout: 60_000,
  }, async () => {
    for (const render of ['fetch', 'browser'] as const) {
      const res = await t.inject({
        method: 'GET',
        url: `/og/${await site(render)}/blog/mixed-attributes`,
        auth: false,
      });
      expect(res.statusCode, `${render}: ${res.body.slice(0, 200)}`).toBe(200);
      expect(res.headers['x-cardshot-fallback'], render).toBeUndefined();
      if (HAS_TESSERACT) expect(wordsRead(await ocr(res.rawPayload), 'Mixed up attributes'), render).toBe(1);
    }
    const url = `${fixture.url}/blog/mixed-attributes`;
    const json = await t.inject({
      method: 'GET',
      url: `/render/url?${new URLSearchParams({ url, response: 'json' })}`,
    });
    expect(json.statusCode, json.body.slice(0, 200)).toBe(200);
    expect(json.json().page.openGraph).toEqual({ title: 'Mixed up attributes' });
    expect(json.json().page.twitter).toEqual({ description: 'Read anyway' });
  });

  it('answers response=json without the other meta tags it read for sites', { timeout: 60_000 }, async () => {
    const url = `${fixture.url}/blog/script-override`;
    const res = await t.inject({
      method: 'GET',
      url: `/render/url?${new URLSearchParams({ url, response: 'json' })}`,
    });
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    const page = res.json().page;
    expect(page.title).toBe('Unwanted default heading');
    expect(Object.keys(page).sort()).toEqual(
      [
        'canonical',
        'description',
        'finalUrl',
        'icons',
        'lang',
        'openGraph',
        'status',
        'themeColor',
        'title',
        'twitter',
      ].sort(),
    );
  });
});
