import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CreatedKey } from '../../src/accounts/manager.js';
import { canonicalRequest, FRESH_SIGNED_REFUSED, signature, signUrl } from '../../src/auth/signing.js';
import { runSign } from '../../src/cli/commands/sign.js';
import { Cardshot } from '../../src/client/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { signedIn } from '../helpers/dashboard.js';
import { expectError } from '../helpers/errors.js';

// Issue 26 §3, each finding as it was reported: a second, hostile account (or an anonymous
// visitor of a published URL) acts, and the victim account is measured beside it.
let dir: string;
let t: TestApp;
/** The hostile second account's key, and a victim on the same plan (pro) for the card tests. */
let hostile: CreatedKey;
let victim: CreatedKey;

const now = () => Math.floor(Date.now() / 1000);
const signed = (p: string, seconds: number, key: CreatedKey = t.key) =>
  signUrl(p, { keyId: key.record.id, signingSecret: key.signingSecret, expiresAt: now() + seconds });

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-tenancy-'));
  const plansFile = path.join(dir, 'plans.json');
  // The victim's plan: 5 API requests a minute, and 3 for its signed URLs.
  await writeFile(
    plansFile,
    JSON.stringify({
      owner: {
        templates: '*',
        screenshots: { viewports: '*', options: '*' },
        rateLimit: { requests: 5, windowSeconds: 60 },
        signedRateLimit: { requests: 3, windowSeconds: 60 },
      },
    }),
  );
  t = await startTestApp({ plansFile }, { plan: 'owner' });
  hostile = await proKey('hostile');
  victim = await proKey('victim');
});

async function proKey(name: string): Promise<CreatedKey> {
  const account = await t.modules.accounts.accounts.createAccount({
    name,
    email: `${name}-${Date.now()}@example.com`,
    plan: 'pro',
  });
  return t.modules.accounts.accounts.createKey({ accountId: account.id, name, environment: 'test' });
}

/** A card request as the holder of `key`. */
const cardAs = (key: CreatedKey, query: Record<string, string>, headers: Record<string, string> = {}) =>
  t.inject({
    method: 'GET',
    url: `/render/template?${new URLSearchParams(query)}`,
    headers: { 'x-api-key': key.key, ...headers },
  });
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

// Regression: 70 anonymous hits on a published og:image URL gave the owner's own key a 429.
describe('anonymous traffic on a signed URL', () => {
  it("spends the key's signed-URL budget, never the owner's API budget", async () => {
    const url = signed(`/render/template?template=blog&title=${encodeURIComponent('Published card')}`, 3600);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await t.inject({ method: 'GET', url, auth: false });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) {
        expect(res.json()).toEqual({ error: 'Rate limit exceeded' });
        expect(res.headers['ratelimit-policy']).toBe('"owner-signed";q=3;w=60');
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
    // The owner's key is untouched: its first request of the window leaves 4 of 5.
    const own = await t.inject({
      method: 'POST',
      url: '/render/template',
      payload: { template: 'blog', title: 'Owner still works' },
    });
    expect(own.statusCode).toBe(200);
    expect(own.headers['ratelimit-policy']).toBe('"owner";q=5;w=60');
    expect(own.headers['x-ratelimit-remaining']).toBe('4');
  });
});

