import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../src/dashboard/security.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { csrfOf, dashClient, onceOf, PASSWORD, signedIn } from '../helpers/dashboard.js';
import { expectError } from '../helpers/errors.js';
import { pngSize } from '../helpers/png.js';

const FAILED = 'Email or password is incorrect';
const EXPIRED_FORM = 'This form has expired or did not come from this dashboard';

let t: TestApp;
let clock: FakeClock;
beforeAll(async () => {
  clock = fakeClock(Date.now());
  t = await startTestApp(
    {
      sessionIdleMinutes: 30,
      sessionMaxHours: 2,
      signInLimitPerEmail: 1000,
      signInLimitPerIp: 10_000,
      inviteHours: 1,
    },
    { clock },
  );
});
afterAll(async () => t.close());

describe('pages and headers', () => {
  it('every page is no-store with a strict CSP, no framing and no sniffing', async () => {
    const c = await signedIn(t);
    for (const url of [
      '/dashboard/sign-in',
      '/dashboard',
      '/dashboard/keys',
      '/dashboard/playground',
      '/dashboard/nope',
    ]) {
      const res = await c.get(url);
      expect([200, 303, 404], url).toContain(res.statusCode);
      expect(res.headers['cache-control'], url).toBe('no-store');
      expect(res.headers['content-security-policy'], url).toBe(CONTENT_SECURITY_POLICY);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('same-origin');
    }
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self';");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
  });

  it('pages carry no inline script or style (the CSP would block them)', async () => {
    const c = await signedIn(t);
    for (const url of ['/dashboard', '/dashboard/keys', '/dashboard/playground', '/dashboard/sign-in']) {
      const body = (await c.get(url)).body;
      expect(body, url).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(body, url).not.toMatch(/\sstyle=/);
      expect(body, url).not.toMatch(/\son[a-z]+=/);
      expect(body, url).not.toMatch(/<style/);
    }
  });

  it('serves its CSS, script and font from the service itself, cacheable by content hash', async () => {
    const page = (await (await signedIn(t)).get('/dashboard')).body;
    const css = /href="(\/dashboard\/assets\/dashboard\.css\?v=[\w-]+)"/.exec(page)![1]!;
    const res = await t.app.inject({ method: 'GET', url: css });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.body).toContain('@font-face');
    const font = await t.app.inject({ method: 'GET', url: '/dashboard/assets/inter-400.woff2' });
    expect(font.headers['content-type']).toBe('font/woff2');
    expect(font.rawPayload.subarray(0, 4).toString('latin1')).toBe('wOF2');
    expect(
      (await t.app.inject({ method: 'GET', url: '/dashboard/assets/../../package.json' })).statusCode,
    ).toBe(404);
  });

  it('unknown dashboard paths get a friendly HTML 404; the API keeps its JSON errors', async () => {
    const res = await dashClient(t).get('/dashboard/settings/billing');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('Page not found');
    expect(res.body).toContain('href="/dashboard"');
    const api = await t.inject({ method: 'GET', url: '/render/nothing' });
    await expectError(api, 404, 'No route for GET /render/nothing');
    const form = await t.inject({
      method: 'POST',
      url: '/render/template',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'template=blog&title=x',
    });
    await expectError(form, 415, 'Content-Type must be application/json');
  });

  it('sends visitors who are not signed in to the sign-in page, keeping where they were going', async () => {
    const res = await dashClient(t).get('/dashboard/keys');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/sign-in?from=app&next=%2Fdashboard%2Fkeys');
  });
});

