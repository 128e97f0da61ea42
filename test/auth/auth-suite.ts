import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/auth/keys.js';
import { signUrl } from '../../src/auth/signing.js';
import type { SettingKey } from '../../src/settings.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';

/** A protected route as the shared auth suite drives it: one request that succeeds with a valid key. */
export interface ProtectedRoute {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  /** What the route needs beyond this process (vitest.config.ts), e.g. `chromium` for screenshots. */
  tags?: string[];
  /** A successful answer's status and type (default 200 image/png: the render routes). */
  answers?: { status: number; contentType: string };
  /** False for routes a signed URL must not reach (management routes): it answers 401 there. */
  signedUrls?: boolean;
  /**
   * Prepares what a valid request needs (fixture servers, settings) and returns its query and
   * body. Called once, before the app starts.
   */
  setup(): Promise<{
    query?: Record<string, string>;
    payload?: Record<string, unknown>;
    overrides?: Partial<Record<SettingKey, unknown>>;
    close?: () => Promise<void>;
  }>;
}

const UNAUTHORIZED = { error: 'Missing or invalid API key' };

/**
 * The shared suite of authentication checks (issue 3 §7). Every protected route runs it with
 * one line: `describeAuthSuite({ name, method, path, setup })`.
 */
export function describeAuthSuite(route: ProtectedRoute): void {
  describe(`authentication on ${route.name}`, { tags: route.tags ?? [] }, () => {
    let t: TestApp;
    let clock: FakeClock;
    let query: Record<string, string> = {};
    let payload: Record<string, unknown> | undefined;
    let close: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      const s = await route.setup();
      query = s.query ?? {};
      payload = s.payload;
      close = s.close;
      clock = fakeClock(Date.now());
      t = await startTestApp({ keyCacheSeconds: 0, ...s.overrides }, { clock });
    });
    afterAll(async () => {
      await t?.close();
      await close?.();
    });

    const qs = (extra: Record<string, string> = {}) => new URLSearchParams({ ...query, ...extra }).toString();
    const send = (opts: { headers?: Record<string, string>; extra?: Record<string, string>; url?: string }) =>
      t.inject({
        method: route.method,
        url: opts.url ?? `${route.path}?${qs(opts.extra)}`,
        ...(payload ? { payload } : {}),
        headers: opts.headers ?? {},
        auth: false,
      });
    const expect401 = (res: LightMyRequestResponse) => {
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(UNAUTHORIZED);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.ratelimit).toBeUndefined();
    };
    // Signed URLs spend the key's own signed-URL budget, never the account's (issue 26 §3).
    const answers = route.answers ?? { status: 200, contentType: 'image/png' };
    const expectOk = (res: LightMyRequestResponse, policy = '"pro";q=600;w=60') => {
      expect(res.statusCode, res.body.slice(0, 200)).toBe(answers.status);
      expect(res.headers['content-type']).toBe(answers.contentType);
      expect(res.headers['ratelimit-policy']).toBe(policy);
    };
    const SIGNED_POLICY = '"pro-signed";q=600;w=60';
    const newKey = async (expiresAt?: number) =>
      t.modules.accounts.accounts.createKey({
        accountId: t.account.id,
        name: 'suite',
        environment: 'test',
        ...(expiresAt ? { expiresAt } : {}),
      });
    const signed = (keyId: string, secret: string, opts: { path?: string; expiresAt?: number } = {}) =>
      signUrl(`${opts.path ?? route.path}?${qs()}`, {
        keyId,
        signingSecret: secret,
        expiresAt: opts.expiresAt ?? Math.floor(clock.now() / 1000) + 3600,
      });

    it('accepts a valid key in x-api-key', async () => {
      expectOk(await send({ headers: { 'x-api-key': t.key.key } }));
    });

    it('refuses no key', async () => {
      expect401(await send({}));
    });

    it('refuses a malformed key', async () => {
      expect401(await send({ headers: { 'x-api-key': 'hello' } }));
      expect401(await send({ headers: { 'x-api-key': `${t.key.key}x` } }));
      expect401(await send({ headers: { 'x-api-key': '' } }));
    });

    it('refuses a key whose checksum does not match (one character mistyped)', async () => {
      const k = t.key.key;
      const i = k.length - 10;
      const typo = k.slice(0, i) + (k[i] === 'a' ? 'b' : 'a') + k.slice(i + 1);
      expect401(await send({ headers: { 'x-api-key': typo } }));
    });

    it('refuses a well-formed key with a valid checksum that was never issued', async () => {
      expect401(await send({ headers: { 'x-api-key': generateKey('test').key } }));
    });

    it('refuses a revoked key at once', async () => {
      const k = await newKey();
      expectOk(await send({ headers: { 'x-api-key': k.key } }));
      await t.modules.accounts.accounts.revokeKey(k.record.id);
      expect401(await send({ headers: { 'x-api-key': k.key } }));
    });

    it('refuses an expired key', async () => {
      const k = await newKey(clock.now() + 60_000);
      expectOk(await send({ headers: { 'x-api-key': k.key } }));
      clock.advance(60_000);
      expect401(await send({ headers: { 'x-api-key': k.key } }));
    });

    it('accepts the key as the api_key query parameter (discouraged, but possible)', async () => {
      expectOk(await send({ extra: { api_key: t.key.key } }));
      expect401(await send({ extra: { api_key: generateKey('test').key } }));
    });

    if (route.method === 'GET') {
      it('protects HEAD as well (Fastify adds it for GET routes)', async () => {
        const res = await t.inject({ method: 'HEAD', url: `${route.path}?${qs()}`, auth: false });
        expect(res.statusCode).toBe(401);
        const ok = await t.inject({
          method: 'HEAD',
          url: `${route.path}?${qs()}`,
          headers: { 'x-api-key': t.key.key },
        });
        expect(ok.statusCode).toBe(200);
      });
    }

    if (route.method === 'GET' && route.signedUrls === false) {
      it('refuses a valid signed URL: this route is managed with a key only', async () => {
        expect401(await send({ url: signed(t.key.record.id, t.key.signingSecret) }));
      });
    } else if (route.method === 'GET') {
      it('accepts a valid signed URL', async () => {
        expectOk(await send({ url: signed(t.key.record.id, t.key.signingSecret) }), SIGNED_POLICY);
      });

      it('refuses an expired signed URL', async () => {
        const url = signed(t.key.record.id, t.key.signingSecret, {
          expiresAt: Math.floor(clock.now() / 1000) + 10,
        });
        expectOk(await send({ url }), SIGNED_POLICY);
        clock.advance(10_000);
        expect401(await send({ url }));
      });

      it('refuses a tampered signed URL (a parameter changed, added or removed)', async () => {
        const url = signed(t.key.record.id, t.key.signingSecret);
        const u = new URL(url, 'http://x');
        const [name] = [...u.searchParams.keys()].filter((k) => !['kid', 'exp', 'sig'].includes(k));
        const changed = new URL(u);
        changed.searchParams.set(name!, `${changed.searchParams.get(name!)}!`);
        expect401(await send({ url: `${changed.pathname}${changed.search}` }));
        const added = new URL(u);
        added.searchParams.append('subtitle', 'extra');
        expect401(await send({ url: `${added.pathname}${added.search}` }));
        const later = new URL(u);
        later.searchParams.set('exp', String(Number(u.searchParams.get('exp')) + 1));
        expect401(await send({ url: `${later.pathname}${later.search}` }));
        const otherKey = new URL(u);
        otherKey.searchParams.set(
          'sig',
          signed(t.key.record.id, (await newKey()).signingSecret).split('sig=')[1]!,
        );
        expect401(await send({ url: `${otherKey.pathname}${otherKey.search}` }));
      });

      it('refuses a URL that holds both the key and a signature, even a valid pair', async () => {
        const url = signed(t.key.record.id, t.key.signingSecret);
        expect401(await send({ url: `${url}&api_key=${t.key.key}` }));
      });

      it('refuses a signed URL made for another path', async () => {
        const url = signed(t.key.record.id, t.key.signingSecret, { path: '/render/other' });
        expect401(await send({ url: url.replace('/render/other', route.path) }));
      });

      it('refuses a signed URL of a revoked key', async () => {
        const k = await newKey();
        const url = signed(k.record.id, k.signingSecret);
        expectOk(await send({ url }), SIGNED_POLICY);
        await t.modules.accounts.accounts.revokeKey(k.record.id);
        expect401(await send({ url }));
      });
    } else {
      it('refuses a signed URL on a non-GET request', async () => {
        expect401(await send({ url: signed(t.key.record.id, t.key.signingSecret) }));
      });
    }

    it('checks the key before the input: no key and a bad request is still 401', async () => {
      const res = await t.inject({
        method: route.method,
        url: `${route.path}?bogus=1`,
        ...(route.method === 'POST'
          ? { payload: 'not json', headers: { 'content-type': 'application/json' } }
          : {}),
        auth: false,
      });
      expect401(res);
    });
  });
}
