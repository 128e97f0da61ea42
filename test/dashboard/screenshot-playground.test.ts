import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { DEFAULT_PLANS, type Plan } from '../../src/auth/plans.js';
import { readShotInput, SHOT_OPTION_FIELDS } from '../../src/dashboard/screenshot-playground.js';
import { CONTENT_SECURITY_POLICY } from '../../src/dashboard/security.js';
import { screenshotPlaygroundPage } from '../../src/dashboard/views/screenshot-playground.js';
import { viewportCatalogue } from '../../src/render/screenshot/viewports.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { csrfOf, type DashClient, signedIn } from '../helpers/dashboard.js';
import { expectError } from '../helpers/errors.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';
import { pngSize } from '../helpers/png.js';

// The screenshot playground over HTTP (app.inject): the page and its controls, the signed URLs
// and curl command it hands out, the plan's limits shown on the controls, and its JSON call.
// The browser side (typing, Capture, the preview) is in browser.test.ts.

let t: TestApp;
let pages: PageServer | undefined;
let c: DashClient;

beforeAll(async () => {
  pages = chromiumAvailable() ? await startPageServer() : undefined;
  t = await startTestApp({ ...(pages ? { allowPrivateHosts: [pages.hostPort] } : {}) });
  c = await signedIn(t);
});
afterAll(async () => {
  await t?.close();
  await pages?.close();
});

const fromHtml = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"');
const previewSrc = (body: string) =>
  fromHtml(/<img id="shot-preview"[^>]* data-src="([^"]+)"/.exec(body)?.[1] ?? '');
const code = (body: string, id: string) =>
  fromHtml(new RegExp(`<code id="${id}"[^>]*>([^<]*)</code>`).exec(body)?.[1] ?? '');

async function userOn(plan: string): Promise<DashClient> {
  const a = await t.modules.accounts.accounts.createAccount({
    name: plan,
    email: `${plan}-${Math.random().toString(36).slice(2)}@shots.test`,
    plan,
  });
  await t.modules.accounts.accounts.createKey({ accountId: a.id, name: 'k', environment: 'production' });
  return signedIn(t, a.email);
}