describe('sign-in', () => {
  it('signs in with the right password: HttpOnly, SameSite=Lax session cookie, back to `next`', async () => {
    await t.modules.accounts.credentials.setPassword(t.account.email, PASSWORD);
    const c = dashClient(t);
    const res = await c.post('/dashboard/sign-in', {
      _csrf: await c.csrf(),
      email: t.account.email.toUpperCase(),
      password: PASSWORD,
      next: '/dashboard/keys',
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/keys');
    const cookie = [res.headers['set-cookie']].flat().find((s) => s?.startsWith('cardshot_session='))!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    expect(cookie).toMatch(/Max-Age=7200/);
    expect((await c.get('/dashboard/keys')).statusCode).toBe(200);
  });

  it('never sends people to another site after signing in', async () => {
    for (const next of [
      'https://evil.test/',
      '//evil.test/dashboard',
      '/dashboard/../evil',
      '/\\evil.test',
    ]) {
      const c = dashClient(t);
      const res = await c.post('/dashboard/sign-in', {
        _csrf: await c.csrf(),
        email: t.account.email,
        password: PASSWORD,
        next,
      });
      expect(res.headers.location, next).toBe('/dashboard');
    }
  });

  it('refuses a wrong password and an unknown email with the same generic message and status', async () => {
    const other = await t.modules.accounts.accounts.createAccount({
      name: 'B',
      email: 'b@generic.test',
      plan: 'pro',
    });
    await t.modules.accounts.credentials.setPassword(other.id, PASSWORD);
    const c = dashClient(t);
    const wrong = await c.post('/dashboard/sign-in', {
      _csrf: await c.csrf(),
      email: other.email,
      password: 'not the password',
    });
    const unknown = await c.post('/dashboard/sign-in', {
      _csrf: await c.csrf(),
      email: 'nobody@generic.test',
      password: 'not the password',
    });
    for (const res of [wrong, unknown]) {
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain(FAILED);
      expect(res.cookies.some((k) => k.name === 'cardshot_session')).toBe(false);
    }
    // The email typed is kept in the form; the password never is.
    expect(wrong.body).toContain('value="b@generic.test"');
    expect(wrong.body).not.toContain('not the password');
  });

  it('limits attempts per email (even the right password is refused while limited), then lets them in again', async () => {
    const limitClock = fakeClock(Date.now());
    const lt = await startTestApp({ signInLimitPerEmail: 3 }, { clock: limitClock });
    onTestFinished(() => lt.close());
    const a = await lt.modules.accounts.accounts.createAccount({
      name: 'L',
      email: 'limited@rl.test',
      plan: 'pro',
    });
    await lt.modules.accounts.credentials.setPassword(a.id, PASSWORD);
    const c = dashClient(lt);
    const attempt = async (password: string, ip = '10.0.0.1') =>
      c.post(
        '/dashboard/sign-in',
        { _csrf: await c.csrf(), email: a.email, password },
        { 'x-forwarded-for': ip },
      );
    for (let i = 0; i < 3; i++) expect((await attempt('wrong password!')).statusCode).toBe(401);
    const limited = await attempt(PASSWORD);
    expect(limited.statusCode).toBe(429);
    expect(limited.body).toContain('Too many sign-in attempts. Try again in 15 minutes.');
    expect(Number(limited.headers['retry-after'])).toBe(900);
    // Another email from the same address is not affected.
    const other = await c.post('/dashboard/sign-in', {
      _csrf: await c.csrf(),
      email: 'else@rl.test',
      password: 'x'.repeat(12),
    });
    expect(other.statusCode).toBe(401);
    limitClock.advance(900_000);
    expect((await attempt(PASSWORD)).statusCode).toBe(303);
  });

  it('does not let a guesser at another address lock the owner out', async () => {
    const lt = await startTestApp({ signInLimitPerEmail: 3, trustProxy: true });
    onTestFinished(() => lt.close());
    const a = await lt.modules.accounts.accounts.createAccount({
      name: 'O',
      email: 'owner@rl.test',
      plan: 'pro',
    });
    await lt.modules.accounts.credentials.setPassword(a.id, PASSWORD);
    const c = dashClient(lt);
    const attempt = async (password: string, ip: string) =>
      c.post(
        '/dashboard/sign-in',
        { _csrf: await c.csrf(), email: a.email, password },
        { 'x-forwarded-for': ip },
      );
    for (let i = 0; i < 3; i++)
      expect((await attempt('wrong password!', '203.0.113.9')).statusCode).toBe(401);
    expect((await attempt('wrong password!', '203.0.113.9')).statusCode).toBe(429);
    expect((await attempt(PASSWORD, '198.51.100.7')).statusCode).toBe(303);
  });

  it('caps guesses at one email spread over many addresses at ten times the per-address budget', async () => {
    const lt = await startTestApp({ signInLimitPerEmail: 1, trustProxy: true });
    onTestFinished(() => lt.close());
    const c = dashClient(lt);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await c.post(
        '/dashboard/sign-in',
        { _csrf: await c.csrf(), email: 'spread@rl.test', password: 'whatever123' },
        { 'x-forwarded-for': `198.51.100.${i + 1}` },
      );
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
  });

  it('limits attempts per client address across emails', async () => {
    const limiterApp = await startTestApp({ signInLimitPerIp: 4, signInLimitPerEmail: 100 });
    try {
      const c = dashClient(limiterApp);
      const statuses = [];
      for (let i = 0; i < 5; i++) {
        const res = await c.post('/dashboard/sign-in', {
          _csrf: await c.csrf(),
          email: `x${i}@ip.test`,
          password: 'whatever123',
        });
        statuses.push(res.statusCode);
      }
      expect(statuses).toEqual([401, 401, 401, 401, 429]);
    } finally {
      await limiterApp.close();
    }
  });

  it('marks the cookie Secure (and __Host-) when the request came over https through a trusted proxy', async () => {
    const proxied = await startTestApp({ trustProxy: true });
    try {
      await proxied.modules.accounts.credentials.setPassword(proxied.account.email, PASSWORD);
      const c = dashClient(proxied);
      const https = { 'x-forwarded-proto': 'https', host: 'cards.example.test' };
      const page = await c.get('/dashboard/sign-in', https);
      expect(page.headers['strict-transport-security']).toBe('max-age=31536000');
      const res = await c.post(
        '/dashboard/sign-in',
        { _csrf: csrfOf(page.body), email: proxied.account.email, password: PASSWORD },
        { ...https, origin: 'https://cards.example.test' },
      );
      expect(res.statusCode).toBe(303);
      const cookie = [res.headers['set-cookie']]
        .flat()
        .find((s) => s?.startsWith('__Host-cardshot_session='))!;
      expect(cookie).toMatch(/; Path=\/;.*HttpOnly; Secure; SameSite=Lax|; Secure/);
      expect(cookie).toContain('Secure');
      expect((await c.get('/dashboard', https)).statusCode).toBe(200);
      // Over https the unprefixed name is ignored, even holding a live session id: a sibling
      // subdomain could plant that one (regression: both names used to be read).
      const planted = dashClient(proxied);
      planted.cookies.cardshot_session = c.cookies['__Host-cardshot_session']!;
      const shadow = await planted.get('/dashboard', https);
      expect(shadow.statusCode).toBe(303);
      expect(shadow.headers.location).toMatch(/^\/dashboard\/sign-in/);
    } finally {
      await proxied.close();
    }
  });
});

describe('form content types', () => {
  it("a form posted as text/plain gets a dashboard page that says how to send it, not the API's JSON advice", async () => {
    const c = dashClient(t);
    await c.csrf();
    const res = await t.app.inject({
      method: 'POST',
      url: '/dashboard/sign-in',
      cookies: c.cookies,
      headers: { 'content-type': 'text/plain' },
      payload: 'email=a',
    });
    expect(res.statusCode).toBe(415);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('This form must be sent from its dashboard page (as a web form).');
    expect(res.body).not.toContain('application/json');
  });
});

describe('sessions', () => {
  it('signing in again while signed in ends the old session', async () => {
    const c = await signedIn(t);
    const old = c.cookies.cardshot_session!;
    const again = await c.post('/dashboard/sign-in', {
      _csrf: await c.csrf('/dashboard'),
      email: t.account.email,
      password: PASSWORD,
    });
    expect(again.statusCode).toBe(303);
    expect(c.cookies.cardshot_session).not.toBe(old);
    const stale = dashClient(t);
    stale.cookies.cardshot_session = old;
    expect((await stale.get('/dashboard')).statusCode).toBe(303);
    expect((await c.get('/dashboard')).statusCode).toBe(200);
  });

  it('end after the idle timeout: the next page asks to sign in again, and the session row is gone', async () => {
    const c = await signedIn(t);
    const session = c.cookies.cardshot_session!;
    clock.advance(29 * 60_000);
    expect((await c.get('/dashboard')).statusCode).toBe(200);
    clock.advance(29 * 60_000);
    expect((await c.get('/dashboard')).statusCode).toBe(200);
    clock.advance(30 * 60_000);
    const res = await c.get('/dashboard/keys');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/sign-in?expired=1&next=%2Fdashboard%2Fkeys');
    expect((await c.get(res.headers.location as string)).body).toContain('Your session has ended');
    expect(await t.store.getSession(t.modules.accounts.secrets.hashToken(session))).toBeUndefined();
  });

  it('end at the absolute limit however active they are', async () => {
    const c = await signedIn(t);
    for (let i = 0; i < 4; i++) {
      clock.advance(29 * 60_000);
      expect((await c.get('/dashboard')).statusCode).toBe(200);
    }
    clock.advance(5 * 60_000); // 2 h 1 min after sign-in
    expect((await c.get('/dashboard')).statusCode).toBe(303);
  });

  it('sign-out ends the session on the server, not just in the browser', async () => {
    const c = await signedIn(t);
    const session = c.cookies.cardshot_session!;
    const csrf = csrfOf((await c.get('/dashboard')).body);
    const res = await c.post('/dashboard/sign-out', { _csrf: csrf });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/sign-in?signed-out=1');
    const replay = await t.app.inject({
      method: 'GET',
      url: '/dashboard',
      cookies: { cardshot_session: session },
    });
    expect(replay.statusCode).toBe(303);
  });

  it('a new password signs the account out everywhere', async () => {
    const c = await signedIn(t);
    await t.modules.accounts.credentials.setPassword(t.account.id, 'another fine passphrase');
    expect((await c.get('/dashboard')).statusCode).toBe(303);
  });

  it('ignores forged or malformed session cookies', async () => {
    for (const value of ['x', 'a'.repeat(43), '../../etc/passwd']) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/dashboard',
        cookies: { cardshot_session: value },
      });
      expect(res.statusCode).toBe(303);
    }
  });
});

