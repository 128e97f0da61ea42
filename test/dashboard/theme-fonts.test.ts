// @module-tag process
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { csrfOf, type DashClient, signedIn } from '../helpers/dashboard.js';
import { serifWoff2 } from '../helpers/fonts.js';

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
    expect(page.body).toMatch(/<td>Brand Serif<\/td><td>700<\/td><td>woff2<\/td><td>\d+ KB<\/td>/);

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
