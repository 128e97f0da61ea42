import { describe, expect, it, onTestFinished } from 'vitest';
import { addressBucket } from '../../src/dashboard/client-address.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type DashClient, dashClient, PASSWORD } from '../helpers/dashboard.js';

const LIMITED = 'Too many sign-in attempts.';

/** An app behind one proxy (so tests choose the client address) with small sign-in budgets. */
async function app(perEmail: number): Promise<TestApp> {
  const t = await startTestApp({ signInLimitPerEmail: perEmail, signInLimitPerIp: 1000, trustProxy: '1' });
  onTestFinished(() => t.close());
  return t;
}

async function owner(t: TestApp, email: string): Promise<void> {
  const a = await t.modules.accounts.accounts.createAccount({ name: 'Owner', email, plan: 'pro' });
  await t.modules.accounts.credentials.setPassword(a.id, PASSWORD);
}

const signIn = async (c: DashClient, email: string, password: string, ip: string) =>
  c.post('/dashboard/sign-in', { _csrf: await c.csrf(), email, password }, { 'x-forwarded-for': ip });

/**
 * A stranger guessing at `email` from address after address, each within its own per-address
 * budget, until the budget for the email across all addresses (ten times it) is spent.
 */
async function exhaustEmailBudget(t: TestApp, email: string, perEmail: number): Promise<void> {
  const stranger = dashClient(t);
  for (let n = 0; ; n++) {
    const res = await signIn(
      stranger,
      email,
      'wrong password!',
      `198.51.100.${Math.floor(n / perEmail) + 1}`,
    );
    if (res.statusCode === 429) break;
    expect(res.statusCode).toBe(401);
    expect(n).toBeLessThan(10 * perEmail);
  }
  // Spent: a new address, with the right password, is refused.
  expect((await signIn(stranger, email, PASSWORD, '198.51.100.200')).statusCode).toBe(429);
}

describe('sign-in lockout by a stranger (device cookies)', () => {
  it('the owner signs in from a browser that signed in before, after a stranger spent the budget shared by all addresses', async () => {
    const t = await app(1);
    await owner(t, 'owner@lock.test');
    const browser = dashClient(t);
    const first = await signIn(browser, 'owner@lock.test', PASSWORD, '192.0.2.10');
    expect(first.statusCode).toBe(303);
    const cookie = [first.headers['set-cookie']].flat().find((s) => s?.startsWith('cardshot_device='))!;
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Max-Age=31536000');
    // Signing out keeps it: it says who this browser belongs to, not that anyone is signed in.
    const signOut = await browser.post('/dashboard/sign-out', { _csrf: await browser.csrf('/dashboard') });
    expect(signOut.headers.location).toBe('/dashboard/sign-in?signed-out=1');
    expect(browser.cookies.cardshot_device).toBeDefined();

    await exhaustEmailBudget(t, 'owner@lock.test', 1);

    // From a new address too (the owner's phone moved networks): the device cookie is what counts.
    const back = await signIn(browser, 'OWNER@lock.test', PASSWORD, '192.0.2.99');
    expect(back.statusCode).toBe(303);
    expect(back.headers.location).toBe('/dashboard');
    expect((await browser.get('/dashboard')).statusCode).toBe(200);

    // A browser without the cookie, even with the right password, is still refused.
    const fresh = await signIn(dashClient(t), 'owner@lock.test', PASSWORD, '192.0.2.20');
    expect(fresh.statusCode).toBe(429);
    expect(fresh.body).toContain(LIMITED);
    expect(Number(fresh.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('a device cookie helps only the email it was issued for, only untampered, and keeps the per-address limit', async () => {
    const t = await app(1);
    await owner(t, 'one@lock.test');
    await owner(t, 'two@lock.test');
    const browser = dashClient(t);
    expect((await signIn(browser, 'one@lock.test', PASSWORD, '192.0.2.10')).statusCode).toBe(303);
    delete browser.cookies.cardshot_session;
    const device = browser.cookies.cardshot_device!;

    // Another account's budget, spent: one@'s cookie does not open two@.
    await exhaustEmailBudget(t, 'two@lock.test', 1);
    expect((await signIn(browser, 'two@lock.test', PASSWORD, '192.0.2.10')).statusCode).toBe(429);

    await exhaustEmailBudget(t, 'one@lock.test', 1);
    // A cookie with one character changed, or from another installation's secret, is no cookie.
    const forged = dashClient(t);
    forged.cookies.cardshot_device = `${device.slice(0, -1)}${device.endsWith('0') ? '1' : '0'}`;
    expect((await signIn(forged, 'one@lock.test', PASSWORD, '192.0.2.30')).statusCode).toBe(429);

    // The real one still works, within the per-address budget: its sign-in from .10 spent it there.
    const limited = await signIn(browser, 'one@lock.test', PASSWORD, '192.0.2.10');
    expect(limited.statusCode).toBe(429);
    expect(limited.body).toContain(LIMITED);
    expect((await signIn(browser, 'one@lock.test', PASSWORD, '192.0.2.11')).statusCode).toBe(303);
  });

  it('a device cookie used from many addresses has a budget of its own (a stolen cookie is worth one address)', async () => {
    const t = await app(2);
    await owner(t, 'stolen@lock.test');
    const browser = dashClient(t);
    expect((await signIn(browser, 'stolen@lock.test', PASSWORD, '192.0.2.10')).statusCode).toBe(303);
    delete browser.cookies.cardshot_session;
    const statuses: number[] = [];
    for (let a = 1; a <= 3; a++) {
      statuses.push(
        (await signIn(browser, 'stolen@lock.test', 'wrong password!', `203.0.113.${a}`)).statusCode,
      );
    }
    expect(statuses).toEqual([401, 401, 429]);
  });
});

describe('per-address sign-in budgets over IPv6', () => {
  it('addresses in one /64 share a budget; the next /64 has its own', async () => {
    const t = await app(2);
    const c = dashClient(t);
    const attempt = (ip: string) => signIn(c, 'v6@lock.test', 'wrong password!', ip);
    expect((await attempt('2001:db8:1:2::1')).statusCode).toBe(401);
    expect((await attempt('2001:DB8:1:2:ffff:ffff:ffff:9')).statusCode).toBe(401);
    const third = await attempt('2001:db8:1:2:abcd:ef01:2345:6789');
    expect(third.statusCode).toBe(429);
    expect(third.body).toContain(LIMITED);
    expect((await attempt('2001:db8:1:3::1')).statusCode).toBe(401);
    const limited = t.logs.filter((l) => l.msg === 'dashboard sign-in rate limited');
    expect(limited).toHaveLength(1);
    expect(limited[0]).toMatchObject({ ip: '2001:db8:1:2:abcd:ef01:2345:6789', by: 'email+ip' });
  });

  it('keys IPv4 whole, IPv6 by its /64 in every spelling, and IPv4-mapped IPv6 as the IPv4 address', () => {
    expect(addressBucket('203.0.113.7')).toBe('203.0.113.7');
    expect(addressBucket('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:0DB8:0001:0002:ffff:0:0:1')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:db8::')).toBe('2001:db8:0:0::/64');
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
    expect(addressBucket('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressBucket('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressBucket('::ffff:cb00:7107')).toBe('203.0.113.7');
    expect(addressBucket('64:ff9b::203.0.113.7')).toBe('64:ff9b:0:0::/64');
  });
});