describe('CSRF and origin checks', () => {
  const createKeyForm = async (c: Awaited<ReturnType<typeof signedIn>>) => {
    const page = (await c.get('/dashboard/keys')).body;
    return {
      _csrf: csrfOf(page),
      once: onceOf(page),
      name: 'Forged',
      environment: 'production',
      expires: '',
    };
  };
  const forgedKeys = async () => (await t.store.listKeys(t.account.id)).filter((k) => k.name === 'Forged');

  it('refuses a state change without the token, with a wrong token, or with another session’s token', async () => {
    const c = await signedIn(t);
    const other = await signedIn(t);
    const form = await createKeyForm(c);
    const otherToken = csrfOf((await other.get('/dashboard')).body);
    for (const bad of [{ _csrf: '' }, { _csrf: 'x'.repeat(43) }, { _csrf: otherToken }]) {
      const res = await c.post('/dashboard/keys', { ...form, ...bad });
      expect(res.statusCode).toBe(403);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain(EXPIRED_FORM);
    }
    const { _csrf: _, ...withoutToken } = form;
    expect((await c.post('/dashboard/keys', withoutToken)).statusCode).toBe(403);
    expect(await forgedKeys()).toEqual([]);
  });

  it('refuses a request from another origin even with a valid token', async () => {
    const c = await signedIn(t);
    const form = await createKeyForm(c);
    expect((await c.post('/dashboard/keys', form, { origin: 'http://evil.test' })).statusCode).toBe(403);
    expect((await c.post('/dashboard/keys', form, { origin: 'null' })).statusCode).toBe(403);
    expect((await c.post('/dashboard/keys', form, { referer: 'http://evil.test/page' })).statusCode).toBe(
      403,
    );
    expect(await forgedKeys()).toEqual([]);
    const ok = await c.post('/dashboard/keys', form, { origin: 'http://localhost:80' });
    expect(ok.statusCode).toBe(201);
    expect(await forgedKeys()).toHaveLength(1);
  });

  it('protects the sign-in form too (login CSRF): no pre-session token, no sign-in', async () => {
    const c = dashClient(t);
    const res = await c.post('/dashboard/sign-in', { email: t.account.email, password: PASSWORD });
    expect(res.statusCode).toBe(403);
    expect(res.cookies.some((k) => k.name === 'cardshot_session')).toBe(false);
  });

  it('the playground JSON call needs the token in its header and answers errors in JSON', async () => {
    const c = await signedIn(t);
    const csrf = csrfOf((await c.get('/dashboard/playground')).body);
    const call = (headers: Record<string, string>, payload: object) =>
      t.app.inject({
        method: 'POST',
        url: '/dashboard/playground/preview',
        cookies: c.cookies,
        headers,
        payload,
      });
    const noToken = await call({}, { template: 'blog', title: 'x' });
    await expectError(noToken, 403, expect.stringContaining(EXPIRED_FORM));
    const missing = await call({ 'x-csrf-token': csrf }, { template: 'blog', title: '' });
    await expectError(missing, 400, 'title must not be empty');
    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/dashboard/playground/preview',
      headers: { 'x-csrf-token': csrf },
      payload: { template: 'blog', title: 'x' },
    });
    await expectError(anonymous, 401, 'Your session has ended; sign in again');
  });
});

