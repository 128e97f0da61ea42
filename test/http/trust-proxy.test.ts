import { describe, expect, it, onTestFinished } from 'vitest';
import { ConfigError } from '../../src/config/load.js';
import { loadConfig } from '../../src/settings.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { csrfOf, dashClient } from '../helpers/dashboard.js';

// app.inject's peer is 127.0.0.1: the proxy in front, as far as these tests are concerned.
async function behind(trustProxy: string): Promise<TestApp> {
  const t = await startTestApp({ trustProxy, signInLimitPerIp: 2, signInLimitPerEmail: 100 });
  onTestFinished(() => t.close());
  return t;
}

/** Sign-in attempts (unknown emails) carrying `forwardedFor`; their statuses and the address each was logged under. */
async function attempts(t: TestApp, forwardedFor: string[]): Promise<{ statuses: number[]; ips: unknown[] }> {
  const c = dashClient(t);
  const statuses: number[] = [];
  for (const [i, xff] of forwardedFor.entries()) {
    const res = await c.post(
      '/dashboard/sign-in',
      { _csrf: await c.csrf(), email: `n${i}@proxy.test`, password: 'whatever123' },
      { 'x-forwarded-for': xff },
    );
    statuses.push(res.statusCode);
  }
  const ips = t.logs
    .filter((l) => l.msg === 'dashboard sign-in refused' || l.msg === 'dashboard sign-in rate limited')
    .map((l) => l.ip);
  return { statuses, ips };
}

describe('CARDSHOT_TRUST_PROXY', () => {
  it('with 1, the client is the entry the nearest proxy appended, not one the client wrote before it', async () => {
    const t = await behind('1');
    // A client that sends its own X-Forwarded-For cannot pick a fresh address each time.
    const { statuses, ips } = await attempts(t, [
      '6.6.6.6, 203.0.113.7',
      '6.6.6.7, 203.0.113.7',
      '6.6.6.8, 203.0.113.7',
      '6.6.6.6, 203.0.113.8',
    ]);
    expect(statuses).toEqual([401, 401, 429, 401]);
    expect(ips).toEqual(['203.0.113.7', '203.0.113.7', '203.0.113.7', '203.0.113.8']);
  });

  it('the old value true means 1 (the nearest proxy), never every hop', async () => {
    const t = await behind('true');
    const { statuses, ips } = await attempts(t, [
      '6.6.6.6, 203.0.113.7',
      '6.6.6.7, 203.0.113.7',
      '6.6.6.8, 203.0.113.7',
    ]);
    expect(statuses).toEqual([401, 401, 429]);
    expect(ips).toEqual(['203.0.113.7', '203.0.113.7', '203.0.113.7']);
  });

  it('with 2, the client is the entry the farther proxy appended (the nearer one added the farther one)', async () => {
    const t = await behind('2');
    const { ips } = await attempts(t, ['6.6.6.6, 10.0.0.5', '198.51.100.4, 6.6.6.6, 10.0.0.5']);
    expect(ips).toEqual(['6.6.6.6', '6.6.6.6']);
  });

  it('with a list, only the listed proxies are believed, and a client listed nowhere is itself', async () => {
    const listed = await behind('10.0.0.0/8, 127.0.0.1');
    // 10.1.2.3 is a listed proxy too, so the address before it is the client.
    expect((await attempts(listed, ['6.6.6.6, 203.0.113.7, 10.1.2.3'])).ips).toEqual(['203.0.113.7']);
    const other = await behind('10.9.9.9');
    expect((await attempts(other, ['6.6.6.6, 203.0.113.7'])).ips).toEqual(['127.0.0.1']);
  });

  it('with false, X-Forwarded-For is ignored', async () => {
    const t = await behind('false');
    expect((await attempts(t, ['203.0.113.7'])).ips).toEqual(['127.0.0.1']);
  });

  it('a hop count believes X-Forwarded-Proto from the nearest proxy (Secure, __Host- cookies)', async () => {
    // Fastify reads a numeric trustProxy as "trust no one": this is what a plain 1 would lose.
    const t = await behind('1');
    const c = dashClient(t);
    const https = { 'x-forwarded-proto': 'https', host: 'cards.example.test' };
    const page = await c.get('/dashboard/sign-in', https);
    expect(page.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(csrfOf(page.body)).not.toBe('');
    expect(Object.keys(c.cookies)).toEqual(['__Host-cardshot_pre']);
  });

  it('refuses values it cannot use when the configuration is loaded, naming the variable', () => {
    const load = (v: string) => () => loadConfig({}, { CARDSHOT_TRUST_PROXY: v });
    const expected =
      'CARDSHOT_TRUST_PROXY must be false, a number of proxy hops from 1 to 10, or a comma-separated list of proxy IP addresses or CIDR ranges';
    expect(load('proxy.internal')).toThrow(
      new ConfigError(
        `${expected} (got "proxy.internal": "proxy.internal" is not an IP address or CIDR range)`,
      ),
    );
    expect(load('10.0.0.0/33')).toThrow(
      new ConfigError(`${expected} (got "10.0.0.0/33": "10.0.0.0/33" has a prefix length outside 0 to 32)`),
    );
    expect(load('0.0.0.0/0')).toThrow(/"0.0.0.0\/0" covers every address \(list the proxies themselves\)/);
    expect(load('::/0')).toThrow(/covers every address/);
    expect(load('11')).toThrow(new ConfigError(`${expected} (got "11")`));
    expect(load('10.0.0.1,nope')).toThrow(/"nope" is not an IP address or CIDR range/);
    for (const ok of ['false', 'true', '1', '3', '10.0.0.0/8', '10.0.0.1, fd00::/8, ::1', '0']) {
      expect(loadConfig({}, { CARDSHOT_TRUST_PROXY: ok }).trustProxy).toBe(ok);
    }
    expect(loadConfig({}, {}).trustProxy).toBe('false');
  });
});