describe('screenshot playground page', () => {
  it('offers every option as a form control, beside the template playground, under the strict CSP', async () => {
    const res = await c.get('/dashboard/playground/screenshot');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("img-src 'self' data: blob:;");
    const body = res.body;
    for (const name of [
      'url',
      'viewport',
      'waitUntil',
      'selector',
      'waitForSelector',
      'delay',
      'hideSelectors',
      'scale',
      'format',
      'quality',
      'ttl',
      'key',
    ]) {
      expect(body, name).toMatch(new RegExp(`<(input|select)[^>]* name="${name}"`));
    }
    for (const name of ['fullPage', 'darkMode', 'blockAds', 'blockCookieBanners', 'fresh']) {
      expect(body, name).toMatch(
        new RegExp(`<input id="shot-${name}" name="${name}" type="checkbox" value="true"`),
      );
    }
    expect(body).toContain(
      '<nav class="tabs" aria-label="Playgrounds"><a href="/dashboard/playground" >Template cards</a><a href="/dashboard/playground/screenshot" aria-current="page">Screenshots</a></nav>',
    );
    expect(body).toMatch(/<script src="\/dashboard\/assets\/shot-playground\.js\?v=[\w-]+" defer><\/script>/);
    expect(body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(body).not.toMatch(/\sstyle=/);
    // A first visit captures nothing.
    expect(body).not.toContain('data-src=');
    expect((await c.get('/dashboard/playground')).body).toContain(
      '<a href="/dashboard/playground" aria-current="page">Template cards</a>',
    );
    const js = await c.get(/src="(\/dashboard\/assets\/shot-playground\.js\?v=[\w-]+)"/.exec(body)![1]!);
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
  });

  it('signs the request: a preview of the real endpoint, a one-year signed URL and curl, no key on the page', async () => {
    const target = 'http://127.0.0.1:9/a page?x=1';
    const res = await c.get(
      `/dashboard/playground/screenshot?url=${encodeURIComponent(target)}&viewport=desktop&waitUntil=load&format=png&delay=0`,
    );
    expect(res.statusCode, res.body).toBe(200);
    // Defaults (waitUntil=load, PNG, no delay) are left out, as the client library leaves them out.
    const q = 'url=http%3A%2F%2F127.0.0.1%3A9%2Fa%20page%3Fx%3D1&viewport=desktop';
    expect(previewSrc(res.body)).toMatch(
      new RegExp(`^/render/url\\?${q.replace(/[.?%]/g, '\\$&')}&kid=key_\\w+&exp=\\d+&sig=[\\w-]{43}$`),
    );
    const signed = code(res.body, 'shot-signed');
    expect(signed).toMatch(
      new RegExp(
        `^http://localhost/render/url\\?${q.replace(/[.?%]/g, '\\$&')}&kid=key_\\w+&exp=(\\d+)&sig=[\\w-]{43}$`,
      ),
    );
    expect(Number(/exp=(\d+)/.exec(signed)![1])).toBeGreaterThan(Date.now() / 1000 + 364 * 86_400);
    expect(code(res.body, 'shot-curl')).toBe(
      `curl -sS -H "x-api-key: $CARDSHOT_KEY" \\\n  'http://localhost/render/url?${q}' \\\n  -o page.png`,
    );
    expect(res.body).not.toContain(t.key.key);
    expect(res.body).not.toContain('cssig_');
    // The preview URL is the API's own: it refuses the loopback target as any request would.
    await expectError(
      await t.app.inject({ method: 'GET', url: previewSrc(res.body) }),
      400,
      'url points to an address that is not allowed',
    );
  });

  it.skipIf(!chromiumAvailable())(
    'the preview URL is a real capture through GET /render/url',
    { tags: ['chromium'], timeout: 60_000 },
    async () => {
      const res = await c.get(
        `/dashboard/playground/screenshot?url=${encodeURIComponent(`${pages!.url}/split`)}`,
      );
      const shot = await t.app.inject({ method: 'GET', url: previewSrc(res.body) });
      expect(shot.statusCode, shot.body).toBe(200);
      expect(shot.headers['content-type']).toBe('image/png');
      expect(pngSize(shot.rawPayload)).toEqual({ width: 1200, height: 630 });
    },
  );

  it('shows the API’s message for a bad request, with 400', async () => {
    const res = await c.get('/dashboard/playground/screenshot?url=ftp%3A%2F%2Fexample.com%2F');
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain(
      '<div class="alert error" role="alert" id="shot-error" >url must be an absolute http or https URL (for example https://example.com/)</div>',
    );
    expect(res.body).not.toContain('data-src=');
  });

  it('disables the viewports a plan does not have, and says why', async () => {
    const free = await userOn('free');
    const body = (await free.get('/dashboard/playground/screenshot')).body;
    expect(body).toContain('<option value="og" selected >og · 1200×630</option>');
    expect(body).toContain(
      '<option value="desktop"  disabled>desktop · 1280×800 (not on your plan)</option>',
    );
    expect(body).toContain(
      '<option value="mobile"  disabled>mobile · 390×844 @3× (not on your plan)</option>',
    );
    const refused = await free.get(
      `/dashboard/playground/screenshot?url=${encodeURIComponent('https://example.com/')}&viewport=mobile`,
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('Viewport &quot;mobile&quot; is not available on your plan; use og');
  });

  // The free plan has every option but these four.
  it('disables the options a plan does not allow, with the reason beside each', async () => {
    const free = await userOn('free');
    const body = (await free.get('/dashboard/playground/screenshot')).body;
    for (const name of ['fullPage', 'blockAds', 'blockCookieBanners', 'fresh']) {
      expect(body, name).toMatch(
        new RegExp(
          `<input id="shot-${name}" name="${name}" type="checkbox" value="true"  disabled aria-describedby="shot-${name}-hint">`,
        ),
      );
      expect(body, name).toContain(
        `<p class="field-hint refused" id="shot-${name}-hint" data-refused="true">Not available on your plan (free).</p>`,
      );
    }
    for (const name of ['darkMode', 'selector', 'delay', 'format', 'scale']) {
      expect(body, name).not.toMatch(new RegExp(`id="shot-${name}"[^>]* disabled`));
    }
    const pro = (await c.get('/dashboard/playground/screenshot')).body;
    expect(pro).not.toContain('Not available on your plan');
  });

  it('renders a plan’s option list as enabled and disabled controls (the view alone)', async () => {
    const free = DEFAULT_PLANS.find((p) => p.name === 'free')!;
    if (free.screenshots === false) throw new Error('free takes screenshots');
    const plan = {
      ...free,
      screenshots: { ...free.screenshots, options: ['selector', 'darkMode', 'format', 'quality'] },
    } as Plan;
    const page = screenshotPlaygroundPage({
      account: t.account,
      csrf: 'token',
      plan,
      keys: [t.key.record],
      viewports: [...viewportCatalogue([]).values()],
      input: readShotInput({ url: 'https://example.com/', fullPage: 'true', format: 'webp' }),
      result: null,
      error: null,
    }).value;
    expect(page).toMatch(
      /<input id="shot-fullPage" name="fullPage" type="checkbox" value="true" {2}disabled /,
    );
    expect(page).toMatch(
      /<input id="shot-darkMode" name="darkMode" type="checkbox" value="true" {2,}aria-describedby/,
    );
    expect(page).toMatch(/<input id="shot-delay" [^>]* disabled data-plan-off /);
    expect(page).toMatch(/<select id="shot-scale" name="scale" disabled /);
    expect(page).toContain('<option value="webp" selected>WebP</option>');
    expect(page.match(/Not available on your plan \(free\)\./g)).toHaveLength(SHOT_OPTION_FIELDS.length - 4);
  });

  it('tells an account without screenshots so, and disables Capture', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-shotpg-'));
    const plansFile = path.join(dir, 'plans.json');
    await writeFile(
      plansFile,
      JSON.stringify({
        cards: { templates: '*', screenshots: false, rateLimit: { requests: 10, windowSeconds: 60 } },
      }),
    );
    const other = await startTestApp({ plansFile }, { plan: 'cards' });
    onTestFinished(async () => {
      await other.close();
      await rm(dir, { recursive: true, force: true });
    });
    const oc = await signedIn(other);
    const body = (await oc.get('/dashboard/playground/screenshot')).body;
    expect(body).toContain('<strong>Screenshots are not available on your plan.</strong>');
    expect(body).toMatch(/<button class="button primary" type="submit" disabled>Capture<\/button>/);
    const res = await oc.get(
      `/dashboard/playground/screenshot?url=${encodeURIComponent('https://example.com/')}`,
    );
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Screenshots are not available on your plan');
  });
});

describe('screenshot playground JSON call', () => {
  it('needs the CSRF header and a session, and answers the API’s messages as JSON', async () => {
    const csrf = csrfOf((await c.get('/dashboard/playground/screenshot')).body);
    const call = (headers: Record<string, string>, payload: object, cookies = c.cookies) =>
      t.app.inject({
        method: 'POST',
        url: '/dashboard/playground/screenshot/preview',
        cookies,
        headers,
        payload,
      });
    await expectError(
      await call({}, { url: 'https://example.com/' }),
      403,
      expect.stringContaining('This form has expired'),
    );
    await expectError(
      await call({ 'x-csrf-token': csrf }, { url: '' }),
      400,
      'url is required (an absolute http or https URL)',
    );
    await expectError(
      await call({ 'x-csrf-token': csrf }, { url: 'https://example.com/' }, {}),
      401,
      'Your session has ended; sign in again',
    );
  });
});
