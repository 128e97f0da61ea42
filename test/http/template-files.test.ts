import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CardTheme, ThemeSource } from '../../src/render/template/types.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/errors.js';
import { pixelAt, pngSize } from '../helpers/png.js';

// Custom templates from a fixture directory (CARDSHOT_TEMPLATES_DIR), over real HTTP handling
// and the real takumi renderer.
const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/templates/custom');
let dir: string;
let t: TestApp;
const themes = new Map<string, CardTheme>();
const themeSource: ThemeSource = { get: async (id) => themes.get(id) };

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-templates-'));
  await cp(FIXTURE, dir, { recursive: true });
  t = await startTestApp({ templatesDir: dir }, { themes: themeSource });
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

const post = (payload: Record<string, unknown>, key?: string) =>
  t.inject({
    method: 'POST',
    url: '/render/template',
    payload,
    ...(key ? { headers: { 'x-api-key': key } } : {}),
  });
const get = (query: Record<string, string>) =>
  t.inject({ method: 'GET', url: `/render/template?${new URLSearchParams(query)}` });

const ALLOWED = 'template, title, accent, day, layout, brand, imageUrl, size, theme, format, quality';

describe('a custom template file', () => {
  it('renders over HTTP with its declared fields: the colour field is on the pixels', async () => {
    const res = await post({ template: 'event', title: 'Launch party', accent: '#dc2626', day: 12 });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(pngSize(res.rawPayload)).toEqual({ width: 1200, height: 630 });
    expect(await pixelAt(res.rawPayload, 600, 100)).toEqual([0xdc, 0x26, 0x26, 255]);
    // The default colour when the field is left out; a choice changes the layout.
    const plain = await get({ template: 'event', title: 'Launch party' });
    expect(plain.statusCode).toBe(200);
    expect(await pixelAt(plain.rawPayload, 600, 100)).toEqual([0x25, 0x63, 0xeb, 255]);
    const noBand = await get({ template: 'event', title: 'Launch party', layout: 'plain' });
    expect(await pixelAt(noBand.rawPayload, 600, 100)).toEqual([255, 255, 255, 255]);
    expect(noBand.headers.etag).not.toBe(plain.headers.etag);
  });

  it('normalises values, so #f00 and #FF0000 are one card with one ETag', async () => {
    const a = await get({ template: 'event', title: 'Same', accent: '#f00', day: '3' });
    const b = await post({ template: 'event', title: 'Same', accent: '#FF0000', day: 3 });
    expect(a.statusCode).toBe(200);
    expect(b.headers.etag).toBe(a.headers.etag);
  });

  it('refuses an unknown field by name, with a did-you-mean over its own fields', async () => {
    await expectError(
      await post({ template: 'event', title: 'x', acent: '#FFF' }),
      400,
      `Unknown field "acent" (did you mean "accent"?). Allowed: ${ALLOWED}`,
    );
    await expectError(
      await post({ template: 'event', title: 'x', subtitle: 'no such field here' }),
      400,
      `Unknown field "subtitle". Allowed: ${ALLOWED}`,
    );
  });

  it.each([
    ['a missing required text', { day: 1 }, 'title is required'],
    ['text over its maxLength', { title: 'x'.repeat(121) }, 'title must be at most 120 characters (got 121)'],
    [
      'a colour that is not one',
      { title: 'x', accent: 'red' },
      'accent must be a colour like #1F2937 or #FFF (got "red")',
    ],
    [
      'a colour in a number',
      { title: 'x', accent: 255 },
      'accent must be a colour like #1F2937 or #FFF (got "255")',
    ],
    ['a number past max', { title: 'x', day: 32 }, 'day must be a whole number from 1 to 31 (got "32")'],
    [
      'a fraction for a whole number',
      { title: 'x', day: 1.5 },
      'day must be a whole number from 1 to 31 (got "1.5")',
    ],
    [
      'a number as text in a body',
      { title: 'x', day: '4' },
      'day must be a whole number from 1 to 31 (got "4")',
    ],
    [
      'a choice not offered',
      { title: 'x', layout: 'grid' },
      'layout must be one of: band, plain (got "grid")',
    ],
    [
      'a size it does not support',
      { title: 'x', size: 'twitter' },
      'size must be one of: og, square, story (template event does not lay out at twitter)',
    ],
    [
      'a size that does not exist',
      { title: 'x', size: 'huge' },
      'size must be one of: og, twitter, square, linkedin, story (got "huge"); template event supports og, square, story',
    ],
    [
      'a theme other than none',
      { title: 'x', theme: 'dark' },
      'theme must be "none" (the template\'s own look) or left out for the account\'s theme (got "dark")',
    ],
  ])('400 for %s', async (_what, fields, message) => {
    await expectError(await post({ template: 'event', ...fields }), 400, message);
  });

  it('draws at each declared size', async () => {
    for (const [size, width, height] of [
      ['square', 1080, 1080],
      ['story', 1080, 1920],
    ] as const) {
      const res = await get({ template: 'event', title: 'Sizes', size });
      expect(res.statusCode, size).toBe(200);
      expect(pngSize(res.rawPayload)).toEqual({ width, height });
    }
    // A size the template does not declare names the ones it does.
    await expectError(
      await get({ template: 'event', title: 'x', size: 'twitter' }),
      400,
      'size must be one of: og, square, story (template event does not lay out at twitter)',
    );
    // The built-ins lay out at every size.
    const blog = await get({ template: 'blog', title: 'x', size: 'linkedin' });
    expect(blog.statusCode).toBe(200);
    expect(pngSize(blog.rawPayload)).toEqual({ width: 1200, height: 627 });
  });

  it('is listed by name among the templates a request may name', async () => {
    await expectError(
      await post({ template: 'evnt', title: 'x' }),
      400,
      'template must be one of: blog, product, saas, event, themed (got "evnt")',
    );
  });
});