// Regression: the playground signed fresh=true for a year, so every anonymous hit was a capture.
describe('fresh in a signed URL', () => {
  const shot = `/render/url?url=${encodeURIComponent('https://example.com/')}&fresh=true`;

  it('is refused (400) when the URL lives over 30 minutes, before any capture', async () => {
    for (const seconds of [1801, 365 * 86_400]) {
      // Signed by hand (the helpers refuse it), as an old URL or another tool would.
      const res = await t.inject({ method: 'GET', url: signedByHand(shot, seconds), auth: false });
      await expectError(res, 400, FRESH_SIGNED_REFUSED);
    }
  });

  it('is refused by every signing helper: the server, the client and the CLI', async () => {
    expect(() => signed(shot, 365 * 86_400)).toThrow(FRESH_SIGNED_REFUSED);
    expect(signed(shot, 25 * 60)).toContain('fresh=true');
    expect(signed(shot.replace('fresh=true', 'fresh=false'), 365 * 86_400)).toContain('fresh=false');
    const client = new Cardshot({
      baseUrl: 'http://127.0.0.1:9',
      keyId: t.key.record.id,
      signingSecret: t.key.signingSecret,
    });
    await expect(client.signedScreenshotUrl({ url: 'https://example.com/', fresh: true })).rejects.toThrow(
      `Cardshot: ${FRESH_SIGNED_REFUSED}`,
    );
    await expect(
      client.signedScreenshotUrl({ url: 'https://example.com/', fresh: true }, { expiresInSeconds: 900 }),
    ).resolves.toContain('fresh=true');
  });

  it('is refused by `cardshot sign` unless it expires within 30 minutes', async () => {
    const sign = async (expires: string) => {
      let out = '';
      let err = '';
      const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => {
        out += String(c);
        return true;
      });
      const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => {
        err += String(c);
        return true;
      });
      try {
        const args = [
          `http://127.0.0.1:9${shot}`,
          '--key-id',
          t.key.record.id,
          '--secret',
          t.key.signingSecret,
        ];
        return { code: await runSign([...args, '--expires', expires]), out, err };
      } finally {
        o.mockRestore();
        e.mockRestore();
      }
    };
    const year = await sign('365d');
    expect(year.code).toBe(2);
    expect(year.err.split('\n')[0]).toBe(`cardshot sign: ${FRESH_SIGNED_REFUSED} (--expires 30m)`);
    const short = await sign('30m');
    expect([short.code, short.err]).toEqual([0, '']);
    expect(short.out).toMatch(/fresh=true&kid=key_\w+&exp=\d+&sig=[\w-]{43}\n$/);
  });

  it('is kept in the playground preview and left out of the URL it gives for publishing', async () => {
    const c = await signedIn(t);
    const res = await c.get(
      `/dashboard/playground/screenshot?url=${encodeURIComponent('https://example.com/')}&fresh=true`,
    );
    expect(res.statusCode).toBe(200);
    const preview = /<img id="shot-preview"[^>]* data-src="([^"]+)"/
      .exec(res.body)?.[1]
      ?.replace(/&amp;/g, '&');
    const published = /<code id="shot-signed"[^>]*>([^<]*)<\/code>/
      .exec(res.body)?.[1]
      ?.replace(/&amp;/g, '&');
    expect(preview).toMatch(/^\/render\/url\?url=https%3A%2F%2Fexample\.com%2F&fresh=true&kid=/);
    expect(published).toMatch(/^http:\/\/localhost\/render\/url\?url=https%3A%2F%2Fexample\.com%2F&kid=/);
    expect(res.body).toContain('&quot;Capture again&quot; is left out of it');
  });
});

/** `p` signed with the victim's key for `seconds` without the helpers (which refuse long fresh). */
function signedByHand(p: string, seconds: number): string {
  const u = new URL(p, 'http://x.invalid');
  u.searchParams.set('kid', t.key.record.id);
  u.searchParams.set('exp', String(now() + seconds));
  const canonical = canonicalRequest('GET', u.pathname, [...u.searchParams.entries()]);
  u.searchParams.set('sig', signature(t.key.signingSecret, canonical));
  return `${u.pathname}?${u.searchParams.toString().replace(/\+/g, '%20')}`;
}

