// @module-tag chromium
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUrl } from '../../src/auth/signing.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  AGENT,
  BASIC,
  type CredentialSite,
  SESSION,
  startCredentialSite,
  TOKEN,
} from '../helpers/credential-site.js';
import { expectError } from '../helpers/errors.js';
import { pixelAt } from '../helpers/png.js';

// POST /render/url with credentials (issue 29 §2) on real Chromium: a fixture site behind a
// cookie session, a header token and Basic auth is captured signed in; a second origin (another
// host) proves it received none of them, neither as a sub-resource nor after a redirect; the
// refusals are exact; the secrets reach no log and no error; a capture is never another
// account's, even with a shared cache.
let t: TestApp;
let site: CredentialSite;
let otherKey: string;

const GREEN = [0, 255, 0, 255];
const RED = [255, 0, 0, 255];

const ALL = {
  headers: { 'X-Token': TOKEN },
  cookies: [{ name: 'session', value: SESSION, httpOnly: true }],
  basicAuth: BASIC,
};

const post = (body: unknown, key?: string) =>
  t.inject({
    method: 'POST',
    url: '/render/url',
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    payload: JSON.stringify(body),
  });

/** Every credential value must be absent from everything the other origin received. */
function expectNoCredential(headers: Record<string, unknown>[]) {
  const all = JSON.stringify(headers);
  for (const secret of [
    SESSION,
    TOKEN,
    BASIC.password,
    Buffer.from(`${BASIC.username}:${BASIC.password}`).toString('base64'),
  ]) {
    expect(all).not.toContain(secret);
  }
  for (const h of headers) {
    expect(h['x-token']).toBeUndefined();
    expect(h.authorization).toBeUndefined();
    expect(h.cookie).toBeUndefined();
  }
}

beforeAll(async () => {
  site = await startCredentialSite();
  // A shared cache: even then a credentialed capture stays its account's own.
  t = await startTestApp({
    allowPrivateHosts: [site.hostPort, site.other.hostPort],
    screenshotCacheShared: true,
  });
  const other = await t.modules.accounts.accounts.createAccount({
    name: 'B',
    email: 'b@example.com',
    plan: 'pro',
  });
  otherKey = (
    await t.modules.accounts.accounts.createKey({ accountId: other.id, name: 'b', environment: 'test' })
  ).key;
});
afterAll(async () => {
  await t?.close();
  await site?.close();
});

describe('signed in', () => {
  it('captures the page behind a cookie session, a header token and Basic auth; the other origin gets none', async () => {
    expect(await pixelAt((await post({ url: `${site.url}/account?plain` })).rawPayload, 10, 10)).toEqual(RED);
    const before = site.other.seen.length;
    const res = await post({ url: `${site.url}/account`, ...ALL });
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect(res.headers['x-target-status']).toBe('200');
    expect(await pixelAt(res.rawPayload, 10, 10)).toEqual(GREEN);
    // The page's own fetch() to its origin carried them too.
    const api = site.seen.get('/api/me')?.at(-1);
    expect(api?.['x-token']).toBe(TOKEN);
    // The other origin's image was asked for, with no credential.
    const seen = site.other.seen.slice(before);
    expect(seen.length).toBeGreaterThan(0);
    expectNoCredential(seen as Record<string, unknown>[]);
  });

  it('each credential on its own, and the User-Agent', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['cookie', { cookies: ALL.cookies }],
      ['header', { headers: ALL.headers }],
      ['basic', { basicAuth: BASIC }],
      ['agent', { userAgent: AGENT }],
    ];
    for (const [need, creds] of cases) {
      const res = await post({ url: `${site.url}/account?need=${need}`, ...creds });
      expect({ need, colour: await pixelAt(res.rawPayload, 10, 10) }).toEqual({ need, colour: GREEN });
    }
  });

  it('a redirect to another origin takes none of them along', async () => {
    const before = site.other.seen.length;
    const res = await post({ url: `${site.url}/away`, ...ALL, format: 'png' });
    expect(res.statusCode).toBe(200);
    expect(site.seen.get('/away')?.at(-1)?.['x-token']).toBe(TOKEN);
    const seen = site.other.seen.slice(before);
    expect(seen.length).toBeGreaterThan(0);
    expectNoCredential(seen as Record<string, unknown>[]);
  });
});

describe('never shared, never in clear', () => {
  it('is cached per credentials and per account, even with a shared cache', async () => {
    const url = `${site.url}/account?cache`;
    const first = await post({ url, ...ALL });
    expect(first.headers['x-cache']).toBe('MISS');
    expect((await post({ url, ...ALL })).headers['x-cache']).toBe('HIT');
    // Other credentials: another entry.
    const other = await post({ url, ...ALL, headers: { 'X-Token': 'another' } });
    expect(other.headers['x-cache']).toBe('MISS');
    expect(await pixelAt(other.rawPayload, 10, 10)).toEqual(RED);
    // Account B with the very same credentials is never served A's capture.
    const b = await post({ url, ...ALL }, otherKey);
    expect(b.headers['x-cache']).toBe('MISS');
    // Without credentials the shared cache is shared as configured.
    await post({ url: `${site.url}/account?shared` });
    expect((await post({ url: `${site.url}/account?shared` }, otherKey)).headers['x-cache']).toBe('HIT');
  });

  it('no log line holds a credential value', () => {
    const logs = JSON.stringify(t.logs);
    for (const secret of [SESSION, TOKEN, BASIC.password]) expect(logs).not.toContain(secret);
  });
});