describe('invite links', () => {
  it('set a password once, sign the person in, and cannot be used again', async () => {
    const a = await t.modules.accounts.accounts.createAccount({
      name: 'Invited',
      email: 'new@invite.test',
      plan: 'free',
    });
    const { token } = await t.modules.accounts.credentials.createInvite(a.id);
    const c = dashClient(t);
    const page = await c.get(`/dashboard/invite?token=${token}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('new@invite.test');
    const form = { _csrf: csrfOf(page.body), token };
    const mismatch = await c.post('/dashboard/invite', {
      ...form,
      password: PASSWORD,
      confirm: 'something else',
    });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.body).toContain('The two passwords do not match.');
    const short = await c.post('/dashboard/invite', { ...form, password: 'short', confirm: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('Password must be at least 10 characters');
    const ok = await c.post('/dashboard/invite', { ...form, password: PASSWORD, confirm: PASSWORD });
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe('/dashboard?welcome=1');
    expect((await c.get('/dashboard?welcome=1')).body).toContain('Your password is set');
    const again = await dashClient(t).get(`/dashboard/invite?token=${token}`);
    expect(again.statusCode).toBe(400);
    expect(again.body).toContain('This invite link cannot be used');
    expect(await t.modules.accounts.credentials.verify('new@invite.test', PASSWORD)).toMatchObject({
      id: a.id,
    });
  });

  it('only the newest link works, and none after the password is set any other way', async () => {
    const a = await t.modules.accounts.accounts.createAccount({
      name: 'Twice',
      email: 'twice@invite.test',
      plan: 'free',
    });
    const creds = t.modules.accounts.credentials;
    const first = await creds.createInvite(a.id);
    const second = await creds.createInvite(a.id);
    expect((await dashClient(t).get(`/dashboard/invite?token=${first.token}`)).statusCode).toBe(400);
    expect((await dashClient(t).get(`/dashboard/invite?token=${second.token}`)).statusCode).toBe(200);
    // The operator sets the password from the CLI: the outstanding link must not reset it.
    await creds.setPassword(a.id, PASSWORD);
    const stale = await dashClient(t).get(`/dashboard/invite?token=${second.token}`);
    expect(stale.statusCode).toBe(400);
    expect(stale.body).toContain('This invite link cannot be used');
    await expect(creds.acceptInvite(second.token, `${PASSWORD}-taken-over`)).rejects.toThrow(
      'This invite link has expired or was already used; ask for a new one',
    );
    expect(await creds.verify('twice@invite.test', PASSWORD)).toMatchObject({ id: a.id });
  });

  it('expire', async () => {
    const a = await t.modules.accounts.accounts.createAccount({
      name: 'Late',
      email: 'late@invite.test',
      plan: 'free',
    });
    const { token } = await t.modules.accounts.credentials.createInvite(a.id);
    clock.advance(3_600_000);
    expect((await dashClient(t).get(`/dashboard/invite?token=${token}`)).statusCode).toBe(400);
  });
});

describe('API keys panel', () => {
  it('creates a key with a custom environment, shows it once, and a re-sent form never shows it again', async () => {
    const c = await signedIn(t);
    const page = (await c.get('/dashboard/keys')).body;
    const form = {
      _csrf: csrfOf(page),
      once: onceOf(page),
      name: 'Preview deploys',
      environment: 'custom',
      custom: 'preview',
      expires: '30d',
    };
    const res = await c.post('/dashboard/keys', form);
    expect(res.statusCode).toBe(201);
    const key = /<code id="new-key"[^>]*>(cs_preview_[0-9A-Za-z]{28})<\/code>/.exec(res.body)?.[1];
    const secret = /<code id="new-secret"[^>]*>(cssig_[\w-]{43})<\/code>/.exec(res.body)?.[1];
    expect(key).toBeDefined();
    expect(secret).toBeDefined();
    const card = await t.inject({
      method: 'GET',
      url: '/render/template?template=blog&title=From%20the%20panel',
      headers: { 'x-api-key': key! },
    });
    expect(card.statusCode).toBe(200);
    const resent = await c.post('/dashboard/keys', form);
    expect(resent.statusCode).toBe(303);
    expect(resent.headers.location).toBe('/dashboard/keys?notice=shown-once');
    const list = (await c.get('/dashboard/keys?notice=shown-once')).body;
    expect(list).not.toContain(key!);
    expect(list).not.toContain(secret!);
    expect(list).toContain('was already shown once');
    expect(list).toContain(`${key!.slice(0, 15)}…${key!.slice(-4)}`);
    expect((await t.store.listKeys(t.account.id)).filter((k) => k.name === 'Preview deploys')).toHaveLength(
      1,
    );
  });

  it('shows a key only for a one-time token this server issued to this session', async () => {
    const c = await signedIn(t);
    const other = await signedIn(t);
    const page = (await c.get('/dashboard/keys')).body;
    const fields = { _csrf: csrfOf(page), name: 'Forged once', environment: 'production', expires: '' };
    const before = (await t.store.listKeys(t.account.id)).length;
    const refused = async (once: string) => {
      const res = await c.post('/dashboard/keys', { ...fields, once });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/dashboard/keys?notice=shown-once');
    };
    // Made up by the form, issued to another session or altered: no key is made (a day-old
    // token: test/dashboard/sessions.test.ts).
    await refused('x');
    await refused('A'.repeat(43));
    await refused(onceOf((await other.get('/dashboard/keys')).body));
    const issued = onceOf(page);
    await refused(`${issued.slice(0, -1)}${issued.endsWith('0') ? '1' : '0'}`);
    expect((await t.store.listKeys(t.account.id)).length).toBe(before);
    const fresh = onceOf((await c.get('/dashboard/keys')).body);
    expect((await c.post('/dashboard/keys', { ...fields, once: fresh })).statusCode).toBe(201);
  });

  it('shows form errors in the page with the values kept', async () => {
    const c = await signedIn(t);
    const page = (await c.get('/dashboard/keys')).body;
    const res = await c.post('/dashboard/keys', {
      _csrf: csrfOf(page),
      once: onceOf(page),
      name: 'CI <runner>',
      environment: 'custom',
      custom: 'Not Valid!',
      expires: '',
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('The custom label must be 1–16 lower-case letters and digits');
    expect(res.body).toContain('value="CI &lt;runner&gt;"');
    const noName = await c.post('/dashboard/keys', {
      _csrf: csrfOf(page),
      once: onceOf(res.body),
      name: ' ',
      environment: 'production',
      expires: '',
    });
    expect(noName.statusCode).toBe(400);
    expect(noName.body).toContain('Give the key a name');
  });

  it('revokes after confirmation; the key then gets 401', async () => {
    const c = await signedIn(t);
    const k = await t.modules.accounts.accounts.createKey({
      accountId: t.account.id,
      name: 'To revoke',
      environment: 'staging',
    });
    const confirm = await c.get(`/dashboard/keys/${k.record.id}/revoke`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('Revoke “To revoke”?');
    const res = await c.post(`/dashboard/keys/${k.record.id}/revoke`, { _csrf: csrfOf(confirm.body) });
    expect(res.headers.location).toBe('/dashboard/keys?notice=revoked');
    const card = await t.inject({
      method: 'GET',
      url: '/render/template?template=blog&title=x',
      headers: { 'x-api-key': k.key },
    });
    expect(card.statusCode).toBe(401);
  });

  it('rotates with the chosen grace period and shows the new key once', async () => {
    const c = await signedIn(t);
    const k = await t.modules.accounts.accounts.createKey({
      accountId: t.account.id,
      name: 'To rotate',
      environment: 'production',
    });
    const page = (await c.get(`/dashboard/keys/${k.record.id}/rotate`)).body;
    const res = await c.post(`/dashboard/keys/${k.record.id}/rotate`, {
      _csrf: csrfOf(page),
      once: onceOf(page),
      grace: '1h',
    });
    expect(res.statusCode).toBe(201);
    expect(res.body).toMatch(/<code id="new-key"[^>]*>cs_production_/);
    expect(res.body).toContain('keeps working until');
    const old = await t.store.findKey({ id: k.record.id });
    expect(old?.key.expiresAt).toBe(clock.now() + 3_600_000);
  });

  it('does not rotate a key again while it is in its grace period: its replacement is the one to rotate', async () => {
    const c = await signedIn(t);
    const k = await t.modules.accounts.accounts.createKey({
      accountId: t.account.id,
      name: 'Rotated once',
      environment: 'production',
    });
    const page = (await c.get(`/dashboard/keys/${k.record.id}/rotate`)).body;
    const form = { _csrf: csrfOf(page), once: onceOf(page), grace: '24h' };
    expect((await c.post(`/dashboard/keys/${k.record.id}/rotate`, form)).statusCode).toBe(201);
    // The list: the old row says it was rotated and offers Revoke only.
    const list = (await c.get('/dashboard/keys')).body;
    const row = list.slice(list.indexOf(k.record.id), list.indexOf('</tr>', list.indexOf(k.record.id)));
    expect(row).toContain('>Rotated</span>');
    expect(row).not.toContain(`/dashboard/keys/${k.record.id}/rotate`);
    expect(row).toContain(`/dashboard/keys/${k.record.id}/revoke`);
    // Asking anyway (an old tab, a typed address): back to the list with a notice, nothing minted.
    const keysBefore = (await t.store.listKeys(t.account.id)).length;
    const again = await c.get(`/dashboard/keys/${k.record.id}/rotate`);
    expect(again.headers.location).toBe('/dashboard/keys?notice=rotated');
    const fresh = (await c.get('/dashboard/keys')).body;
    const posted = await c.post(`/dashboard/keys/${k.record.id}/rotate`, {
      _csrf: csrfOf(fresh),
      once: onceOf(fresh),
      grace: '1h',
    });
    expect(posted.headers.location).toBe('/dashboard/keys?notice=rotated');
    expect((await t.store.listKeys(t.account.id)).length).toBe(keysBefore);
    expect((await t.store.findKey({ id: k.record.id }))?.key.expiresAt).toBe(clock.now() + 86_400_000);
    expect((await c.get('/dashboard/keys?notice=rotated')).body).toContain(
      'That key was already rotated: it works only until its grace period ends. Rotate its replacement instead.',
    );
  });

  it('cannot see or change another account’s keys', async () => {
    const other = await t.modules.accounts.accounts.createAccount({
      name: 'Other',
      email: 'other@keys.test',
      plan: 'pro',
    });
    const theirs = await t.modules.accounts.accounts.createKey({
      accountId: other.id,
      name: 'Theirs',
      environment: 'production',
    });
    const c = await signedIn(t);
    const csrf = csrfOf((await c.get('/dashboard')).body);
    expect((await c.get(`/dashboard/keys/${theirs.record.id}/revoke`)).statusCode).toBe(404);
    expect((await c.post(`/dashboard/keys/${theirs.record.id}/revoke`, { _csrf: csrf })).statusCode).toBe(
      404,
    );
    expect((await t.store.findKey({ id: theirs.record.id }))?.key.revokedAt).toBeNull();
    expect((await c.get('/dashboard/keys')).body).not.toContain(theirs.record.id);
  });
});

describe('overview and playground', () => {
  it('shows today’s requests and the rate-limit budget left', async () => {
    const fresh = await startTestApp();
    try {
      for (let i = 0; i < 2; i++) {
        expect(
          (await fresh.inject({ method: 'GET', url: `/render/template?template=blog&title=Usage%20${i}` }))
            .statusCode,
        ).toBe(200);
      }
      expect(
        (await fresh.inject({ method: 'GET', url: '/render/template?template=blog&title=Usage%200' }))
          .headers['x-cache'],
      ).toBe('HIT');
      const body = (await (await signedIn(fresh)).get('/dashboard')).body;
      expect(body).toMatch(/<p class="stat-label">Template renders<\/p><p class="stat-value">2<\/p>/);
      expect(body).toMatch(/<p class="stat-label">Cache hit rate<\/p><p class="stat-value">33%<\/p>/);
      expect(body).toContain('<strong>597</strong> of 600');
      expect(body).toContain('600 requests per 60 seconds');
    } finally {
      await fresh.close();
    }
  });

  it('mints signed URLs that render through the real endpoint; no key or secret reaches the page', async () => {
    const c = await signedIn(t);
    const page = await c.get('/dashboard/playground?template=saas&title=Hello%20playground&brand=Acme');
    expect(page.statusCode).toBe(200);
    const src = /<img id="pg-preview" src="([^"]+)"/.exec(page.body)![1]!.replace(/&amp;/g, '&');
    expect(src, src).toMatch(
      /^\/render\/template\?template=saas&title=Hello%20playground&brand=Acme&kid=key_\w+&exp=\d+&sig=[\w-]{43}$/,
    );
    const card = await t.app.inject({ method: 'GET', url: src });
    expect(card.statusCode).toBe(200);
    expect(pngSize(card.rawPayload)).toEqual({ width: 1200, height: 630 });
    expect(page.body).toContain(
      '&lt;meta property=&quot;og:image&quot; content=&quot;http://localhost/render/template?template=saas&amp;amp;title=Hello%20playground',
    );
    expect(page.body).not.toContain(t.key.key);
    expect(page.body).not.toContain(t.key.signingSecret);
    expect(page.body).not.toContain('cssig_');
  });

  // Regression (issue 20 §5): with CARDSHOT_PUBLIC_URL unset the og:image URL and the curl command
  // were built from the Host header, so `Host: evil'$(id)'` ended up inside the shell quotes.
  it('builds the og:image URL and curl command from the listening address, never the Host header', async () => {
    const c = await signedIn(t);
    const evil = "evil'$(id)'.example";
    const page = await c.get("/dashboard/playground?template=blog&title=It's%20here", { host: evil });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('evil');
    // Injected requests have no socket and the app is not listening: the neutral localhost.
    expect(page.body).toContain('curl -sS -X POST &#39;http://localhost/render/template&#39;');
    expect(page.body).toContain(
      '-d &#39;{&quot;template&quot;:&quot;blog&quot;,&quot;title&quot;:&quot;It&#39;\\&#39;&#39;s here&quot;}&#39;',
    );

    // Over a real socket: the address and port the connection arrived at.
    const lt = await startTestApp({});
    onTestFinished(() => lt.close());
    await lt.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (lt.app.server.address() as { port: number }).port;
    const lc = await signedIn(lt);
    const cookie = Object.entries(lc.cookies)
      .map(([k, v]) => `${k}=${v}`)
      .join('; ');
    const res = await fetch(`http://127.0.0.1:${port}/dashboard/playground?template=blog&title=Hi`, {
      headers: { host: evil, cookie },
    });
    const body = await res.text();
    expect(res.status).toBe(200);
    expect(body).not.toContain('evil');
    expect(body).toContain(`curl -sS -X POST &#39;http://127.0.0.1:${port}/render/template&#39;`);
    expect(body).toContain(`content=&quot;http://127.0.0.1:${port}/render/template?template=blog`);
  });

  it('says how long the og:image URL works, and signs with a key that outlives it when there is one', async () => {
    const a = await t.modules.accounts.accounts.createAccount({
      name: 'Expiring',
      email: 'expiring@pg.test',
      plan: 'pro',
    });
    const expiresAt = clock.now() + 30 * 86_400_000;
    const short = await t.modules.accounts.accounts.createKey({
      accountId: a.id,
      name: 'Short-lived',
      environment: 'production',
      expiresAt,
    });
    const c = await signedIn(t, a.email);
    const ogExp = (body: string) => Number(/og:image&quot; content=&quot;[^"]*?exp=(\d+)/.exec(body)?.[1]);
    const hint = (body: string) => /<p class="field-hint" id="pg-meta-hint">([^<]*)<\/p>/.exec(body)?.[1];
    const first = (await c.get('/dashboard/playground?template=blog&title=Soon')).body;
    expect(ogExp(first)).toBe(Math.floor(expiresAt / 1000));
    const at = new Date(expiresAt);
    const hhmm = `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`;
    expect(hint(first)).toContain(
      `Signed URL, valid only until ${at.toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' })}, ${hhmm} UTC, when key ${short.record.prefix}…${short.record.last4} expires: the tag stops working then.`,
    );
    await t.modules.accounts.accounts.createKey({ accountId: a.id, name: 'Site', environment: 'production' });
    const second = (await c.get('/dashboard/playground?template=blog&title=Soon')).body;
    expect(ogExp(second)).toBeGreaterThan(clock.now() / 1000 + 364 * 86_400);
    expect(hint(second)).toMatch(
      /^Signed URL, valid until \w{3} \d{1,2}, \d{4} \(one year\); it renders exactly this card/,
    );
  });

  it('answers 403 for a template that is not on the plan', async () => {
    const a = await t.modules.accounts.accounts.createAccount({
      name: 'Free',
      email: 'free@pg.test',
      plan: 'free',
    });
    await t.modules.accounts.accounts.createKey({ accountId: a.id, name: 'k', environment: 'production' });
    const c = await signedIn(t, a.email);
    const csrf = csrfOf((await c.get('/dashboard/playground')).body);
    const res = await t.app.inject({
      method: 'POST',
      url: '/dashboard/playground/preview',
      cookies: c.cookies,
      headers: { 'x-csrf-token': csrf },
      payload: { template: 'saas', title: 'x' },
    });
    await expectError(res, 403, 'Template not available on your plan');
  });
});
