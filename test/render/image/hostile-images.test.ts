import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { TEMPLATES } from '../../helpers/builtins.js';
import { type DashClient, signedIn } from '../../helpers/dashboard.js';
import { expectError } from '../../helpers/errors.js';
import {
  type HostileImageServer,
  scanBombJpeg,
  startHostileImageServer,
  textChunkBombPng,
} from '../../helpers/hostile-images.js';
import { uploadLogo } from '../../helpers/theme-app.js';

// Issue 26 §1 through the app: a hostile account's images are refused with a 422 naming why,
// quickly, and a victim account beside it keeps getting its cards. Load figures (victims' p50,
// RSS, sign-in time under a flood) are in hostile-images-load.test.ts.
let t: TestApp;
let fx: HostileImageServer;
let mallory: DashClient;
let malloryId: string;
let malloryKey: string;
const artworkTemplate = Object.values(TEMPLATES).find((d) => d.uses.artwork)!.name;
const SCANS = 'has 4114 JPEG scans; at most 32 are accepted';
const TEXT = 'has more than 1 MB of PNG text and metadata chunks (tEXt, zTXt, iTXt, iCCP, eXIf)';

beforeAll(async () => {
  fx = await startHostileImageServer();
  t = await startTestApp({ allowPrivateHosts: [fx.hostPort] });
  const m = await t.modules.accounts.accounts.createAccount({
    name: 'Mallory',
    email: 'mallory@hostile.test',
    plan: 'pro',
  });
  malloryId = m.id;
  malloryKey = (
    await t.modules.accounts.accounts.createKey({ accountId: m.id, name: 'k', environment: 'test' })
  ).key;
  mallory = await signedIn(t, 'mallory@hostile.test');
});
afterAll(async () => {
  await t?.close();
  await fx?.close();
});

const render = (imageUrl: string, key = malloryKey) =>
  t.inject({
    method: 'POST',
    url: '/render/template',
    headers: { 'x-api-key': key },
    payload: { template: artworkTemplate, title: 'Chair', imageUrl },
  });

/** Runs `f`, failing the test when it takes `ms` or more. */
async function within<T>(ms: number, f: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const out = await f();
  expect(performance.now() - start).toBeLessThan(ms);
  return out;
}

describe('progressive JPEG scan bomb (4,114 scans: 14.7 s of sharp, both render slots held)', () => {
  it('imageUrl: 422 naming the scan count, in under a second, no decode started', async () => {
    await expectError(await within(1000, () => render(`${fx.url}/scan-bomb.jpg`)), 422, `imageUrl ${SCANS}`);
    expect(t.modules.artwork.decoder.stats()).toMatchObject({ running: 0, killed: 0 });
  });

  it('logo upload on the dashboard: 422 naming the scan count, in under a second', async () => {
    const bomb = scanBombJpeg(4000, 4113);
    await expectError(await within(1000, () => uploadLogo(t, mallory, bomb)), 422, `logo ${SCANS}`);
    expect((await t.modules.themes.read(malloryId))?.logo).toBeUndefined();
  });

  it('logoUrl: 422 naming the scan count', async () => {
    const err = await t.modules.themes
      .set(malloryId, { logo: { url: `${fx.url}/logo-scan-bomb.jpg` } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect([(err as AppError).code, (err as AppError).message]).toEqual([
      'unprocessable',
      `logoUrl ${SCANS}`,
    ]);
  });
});

describe('PNG text-chunk bomb (25 zTXt of 8 MB in 193 kB: 480 MB to 1.8 GB RSS per upload)', () => {
  it('imageUrl and logo upload: 422 naming the chunks, in under a second', async () => {
    await expectError(await within(1000, () => render(`${fx.url}/text-bomb.png`)), 422, `imageUrl ${TEXT}`);
    const bomb = textChunkBombPng(25);
    await expectError(await within(1000, () => uploadLogo(t, mallory, bomb)), 422, `logo ${TEXT}`);
  });
});

describe('a logo URL download', () => {
  it('stops at the logo limit of 1 MB (it read up to imageUrl’s 5 MB before)', async () => {
    const err = await t.modules.themes
      .set(malloryId, { logo: { url: `${fx.url}/big-logo` } })
      .catch((e: unknown) => e);
    expect((err as AppError).message).toBe('logoUrl is larger than 1 MB');
    await new Promise((r) => setTimeout(r, 100));
    const { written, finished } = fx.bigLogo();
    expect(finished).toBe(false);
    expect(written).toBeLessThan(1.5 * 1024 * 1024);
  });
});

describe('beside a victim', () => {
  it('20 hostile renders and 20 hostile uploads are refused, and the victim’s cards are drawn meanwhile', async () => {
    const hostile = [
      ...Array.from({ length: 20 }, () => render(`${fx.url}/scan-bomb.jpg`)),
      ...Array.from({ length: 20 }, () => uploadLogo(t, mallory, textChunkBombPng(25))),
    ];
    const victim = [];
    for (let i = 0; i < 5; i++) {
      victim.push(
        await t.inject({
          method: 'GET',
          url: `/render/template?template=saas&title=${encodeURIComponent(`Victim ${i}`)}`,
        }),
      );
    }
    const statuses = (await Promise.all(hostile)).map((r) => r.statusCode);
    // 422 each, or 429 where one account's uploads queue past its share: never 200 or 5xx.
    expect(statuses.every((s) => s === 422 || s === 429)).toBe(true);
    expect(statuses.filter((s) => s === 422).length).toBeGreaterThanOrEqual(21);
    expect(victim.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    // No hostile image reached a decoder.
    expect(t.modules.artwork.decoder.stats().killed).toBe(0);
  });
});
