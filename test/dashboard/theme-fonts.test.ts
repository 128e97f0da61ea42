// @module-tag process
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { csrfOf, type DashClient, signedIn } from '../helpers/dashboard.js';
import { hostileFonts, serifWoff, serifWoff2 } from '../helpers/fonts.js';
import { secondAccount } from '../helpers/webhooks.js';

// The Theme page's fonts: the uploaded families to choose from, and the account's font list.
let t: TestApp;
let alice: DashClient;
beforeAll(async () => {
  t = await startTestApp();
  alice = await signedIn(t);
});
afterAll(async () => t?.close());

describe('the Theme page and uploaded fonts', () => {
  it('says how to upload before there are fonts, then lists them and saves the family chosen', async () => {
    const empty = await alice.get('/dashboard/theme');
    expect(empty.body).toContain('No fonts yet.');
    expect(empty.body).toMatch(/<select id="theme-font-family" name="fontFamily"[^>]*disabled>/);

    const up = await t.inject({
      method: 'POST',
      url: '/fonts?family=Brand%20Serif',
      headers: { 'content-type': 'font/woff2' },
      payload: serifWoff2(),
    });
    expect(up.statusCode).toBe(201);
    const page = await alice.get('/dashboard/theme');
    expect(page.body).toContain('<option value="Brand Serif" >Brand Serif</option>');
    expect(page.body).toMatch(
      /<td>Brand Serif<\/td><td>700<\/td><td title="font_[\w-]+">woff2, \d+ KB<\/td>/,
    );

    const res = await alice.post('/dashboard/theme', {
      _csrf: csrfOf(page.body),
      background: '#FBF7F0',
      text: '#1C1917',
      accent: '#B45309',
      font: 'sans',
      fontFamily: 'Brand Serif',
      logoUrl: '',
    });
    expect(res.statusCode).toBe(303);
    const saved = await alice.get('/dashboard/theme');
    expect(saved.body).toContain('<option value="Brand Serif" selected>Brand Serif</option>');
    expect((await t.modules.themes.get(t.account.id))?.customFont?.family).toBe('Brand Serif');
  });

  it("refuses a family the account did not upload, in the page's words", async () => {
    const page = await alice.get('/dashboard/theme');
    const res = await alice.post('/dashboard/theme', {
      _csrf: csrfOf(page.body),
      background: '#FBF7F0',
      text: '#1C1917',
      accent: '#B45309',
      font: 'sans',
      fontFamily: 'Someone Else',
      logoUrl: '',
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain(
      'fontFamily &quot;Someone Else&quot; is not one of this account&#39;s fonts; upload it first (POST /fonts).',
    );
  });
});

describe('uploading and removing fonts from the Theme page', () => {
  const upload = async (c: DashClient, file: Buffer, query = '', token?: string) =>
    t.app.inject({
      method: 'POST',
      url: `/dashboard/theme/fonts${query}`,
      cookies: c.cookies,
      headers: {
        'content-type': 'application/octet-stream',
        'x-csrf-token': token ?? csrfOf((await c.get('/dashboard/theme')).body),
      },
      payload: file,
    });

  it('keeps a checked font, lists it, and removes it; another account can neither see nor remove it', async () => {
    const res = await upload(alice, serifWoff(), '?family=Upload%20Serif');
    expect(res.statusCode, res.body).toBe(201);
    const font = res.json() as { id: string; family: string; weight: number; format: string };
    expect(font).toMatchObject({ family: 'Upload Serif', weight: 700, format: 'woff' });
    expect((await t.modules.themes.fonts!.list(t.account.id)).map((f) => f.id)).toContain(font.id);

    const page = await alice.get('/dashboard/theme?notice=font-added');
    expect(page.body).toContain('Font uploaded.');
    expect(page.body).toMatch(new RegExp(`<td title="${font.id}">woff, \\d+ KB</td>`));
    expect(page.body).toContain('<option value="Upload Serif" >Upload Serif</option>');

    const hostile = await secondAccount(t, 'Font thief');
    const bob = await signedIn(t, (await t.store.getAccount(hostile.accountId))!.email);
    expect((await bob.get('/dashboard/theme')).body).not.toContain(font.id);
    const stolen = await bob.post(`/dashboard/theme/fonts/${font.id}/remove`, {
      _csrf: csrfOf((await bob.get('/dashboard/theme')).body),
    });
    expect(stolen.statusCode).toBe(404);
    expect((await t.modules.themes.fonts!.list(t.account.id)).map((f) => f.id)).toContain(font.id);

    const removed = await alice.post(`/dashboard/theme/fonts/${font.id}/remove`, {
      _csrf: csrfOf((await alice.get('/dashboard/theme')).body),
    });
    expect(removed.statusCode).toBe(303);
    expect(removed.headers.location).toBe('/dashboard/theme?notice=font-removed');
    expect((await t.modules.themes.fonts!.list(t.account.id)).map((f) => f.id)).not.toContain(font.id);
  });

  it('refuses a broken font with its reason, a file over the limit, and a request without the CSRF token', async () => {
    const before = (await t.modules.themes.fonts!.list(t.account.id)).length;
    const [truncated] = hostileFonts();
    const bad = await upload(alice, truncated!.file);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: truncated!.reason });

    const big = await upload(alice, Buffer.alloc(10 * 1024 * 1024 + 1));
    expect(big.statusCode).toBe(413);
    expect(big.json()).toEqual({ error: 'font must be at most 10 MB (10485760 bytes)' });

    const forged = await upload(alice, serifWoff2(), '', 'forged');
    expect(forged.statusCode).toBe(403);
    const anon = await t.app.inject({
      method: 'POST',
      url: '/dashboard/theme/fonts',
      headers: { 'content-type': 'application/octet-stream' },
      payload: serifWoff2(),
    });
    expect(anon.statusCode).toBe(401);
    expect((await t.modules.themes.fonts!.list(t.account.id)).length).toBe(before);
  });
});
