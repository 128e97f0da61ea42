import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { csrfOf, type DashClient, signedIn } from '../helpers/dashboard.js';
import { expectError } from '../helpers/errors.js';
import { pngBomb } from '../helpers/servers.js';
import { previewCall, redSquare, rgbAt, uploadLogo, withThemedTemplates } from '../helpers/theme-app.js';
import { UNTHEMED } from '../helpers/themed-template.js';

// Many tenants on the Theme page: a second, hostile account next to the test account.
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
  await t.modules.themes.set(t.account.id, {
    background: '#FEF3C7',
    text: '#1F2937',
    accent: '#D97706',
    font: 'serif',
  });
  alice = await signedIn(t);
  mallory = await signedIn(t, MALLORY);
});
afterAll(async () => {
  await t?.close();
  await base?.close();
});

describe('a hostile second account', () => {
  it('cannot see or change the first account’s theme', async () => {
    await uploadLogo(t, alice, await redSquare(64));
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
      await uploadLogo(t, mallory, Buffer.alloc(3 * 1024 * 1024, 1)),
      413,
      'logo is larger than 1 MB',
    );
    await expectError(
      await uploadLogo(t, mallory, pngBomb(30_000, 30_000)),
      422,
      'logo has more than 16 megapixels',
    );
    await expectError(
      await uploadLogo(t, mallory, Buffer.from('GIF89a not really')),
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
    const flood = Array.from({ length: 30 }, () => previewCall(t, mallory, body, csrf));
    const card = base.inject({ method: 'GET', url: '/render/template?template=saas&title=Still%20here' });
    const mine = previewCall(t, alice, { ...body, accent: '#123456' });
    const statuses = (await Promise.all(flood)).map((r) => r.statusCode);
    expect((await card).statusCode).toBe(200);
    expect((await mine).statusCode).toBe(200);
    // One drawing and one waiting at a time: the rest are refused at once.
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(4);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(26);
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
  });
});