describe('refusals', () => {
  const url = 'http://127.0.0.1:9/x';
  const cases: Array<[string, Record<string, unknown>, string]> = [
    [
      'Host',
      { headers: { Host: 'evil.example' } },
      'headers: "Host" cannot be set (it belongs to the connection, not the page)',
    ],
    [
      'Transfer-Encoding',
      { headers: { 'transfer-encoding': 'chunked' } },
      'headers: "transfer-encoding" cannot be set (it belongs to the connection, not the page)',
    ],
    [
      'Proxy-*',
      { headers: { 'Proxy-Authorization': 'Basic x' } },
      'headers: "Proxy-Authorization" cannot be set (it belongs to the connection, not the page)',
    ],
    ['Cookie', { headers: { Cookie: 'a=b' } }, 'headers: "Cookie" cannot be set here; use cookies'],
    [
      'CR/LF in a value',
      { headers: { 'X-A': `ok\r\nX-Injected: ${TOKEN}` } },
      'headers: a header name or value must not contain CR or LF',
    ],
    [
      'CR/LF in a name',
      { headers: { 'X-A\nB': 'v' } },
      'headers: a header name or value must not contain CR or LF',
    ],
    [
      '21 headers',
      { headers: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v'])) },
      'headers must have at most 20 headers (got 21)',
    ],
    [
      '9 KB of headers',
      { headers: { 'X-Big': 'v'.repeat(9000) } },
      'headers must be at most 8192 bytes in all (got 9005)',
    ],
    [
      '51 cookies',
      { cookies: Array.from({ length: 51 }, (_, i) => ({ name: `c${i}`, value: 'v' })) },
      'cookies must have at most 50 cookies (got 51)',
    ],
    [
      '17 KB of cookies',
      { cookies: [{ name: 'big', value: 'v'.repeat(17_000) }] },
      'cookies must be at most 16384 bytes in all (got 17003)',
    ],
    [
      'a cookie value with ;',
      { cookies: [{ name: 'a', value: `${SESSION}; x=y` }] },
      'cookies[0].value must not contain spaces, quotes, commas, semicolons, backslashes or control characters',
    ],
    [
      'basicAuth without password',
      { basicAuth: { username: 'ada' } },
      'basicAuth must be {"username": "…", "password": "…"}',
    ],
    [
      'a 513-character userAgent',
      { userAgent: 'u'.repeat(513) },
      'userAgent must be at most 512 characters (got 513)',
    ],
    [
      'userAgent with LF',
      { userAgent: 'a\nb' },
      'userAgent must not contain CR, LF or other control characters',
    ],
    [
      'an unknown field',
      { cookie: [] },
      expect.stringMatching(
        /^Unknown field "cookie" \(did you mean "cookies"\?\)\. Allowed: url, viewport, waitUntil, fullPage, .*, headers, cookies, basicAuth, userAgent$/,
      ),
    ],
    [
      'a bad option, as the GET says it',
      { delay: 20000 },
      'delay must be a whole number of milliseconds from 0 to 10000 (got "20000")',
    ],
  ];
  for (const [name, body, message] of cases) {
    it(`400 for ${name}`, async () => {
      const res = await post({ url, ...body });
      await expectError(res, 400, message);
      // No error repeats a credential's value.
      for (const secret of [SESSION, TOKEN]) expect(res.body).not.toContain(secret);
    });
  }

  it('413 for 1 MB of cookies', async () => {
    const cookies = Array.from({ length: 1000 }, (_, i) => ({ name: `c${i}`, value: 'v'.repeat(1000) }));
    await expectError(await post({ url, cookies }), 413, 'Request body must be at most 160 KiB');
  });

  it('a URL cannot carry them, signed or not: 400 naming POST', async () => {
    const message =
      'headers cannot be sent in a URL (URLs are logged, and a signed one is public): send it in the body of POST /render/url with an x-api-key header';
    const query = new URLSearchParams({ url: `${site.url}/account`, headers: JSON.stringify(ALL.headers) });
    await expectError(await t.inject({ method: 'GET', url: `/render/url?${query}` }), 400, message);
    const signed = signUrl(`/render/url?${query}`, {
      keyId: t.key.record.id,
      signingSecret: t.key.signingSecret,
      expiresAt: Math.floor(Date.now() / 1000) + 600,
    });
    await expectError(await t.inject({ method: 'GET', url: signed, auth: false }), 400, message);
    // The refused value is not in the access log either.
    expect(JSON.stringify(t.logs)).not.toContain(TOKEN);
  });
});
