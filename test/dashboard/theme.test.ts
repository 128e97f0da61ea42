import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { csrfOf, type DashClient, dashClient, signedIn } from '../helpers/dashboard.js';
import { expectError } from '../helpers/errors.js';
import { pixelAt, pngSize } from '../helpers/png.js';
import { pngBomb } from '../helpers/servers.js';
import { withThemedTemplates } from '../helpers/theme-app.js';
import { UNTHEMED } from '../helpers/themed-template.js';

let base: TestApp;
let t: TestApp;
let alice: DashClient;
let mallory: DashClient;
let malloryId: string;
const MALLORY = 'mallory@hostile.test';

beforeAll(async () => {
  base = await startTestApp({ renderConcurrency: 2, renderQueueSize: 64 });
  t = await withThemedTemplates(base);
  const m = await t.modules.accounts.accounts.createAccount({ name: 'Mallory', email: MALLORY, plan: 'pro' });
  malloryId = m.id;
  alice = await signedIn(t);
  mallory = await signedIn(t, MALLORY);
});
afterAll(async () => {
  await t?.close();
  await base?.close();
});

const hex = (rgb: number[]) => `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`.toUpperCase();
const rgbAt = async (png: Buffer, x: number, y: number) => hex((await pixelAt(png, x, y)).slice(0, 3));

/** A JSON call from the page's script: CSRF token in the header. */
async function preview(c: DashClient, body: Record<string, string>, csrf?: string) {
  const token = csrf ?? csrfOf((await c.get('/dashboard/theme')).body);
  return t.app.inject({
    method: 'POST',
    url: '/dashboard/theme/preview',
    cookies: c.cookies,
    headers: { 'content-type': 'application/json', 'x-csrf-token': token, origin: 'http://localhost:80' },
    payload: JSON.stringify(body),
  });
}

async function upload(c: DashClient, bytes: Buffer) {
  const token = csrfOf((await c.get('/dashboard/theme')).body);
  return t.app.inject({
    method: 'POST',
    url: '/dashboard/theme/logo',
    cookies: c.cookies,
    headers: { 'content-type': 'application/octet-stream', 'x-csrf-token': token },
    payload: bytes,
  });
}

const redSquare = (side: number) =>
  sharp({ create: { width: side, height: side, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 1 } } })
    .png()
    .toBuffer();

describe('the Theme page', () => {
  it('is in the navigation, shows the defaults before a theme is saved, and has no inline script', async () => {
    const res = await alice.get('/dashboard/theme');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<a href="/dashboard/theme" aria-current="page">');
    expect(res.body).toContain('name="background" value="#0F172A"');
    expect(res.body).toContain('name="text" value="#F8FAFC"');
    expect(res.body).toContain('Not saved yet');
    expect(res.body).toMatch(/<option value="themed"[^>]*selected>themed<\/option>/);
    expect(res.body).toContain(
      '<option value="blog" data-sizes="og" data-themed="0" >blog (own look)</option>',
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
    const res = await preview(alice, {
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

    const story = await preview(alice, {
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
    const own = await preview(alice, {
      template: 'blog',
      size: 'og',
      background: '#0B3D2E',
      text: '#FFFFFF',
      accent: '#FF5500',
      font: 'sans',
    });
    expect(own.statusCode).toBe(200);
    expect(await rgbAt(own.rawPayload, 600, 600)).not.toBe('#0B3D2E');
    await expectError(
      await preview(alice, {
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
      await preview(alice, {
        template: 'blog',
        size: 'story',
        background: '#000000',
        text: '#FFFFFF',
        accent: '#FF5500',
        font: 'sans',
      }),
      400,
      'size must be one of: og (for template blog)',
    );
    await expectError(
      await preview(
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
  it('uploads a file, stores it normalised, draws it in the preview, and removes it', async () => {
    const res = await upload(alice, await redSquare(800));
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

describe('a hostile second account', () => {
  it('cannot see or change the first account’s theme', async () => {
    await upload(alice, await redSquare(64));
    const page = await mallory.get('/dashboard/theme');
    expect(page.body).toContain('name="background" value="#0F172A"');
    expect(page.body).not.toContain('#FEF3C7');
    expect((await mallory.get('/dashboard/theme/logo.png')).statusCode).toBe(404);
    const drawn = await mallory.get('/dashboard/theme/preview.png?template=themed&size=og');
    expect(await rgbAt(drawn.rawPayload, 10, 300)).toBe(UNTHEMED.background);
    const csrf = csrfOf(page.body);
    await mallory.post('/dashboard/theme', {
      _csrf: csrf,
      background: '#000000',
      text: '#FFFFFF',
      accent: '#00FF00',
      font: 'sans',
      logoUrl: '',
    });
    await mallory.post('/dashboard/theme/reset', { _csrf: csrf });
    expect(await t.modules.themes.get(t.account.id)).toMatchObject({ background: '#FEF3C7' });
    expect((await t.modules.themes.get(t.account.id))?.logo).toBeDefined();
  });

  it('gets a clear refusal for a huge logo, a decompression bomb and a logo URL to a private address', async () => {
    await expectError(
      await upload(mallory, Buffer.alloc(3 * 1024 * 1024, 1)),
      413,
      'logo is larger than 1 MB',
    );
    await expectError(
      await upload(mallory, pngBomb(30_000, 30_000)),
      422,
      'logo has more than 16 megapixels',
    );
    await expectError(
      await upload(mallory, Buffer.from('GIF89a not really')),
      422,
      'logo could not be decoded as GIF',
    );
    const csrf = csrfOf((await mallory.get('/dashboard/theme')).body);
    for (const url of [
      'http://127.0.0.1:9/logo.png',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/x.png',
    ]) {
      const res = await mallory.post('/dashboard/theme', {
        _csrf: csrf,
        background: '#000000',
        text: '#FFFFFF',
        accent: '#00FF00',
        font: 'sans',
        logoUrl: url,
      });
      expect(res.statusCode, url).toBe(400);
      expect(res.body, url).toContain('logoUrl points to an address that is not allowed.');
    }
    expect((await t.modules.themes.read(malloryId))?.logo).toBeUndefined();
  });

  it('a flood of previews is bounded to its own share: others still get their cards and previews', async () => {
    const csrf = csrfOf((await mallory.get('/dashboard/theme')).body);
    const body = {
      template: 'themed',
      size: 'story',
      background: '#000000',
      text: '#FFFFFF',
      accent: '#00FF00',
      font: 'sans',
    };
    const flood = Array.from({ length: 30 }, () => preview(mallory, body, csrf));
    const card = base.inject({ method: 'GET', url: '/render/template?template=saas&title=Still%20here' });
    const mine = preview(alice, { ...body, accent: '#123456' });
    const statuses = (await Promise.all(flood)).map((r) => r.statusCode);
    expect((await card).statusCode).toBe(200);
    expect((await mine).statusCode).toBe(200);
    // One drawing and one waiting at a time: the rest are refused at once.
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(4);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(26);
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
  });
});