// Regression: B's request for A's untheme'd card, or for A's themed card after copying A's
// public colours, font and logo, answered X-Cache: HIT with A's ETag.
describe('one account cannot learn what another rendered', () => {
  it("another account's card is a miss for the hostile account: its own render and ETag, never a 304", async () => {
    const card = { template: 'blog', title: `Unannounced product ${Date.now()}` };
    const a = await cardAs(victim, card);
    expect([a.statusCode, a.headers['x-cache']]).toEqual([200, 'MISS']);

    const before = t.renders();
    const b = await cardAs(hostile, card);
    expect([b.statusCode, b.headers['x-cache']]).toEqual([200, 'MISS']);
    expect(b.headers.etag).not.toBe(a.headers.etag);
    // A real render: the same work (and time) as a card nobody rendered.
    expect(t.renders()).toBe(before + 1);
    // Same pixels: the scope changes the identity, not the card.
    expect(b.rawPayload.equals(a.rawPayload)).toBe(true);

    // The victim's ETag opens nothing for the hostile account.
    const other = { template: 'blog', title: `Second secret ${Date.now()}` };
    const victimsTag = String((await cardAs(victim, other)).headers.etag);
    const probe = await cardAs(hostile, other, { 'if-none-match': victimsTag });
    expect([probe.statusCode, probe.headers['x-cache']]).toEqual([200, 'MISS']);
    expect(probe.headers.etag).not.toBe(victimsTag);

    // The victim's own repeat is still a hit with its ETag (spec caching), and its 304 holds.
    const again = await cardAs(victim, card);
    expect([again.statusCode, again.headers['x-cache'], again.headers.etag]).toEqual([
      200,
      'HIT',
      a.headers.etag,
    ]);
    const revalidated = await cardAs(victim, card, { 'if-none-match': String(a.headers.etag) });
    expect(revalidated.statusCode).toBe(304);
  });

  it("a hostile account that copies the victim's theme still misses, with its own ETag", async () => {
    const colours = { background: '#0B3D2E', text: '#FFFFFF', accent: '#FF5500' };
    await t.modules.themes.set(victim.record.accountId, colours);
    await t.modules.themes.set(hostile.record.accountId, colours);
    try {
      const card = { template: 'blog', title: `Themed secret ${Date.now()}` };
      const a = await cardAs(victim, card);
      expect([a.statusCode, a.headers['x-cache']]).toEqual([200, 'MISS']);
      const b = await cardAs(hostile, card);
      expect([b.statusCode, b.headers['x-cache']]).toEqual([200, 'MISS']);
      expect(b.headers.etag).not.toBe(a.headers.etag);
      expect((await cardAs(victim, card)).headers['x-cache']).toBe('HIT');
    } finally {
      await t.modules.themes.clear(victim.record.accountId);
      await t.modules.themes.clear(hostile.record.accountId);
    }
  });
});

// Regression: a themed card at a stable URL was served immutable for a year, yet changed when
// the theme changed.
describe('a themed card', () => {
  it('is revalidated after five minutes; the same card without a theme keeps the year', async () => {
    const card = { template: 'blog', title: `Theme cache ${Date.now()}` };
    await t.modules.themes.set(victim.record.accountId, { background: '#1E1B4B' });
    try {
      const themed = await cardAs(victim, card);
      expect(themed.statusCode).toBe(200);
      expect(themed.headers['cache-control']).toBe('public, max-age=300, s-maxage=300, must-revalidate');
      const plain = await cardAs(victim, { ...card, theme: 'none' });
      expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      // The revalidation a CDN makes while the theme holds is a 304 with the same headers.
      const check = await cardAs(victim, card, { 'if-none-match': String(themed.headers.etag) });
      expect(check.statusCode).toBe(304);
      expect(check.headers['cache-control']).toBe('public, max-age=300, s-maxage=300, must-revalidate');
      // A signed URL for it lives no longer than the five minutes either.
      const url = signed(`/render/template?${new URLSearchParams(card)}`, 365 * 86_400, victim);
      const viaSigned = await t.inject({ method: 'GET', url, auth: false });
      expect(viaSigned.headers['cache-control']).toBe('public, max-age=300, s-maxage=300, must-revalidate');
    } finally {
      await t.modules.themes.clear(victim.record.accountId);
    }
  });
});
