import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { csrfOf, type DashClient, dashClient, signedIn } from '../helpers/dashboard.js';
import { expectError } from '../helpers/errors.js';
import { pngSize } from '../helpers/png.js';
import { previewCall, redSquare, rgbAt, uploadLogo, withThemedTemplates } from '../helpers/theme-app.js';
import { UNTHEMED } from '../helpers/themed-template.js';

// The Theme page over HTTP; a hostile second account is theme-tenants.test.ts.
let base: TestApp;
let t: TestApp;
let alice: DashClient;

beforeAll(async () => {
  base = await startTestApp();
  t = await withThemedTemplates(base);
  alice = await signedIn(t);
});
afterAll(async () => {
  await t?.close();
  await base?.close();
});

describe('the Theme page', () => {
  it('is in the navigation, shows the defaults before a theme is saved, and has no inline script', async () => {
    const res = await alice.get('/dashboard/theme');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<a href="/dashboard/theme" aria-current="page">');
    expect(res.body).toContain('name="background" value="#0F172A"');
    expect(res.body).toContain('name="text" value="#F8FAFC"');
    expect(res.body).toContain('Not saved yet');
    // The first template that draws themes is selected (whichever that is among the built-ins).
    expect(res.body).toMatch(/<option value="[a-z-]+" data-sizes="[a-z,]+" data-themed="1" selected>/);
    expect(res.body).toContain('<option value="themed" data-sizes="og,square,story" data-themed="1" ');
    expect(res.body).toContain(
      '<option value="plain" data-sizes="og" data-themed="0" >plain (own look)</option>',
    );
    expect(res.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(res.body).not.toMatch(/\sstyle=/);
    expect(res.body).toMatch(/<script src="\/dashboard\/assets\/theme\.js\?v=[^"]+" defer><\/script>/);
  });

  it('sends a signed-out visitor to sign-in, and refuses the preview call with 401', async () => {
    const res = await dashClient(t).get('/dashboard/theme');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/sign-in?from=app&next=%2Fdashboard%2Ftheme');
    const anon = dashClient(t);
    await anon.get('/dashboard/sign-in');
    const call = await t.app.inject({
      method: 'POST',
      url: '/dashboard/theme/preview',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    await expectError(call, 401, 'Your session has ended; sign in again');
  });

  it('saves colours and font from the form, and shows them again', async () => {
    const csrf = csrfOf((await alice.get('/dashboard/theme')).body);
    const res = await alice.post('/dashboard/theme', {
      _csrf: csrf,
      background: '#fef3c7',
      text: '1f2937',
      accent: '#D97706',
      font: 'serif',
      logoUrl: '',
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/theme?notice=saved');
    const page = await alice.get('/dashboard/theme?notice=saved');
    expect(page.body).toContain('Theme saved. Cards drawn from now on use it.');
    expect(page.body).toContain('name="background" value="#FEF3C7"');
    expect(page.body).toContain('name="text" value="#1F2937"');
    expect(page.body).toMatch(/<option value="serif" selected>/);
    expect(await t.modules.themes.get(t.account.id)).toMatchObject({
      background: '#FEF3C7',
      text: '#1F2937',
      accent: '#D97706',
      font: 'serif',
    });
  });

  it('sends back a low-contrast pair with the ratio, keeping what was typed, and saves nothing', async () => {
    const before = await t.modules.themes.read(t.account.id);
    const csrf = csrfOf((await alice.get('/dashboard/theme')).body);
    const res = await alice.post('/dashboard/theme', {
      _csrf: csrf,
      background: '#FFFFFF',
      text: '#EEEEEE',
      accent: '#D97706',
      font: 'sans',
      logoUrl: '',
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain(
      'text colour #EEEEEE on background #FFFFFF has a contrast ratio of 1.16:1; at least 3:1 is needed (WCAG large text).',
    );
    expect(res.body).toContain('name="text" value="#EEEEEE"');
    expect(await t.modules.themes.read(t.account.id)).toEqual(before);
  });

  it('refuses a save without the CSRF token', async () => {
    const res = await alice.post('/dashboard/theme', { background: '#000000', text: '#FFFFFF' });
    expect(res.statusCode).toBe(403);
    expect((await t.modules.themes.get(t.account.id))?.background).toBe('#FEF3C7');
  });
});

describe('the live preview', () => {
  it('draws the unsaved values (theme colours on pixels), at the chosen size', async () => {
    const res = await previewCall(t, alice, {
      template: 'themed',
      size: 'og',
      background: '#0B3D2E',
      text: '#FFFFFF',
      accent: '#FF5500',
      font: 'sans',
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(pngSize(res.rawPayload)).toEqual({ width: 1200, height: 630 });
    expect(await rgbAt(res.rawPayload, 10, 10)).toBe('#FF5500');
    expect(await rgbAt(res.rawPayload, 10, 300)).toBe('#0B3D2E');
    // Nothing was saved.
    expect((await t.modules.themes.get(t.account.id))?.background).toBe('#FEF3C7');

    const story = await previewCall(t, alice, {
      template: 'themed',
      size: 'story',
      background: '#0B3D2E',
      text: '#FFFFFF',
      accent: '#FF5500',
      font: 'sans',
    });
    expect(pngSize(story.rawPayload)).toEqual({ width: 1080, height: 1920 });
  });

  it('shows a template that does not draw themes in its own look, and refuses bad values as JSON', async () => {
    const own = await previewCall(t, alice, {
      template: 'plain',
      size: 'og',
      background: '#0B3D2E',
      text: '#FFFFFF',
      accent: '#FF5500',
      font: 'sans',
    });
    expect(own.statusCode).toBe(200);
    for (const template of ['product', 'saas']) {
      const other = await previewCall(t, alice, {
        template,
        size: 'og',
        background: '#0B3D2E',
        text: '#FFFFFF',
        accent: '#FF5500',
        font: 'sans',
      });
      expect(other.statusCode, template).toBe(200);
      expect(pngSize(other.rawPayload), template).toEqual({ width: 1200, height: 630 });
    }
    expect(await rgbAt(own.rawPayload, 10, 300)).toBe(UNTHEMED.background);
    expect(await rgbAt(own.rawPayload, 10, 10)).toBe(UNTHEMED.accent);
    await expectError(
      await previewCall(t, alice, {
        template: 'themed',
        size: 'og',
        background: 'green',
        text: '#FFFFFF',
        accent: '#FF5500',
        font: 'sans',
      }),
      400,
      'background must be a hex colour like #1A2B3C (got "green")',
    );
    await expectError(
      await previewCall(t, alice, {
        template: 'plain',
        size: 'story',
        background: '#000000',
        text: '#FFFFFF',
        accent: '#FF5500',
        font: 'sans',
      }),
      400,
      'size must be one of: og (for template plain)',
    );
    await expectError(
      await previewCall(
        t,
        alice,
        {
          template: 'themed',
          size: 'og',
          background: '#000000',
          text: '#FFFFFF',
          accent: '#FF5500',
          font: 'sans',
        },
        'forged',
      ),
      403,
      'This form has expired or did not come from this dashboard. Go back, reload the page and try again.',
    );
  });

  it('without script, the page’s preview image is the saved theme', async () => {
    const res = await alice.get('/dashboard/theme/preview.png?template=themed&size=og');
    expect(res.statusCode).toBe(200);
    expect(await rgbAt(res.rawPayload, 10, 300)).toBe('#FEF3C7');
    expect(await rgbAt(res.rawPayload, 10, 10)).toBe('#D97706');
  });
});

describe('the logo', () => {
  it('refuses an upload without a session or without the CSRF token, as JSON', async () => {
    const png = await redSquare(16);
    const anon = await t.app.inject({
      method: 'POST',
      url: '/dashboard/theme/logo',
      headers: { 'content-type': 'application/octet-stream' },
      payload: png,
    });
    await expectError(anon, 401, 'Your session has ended; sign in again');
    const forged = await t.app.inject({
      method: 'POST',
      url: '/dashboard/theme/logo',
      cookies: alice.cookies,
      headers: { 'content-type': 'application/octet-stream', 'x-csrf-token': 'forged' },
      payload: png,
    });
    await expectError(
      forged,
      403,
      'This form has expired or did not come from this dashboard. Go back, reload the page and try again.',
    );
    expect((await t.modules.themes.read(t.account.id))?.logo).toBeUndefined();
  });

  it('uploads a file, stores it normalised, draws it in the preview, and removes it', async () => {
    const res = await uploadLogo(t, alice, await redSquare(800));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ logo: { width: 512, height: 512 } });
    const logo = await alice.get('/dashboard/theme/logo.png');
    expect(logo.headers['content-type']).toBe('image/png');
    expect(pngSize(logo.rawPayload)).toEqual({ width: 512, height: 512 });
    const drawn = await alice.get('/dashboard/theme/preview.png?template=themed&size=og');
    // The fixture draws the logo at a quarter of its size, 40 px from the bottom-right corner.
    expect(await rgbAt(drawn.rawPayload, 1200 - 40 - 64, 630 - 40 - 64)).toBe('#FF0000');

    const csrf = csrfOf((await alice.get('/dashboard/theme')).body);
    const removed = await alice.post('/dashboard/theme/logo/remove', { _csrf: csrf });
    expect(removed.headers.location).toBe('/dashboard/theme?notice=logo-removed');
    expect((await t.modules.themes.get(t.account.id))?.logo).toBeUndefined();
    expect((await alice.get('/dashboard/theme/logo.png')).statusCode).toBe(404);
  });
});