describe('plans', () => {
  it('403 for a custom template the plan does not list', async () => {
    const account = await t.modules.accounts.accounts.createAccount({
      name: 'Free',
      email: 'free@example.com',
      plan: 'free',
    });
    const { key } = await t.modules.accounts.accounts.createKey({
      accountId: account.id,
      name: 'k',
      environment: 'test',
    });
    await expectError(
      await post({ template: 'event', title: 'x' }, key),
      403,
      'Template not available on your plan',
    );
    expect((await post({ template: 'blog', title: 'x' }, key)).statusCode).toBe(200);
  });
});

describe('themes', () => {
  it("one account's theme never reaches another account's cached card", async () => {
    const other = await t.modules.accounts.accounts.createAccount({
      name: 'Hostile',
      email: 'h@example.com',
      plan: 'pro',
    });
    const { key } = await t.modules.accounts.accounts.createKey({
      accountId: other.id,
      name: 'k',
      environment: 'test',
    });
    themes.set(other.id, {
      background: '#FF00FF',
      text: '#FFFFFF',
      accent: '#FF00FF',
      font: 'sans',
      version: 'hostile-1',
    });
    const body = { template: 'themed', title: 'Shared title' };
    const hostile = await post(body, key);
    expect(await pixelAt(hostile.rawPayload, 5, 5)).toEqual([255, 0, 255, 255]);
    const mine = await post(body);
    expect(mine.statusCode).toBe(200);
    expect(mine.headers.etag).not.toBe(hostile.headers.etag);
    expect(await pixelAt(mine.rawPayload, 5, 5)).toEqual([128, 128, 128, 255]);
    // theme=none gives the template's own look to the themed account (under its own ETag:
    // cards are scoped per account, issue 26 §3).
    const none = await post({ ...body, theme: 'none' }, key);
    expect(none.headers.etag).not.toBe(mine.headers.etag);
    expect(await pixelAt(none.rawPayload, 5, 5)).toEqual([128, 128, 128, 255]);
    // A new theme version is a new card.
    themes.set(other.id, { ...themes.get(other.id)!, background: '#00FF00', version: 'hostile-2' });
    const changed = await post(body, key);
    expect(await pixelAt(changed.rawPayload, 5, 5)).toEqual([0, 255, 0, 255]);
  });
});

describe('hot reload', () => {
  const changed = () =>
    new Promise<void>((resolve) => {
      const off = t.modules.registry.onChange(() => {
        off();
        resolve();
      });
    });

  it('an edit gives a new ETag and new pixels; a broken edit keeps the previous version', async () => {
    const file = path.join(dir, 'themed.tsx');
    const original = await readFile(file, 'utf8');
    const before = await post({ template: 'themed', title: 'Reload' });
    expect(await pixelAt(before.rawPayload, 5, 5)).toEqual([128, 128, 128, 255]);

    const reloaded = changed();
    await writeFile(file, original.replace("'#808080'", "'#0000FF'"));
    await reloaded;
    const after = await post({ template: 'themed', title: 'Reload' });
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(await pixelAt(after.rawPayload, 5, 5)).toEqual([0, 0, 255, 255]);

    await writeFile(file, original.replace('render(fields', 'render(fields,,'));
    await waitForLog(/template not reloaded \(the previous version stays\): .*themed\.tsx:\d+:\d+: /);
    const kept = await post({ template: 'themed', title: 'Reload' });
    expect(kept.headers.etag).toBe(after.headers.etag);

    const removed = changed();
    await rm(file);
    await removed;
    await expectError(
      await post({ template: 'themed', title: 'x' }),
      400,
      'template must be one of: blog, product, saas, event (got "themed")',
    );
    await writeFile(file, original);
  });
});

async function waitForLog(pattern: RegExp): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const line = t.logs.map((l) => String(l.msg)).find((m) => pattern.test(m));
    if (line) return line;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no log line matched ${pattern}`);
}
