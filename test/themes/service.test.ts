import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { openStore } from '../../src/storage/open.js';
import type { Store } from '../../src/storage/store.js';
import { createThemeService, type ThemeService } from '../../src/themes/service.js';
import { useArtworkFixture } from '../helpers/artwork.js';
import { fakeClock } from '../helpers/clock.js';
import { pngBomb } from '../helpers/servers.js';

const artworkFx = useArtworkFixture();
const CONFIG = { themeLogoMaxBytes: 1024 * 1024, themeLogoMaxPixels: 16_000_000, themeCacheSeconds: 1 };

let dir: string;
let store: Store;
let themes: ThemeService;
let n = 0;
async function newAccount(): Promise<string> {
  const id = `acc_theme${String(++n).padStart(11, '0')}`;
  await store.createAccount({ id, name: 'T', email: `t${n}@themes.test`, plan: 'pro', createdAt: 1 });
  return id;
}

/** The AppError `p` rejects with, as status code and message. */
async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected an AppError, got ${String(err)}`);
  return { code: err.code, message: err.message };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-themes-'));
  store = await openStore({ databaseUrl: '', dataDir: dir, databaseSchema: 'public' });
  themes = createThemeService(CONFIG, { store, artwork: artworkFx.artwork() });
});
afterAll(async () => {
  await themes?.close();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('colours and font', () => {
  it('stores colours as #RRGGBB whatever the spelling, and the version is the content hash', async () => {
    const id = await newAccount();
    const saved = await themes.set(id, { background: 'fff', text: '#1a2b3c', accent: '#F0a', font: 'Serif' });
    expect(saved).toMatchObject({ background: '#FFFFFF', text: '#1A2B3C', accent: '#FF00AA', font: 'serif' });
    const expected = createHash('sha256')
      .update(JSON.stringify(['#FFFFFF', '#1A2B3C', '#FF00AA', 'serif', '']))
      .digest('hex');
    expect(saved.version).toBe(expected);
    expect(await themes.get(id)).toEqual({
      background: '#FFFFFF',
      text: '#1A2B3C',
      accent: '#FF00AA',
      font: 'serif',
      version: expected,
    });
    // Another spelling of the same colours is the same theme.
    expect((await themes.set(id, { background: '#FFFFFF', accent: 'ff00aa' })).version).toBe(expected);
  });

  it('refuses a colour that is not hex and a font that is not bundled, naming the field', async () => {
    const id = await newAccount();
    expect(await refusal(themes.set(id, { accent: 'red' }))).toEqual({
      code: 'bad_request',
      message: 'accent must be a hex colour like #1A2B3C (got "red")',
    });
    expect(await refusal(themes.set(id, { font: 'comic sans' }))).toEqual({
      code: 'bad_request',
      message: 'font must be one of: sans, serif',
    });
    expect(await themes.read(id)).toBeUndefined();
  });

  it('refuses text whose contrast with the background is below 3:1, giving the ratio', async () => {
    const id = await newAccount();
    expect(await refusal(themes.set(id, { background: '#888888', text: '#777777' }))).toEqual({
      code: 'bad_request',
      message:
        'text colour #777777 on background #888888 has a contrast ratio of 1.26:1; at least 3:1 is needed (WCAG large text)',
    });
    // 2.99:1 is still refused (the ratio is never rounded up to pass).
    expect((await refusal(themes.set(id, { background: '#FFFFFF', text: '#959595' }))).message).toMatch(
      /contrast ratio of 2\.\d\d:1/,
    );
    // Exactly readable pairs pass; the default text colour is checked against a new background.
    await expect(themes.set(id, { background: '#FFFFFF', text: '#000000' })).resolves.toBeDefined();
    expect(await refusal(themes.set(id, { background: '#000000' }))).toMatchObject({ code: 'bad_request' });
  });
});

describe('logo', () => {
  it('normalises an upload to a PNG within 512×512 and keeps its transparency', async () => {
    const id = await newAccount();
    // 1024×600: left half transparent, right half opaque red.
    const file = await sharp({
      create: { width: 1024, height: 600, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .composite([
        {
          input: {
            create: { width: 512, height: 600, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 1 } },
          },
          left: 512,
          top: 0,
        },
      ])
      .webp({ lossless: true })
      .toBuffer();
    const saved = await themes.set(id, { logo: { file } });
    expect(saved.logo).toMatchObject({ width: 512, height: 300 });
    const { data, info } = await sharp(saved.logo!.data).raw().toBuffer({ resolveWithObject: true });
    expect(saved.logo!.data.subarray(1, 4).toString()).toBe('PNG');
    expect(info.channels).toBe(4);
    const px = (x: number, y: number) => [...data.subarray((y * 512 + x) * 4, (y * 512 + x) * 4 + 4)];
    expect(px(10, 150)[3]).toBe(0);
    expect(px(500, 150)).toEqual([255, 0, 0, 255]);
    expect(saved.logo!.sha256).toBe(createHash('sha256').update(saved.logo!.data).digest('hex'));
    // The logo is part of the version.
    const plain = await themes.set(id, { logo: null });
    expect(plain.logo).toBeUndefined();
    expect(plain.version).not.toBe(saved.version);
  });

  it('refuses a file over the size limit (413), a pixel bomb and a file that is not an image (422)', async () => {
    const id = await newAccount();
    expect(await refusal(themes.set(id, { logo: { file: Buffer.alloc(1024 * 1024 + 1) } }))).toEqual({
      code: 'payload_too_large',
      message: 'logo is larger than 1 MB',
    });
    const bomb = pngBomb(20_000, 20_000);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(await refusal(themes.set(id, { logo: { file: bomb } }))).toEqual({
      code: 'unprocessable',
      message: 'logo has more than 16 megapixels',
    });
    expect(await refusal(themes.set(id, { logo: { file: Buffer.from('<svg></svg>') } }))).toEqual({
      code: 'unprocessable',
      message: 'logo is not a supported image (PNG, JPEG, WebP, GIF or AVIF)',
    });
    expect(await themes.read(id)).toBeUndefined();
  });

  it('fetches a logo URL once, when set, never when cards read the theme', async () => {
    const id = await newAccount();
    const before = artworkFx.fx.hits('/image/gif');
    const saved = await themes.set(id, { logo: { url: `${artworkFx.fx.url}/image/gif` } });
    expect(saved.logo).toMatchObject({ width: 64, height: 48 });
    for (let i = 0; i < 5; i++) expect((await themes.get(id))?.logo?.sha256).toBe(saved.logo!.sha256);
    expect(artworkFx.fx.hits('/image/gif')).toBe(before + 1);
  });

  it('refuses a logo URL to a private address (the URL guard), naming logoUrl', async () => {
    const id = await newAccount();
    const guarded = createThemeService(CONFIG, {
      store,
      artwork: artworkFx.artwork({ allowPrivateHosts: [] }),
    });
    try {
      expect(await refusal(guarded.set(id, { logo: { url: `${artworkFx.fx.url}/image/png` } }))).toEqual({
        code: 'unprocessable',
        message: 'logoUrl points to an address that is not allowed',
      });
      expect(
        await refusal(guarded.set(id, { logo: { url: 'http://169.254.169.254/latest/meta-data/' } })),
      ).toEqual({
        code: 'unprocessable',
        message: 'logoUrl points to an address that is not allowed',
      });
    } finally {
      await guarded.close();
    }
    expect(await refusal(themes.set(id, { logo: { url: `${artworkFx.fx.url}/bomb` } }))).toEqual({
      code: 'unprocessable',
      message: 'logoUrl has more than 16 megapixels',
    });
  });
});

describe('the cache in front of the store', () => {
  it('shows a local change at once and another node’s change within the TTL', async () => {
    const clock = fakeClock();
    const cached = createThemeService(CONFIG, { store, artwork: artworkFx.artwork(), clock });
    const id = await newAccount();
    const first = await cached.set(id, { accent: '#111111', background: '#FFFFFF', text: '#000000' });
    expect((await cached.get(id))?.accent).toBe('#111111');
    // Another node writes straight to the database: this node keeps its copy for 1 s.
    await store.setTheme({
      accountId: id,
      ...first,
      accent: '#222222',
      logo: null,
      version: 'other',
      updatedAt: 2,
    });
    clock.advance(999);
    expect((await cached.get(id))?.accent).toBe('#111111');
    clock.advance(1);
    expect((await cached.get(id))?.accent).toBe('#222222');
    // A change through this node is seen at once, and so is a clear.
    await cached.set(id, { accent: '#333333' });
    expect((await cached.get(id))?.accent).toBe('#333333');
    expect(await cached.clear(id)).toBe(true);
    expect(await cached.get(id)).toBeUndefined();
    expect(await cached.clear(id)).toBe(false);
    await cached.close();
  });

  it('keeps answering a theme read in the last 30 s while the database is away, then 503', async () => {
    const clock = fakeClock();
    let down = false;
    const flaky: typeof store = Object.create(store);
    flaky.getTheme = (accountId) =>
      down ? Promise.reject(new Error('connection refused')) : store.getTheme(accountId);
    const cached = createThemeService(CONFIG, { store: flaky, artwork: artworkFx.artwork(), clock });
    const id = await newAccount();
    await cached.set(id, { accent: '#444444' });
    expect((await cached.get(id))?.accent).toBe('#444444');
    down = true;
    clock.advance(29_999);
    expect((await cached.get(id))?.accent).toBe('#444444');
    clock.advance(1);
    const unavailable = {
      code: 'unavailable',
      message: 'Brand themes cannot be read right now; retry shortly',
    };
    expect(await refusal(cached.get(id))).toEqual(unavailable);
    expect(await refusal(cached.get(await newAccount()))).toEqual(unavailable);
    await cached.close();
  });

  it('a draft is validated but not saved', async () => {
    const id = await newAccount();
    const draft = await themes.draft(id, { background: '#ffffff', text: '#000' });
    expect(draft).toMatchObject({ background: '#FFFFFF', text: '#000000', accent: '#6366F1', font: 'sans' });
    expect(await themes.read(id)).toBeUndefined();
    expect((await refusal(themes.draft(id, { background: '#FFFFFF', text: '#FFFFFE' }))).code).toBe(
      'bad_request',
    );
  });

  it("one account's theme is never another's", async () => {
    const a = await newAccount();
    const b = await newAccount();
    await themes.set(a, { accent: '#ABCDEF' });
    expect(await themes.get(b)).toBeUndefined();
    expect(await themes.read(b)).toBeUndefined();
  });
});
