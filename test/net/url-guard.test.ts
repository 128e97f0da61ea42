import { describe, expect, it } from 'vitest';
import { classifyAddress, createUrlGuard, type LookupFn, UrlRefusedError } from '../../src/net/url-guard.js';

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:4700:4700::1111';

/** The refusal thrown by `check`, or a failure when it passed. */
async function refusal(p: Promise<unknown>): Promise<UrlRefusedError> {
  const err = await p.then(
    () => new Error('expected a refusal, got a target'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UrlRefusedError);
  return err as UrlRefusedError;
}

describe('classifyAddress', () => {
  it.each([
    ['0.0.0.0', '0.0.0.0/8'],
    ['0.255.1.2', '0.0.0.0/8'],
    ['10.1.2.3', '10.0.0.0/8'],
    ['100.64.0.1', '100.64.0.0/10'],
    ['100.127.255.255', '100.64.0.0/10'],
    ['127.0.0.1', '127.0.0.0/8'],
    ['127.255.255.254', '127.0.0.0/8'],
    ['169.254.169.254', '169.254.0.0/16'],
    ['172.16.0.1', '172.16.0.0/12'],
    ['172.31.255.255', '172.16.0.0/12'],
    ['192.0.0.8', '192.0.0.0/24'],
    ['192.0.2.1', '192.0.2.0/24'],
    ['192.88.99.1', '192.88.99.0/24'],
    ['192.168.1.1', '192.168.0.0/16'],
    ['198.18.0.1', '198.18.0.0/15'],
    ['198.19.255.255', '198.18.0.0/15'],
    ['198.51.100.7', '198.51.100.0/24'],
    ['203.0.113.9', '203.0.113.0/24'],
    ['224.0.0.1', '224.0.0.0/4'],
    ['239.255.255.250', '224.0.0.0/4'],
    ['240.0.0.1', '240.0.0.0/4'],
    ['255.255.255.255', '240.0.0.0/4'],
  ])('refuses IPv4 %s (%s)', (addr, cidr) => {
    expect(classifyAddress(addr)).toContain(cidr);
  });

  it.each([
    ['::', '::/128'],
    ['::1', '::1/128'],
    ['::ffff:127.0.0.1', '::ffff:0:0/96'],
    ['::ffff:7f00:1', '::ffff:0:0/96'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', '::ffff:0:0/96'],
    ['::ffff:8.8.8.8', '::ffff:0:0/96'], // even a public one: we never dial mapped forms
    ['::127.0.0.1', '::/96'],
    ['::7f00:1', '::/96'],
    ['::ffff:0:7f00:1', '::ffff:0:0:0/96'],
    ['64:ff9b::7f00:1', '64:ff9b::/96'],
    ['64:ff9b::a9fe:a9fe', '64:ff9b::/96'],
    ['64:ff9b:1::1', '64:ff9b:1::/48'],
    ['100::1', '100::/64'],
    ['2001::1', '2001::/23'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::/23'],
    ['2001:db8::1', '2001:db8::/32'],
    ['2002:7f00:1::1', '2002::/16'],
    ['3fff::1', '3fff::/20'],
    ['fc00::1', 'fc00::/7'],
    ['fd12:3456:789a::1', 'fc00::/7'],
    ['fe80::1', 'fe80::/10'],
    ['febf:ffff::1', 'fe80::/10'],
    ['fec0::1', 'fec0::/10'],
    ['ff02::1', 'ff00::/8'],
    ['ff0e::fb', 'ff00::/8'],
    ['5f00::1', 'outside 2000::/3'],
    ['4000::1', 'outside 2000::/3'],
  ])('refuses IPv6 %s (%s)', (addr, cidr) => {
    expect(classifyAddress(addr)).toContain(cidr);
  });

  it.each([
    '1.1.1.1',
    PUBLIC_V4,
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.1',
    '192.167.255.255',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    PUBLIC_V6,
    '2a00:1450:4001:80b::200e',
    '2001:4860:4860::8888',
    '2001:200::1',
    '2003::1',
  ])('accepts public unicast %s', (addr) => {
    expect(classifyAddress(addr)).toBeNull();
  });

  it.each(['', 'localhost', '127.1', '1.2.3.4.5', '::g', 'fe80::1%eth0', '[::1]', '01.2.3.4'])(
    'treats %j, which is not a plain IP literal, as not public',
    (s) => {
      expect(classifyAddress(s)).not.toBeNull();
    },
  );
});

describe('createUrlGuard().check', () => {
  const guard = createUrlGuard({ allowPrivateHosts: [] });

  it.each([
    ['http://127.1/', '127.0.0.1'],
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://0/', '0.0.0.0'],
    ['http://0.0.0.0/', '0.0.0.0'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['http://[::1]/', '::1'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['http://[::ffff:7f00:1]/', '::ffff:7f00:1'],
    ['http://[0:0:0:0:0:ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['http://[::127.0.0.1]/', '::7f00:1'],
    ['https://[fe80::1]/', 'fe80::1'],
    ['http://[64:ff9b::127.0.0.1]/', '64:ff9b::7f00:1'],
  ])('refuses %s as an address (%s) after URL normalisation', async (url, addr) => {
    const err = await refusal(guard.check(url));
    expect(err.reason).toBe('address');
    expect(err.detail).toContain(`-> ${addr} is`);
  });

  it.each([
    ['file:///etc/passwd', 'scheme'],
    ['ftp://example.com/', 'scheme'],
    ['gopher://127.0.0.1:70/', 'scheme'],
    ['javascript:alert(1)', 'scheme'],
    ['http://user@127.0.0.1/', 'userinfo'],
    ['http://user:pw@example.com/', 'userinfo'],
    ['http://:pw@example.com/', 'userinfo'],
    ['http://example.com:8080/', 'port'],
    ['https://example.com:22/', 'port'],
    ['not a url', 'invalid'],
    ['/relative/path', 'invalid'],
    ['http://exa mple.com/', 'invalid'],
  ])('refuses %s (%s)', async (url, reason) => {
    const lookup: LookupFn = async () => [{ address: PUBLIC_V4, family: 4 }];
    const err = await refusal(createUrlGuard({ allowPrivateHosts: [], lookup }).check(url));
    expect(err.reason).toBe(reason);
  });

  it('returns the literal address, family and effective port without resolving', async () => {
    const g = createUrlGuard({
      allowPrivateHosts: [],
      lookup: async () => {
        throw new Error('must not resolve IP literals');
      },
    });
    const v4 = await g.check(`https://${PUBLIC_V4}/a?b#c`);
    expect([v4.address, v4.family, v4.port, v4.url.href]).toEqual([
      PUBLIC_V4,
      4,
      443,
      `https://${PUBLIC_V4}/a?b#c`,
    ]);
    const v6 = await g.check(`http://[${PUBLIC_V6}]/`);
    expect([v6.address, v6.family, v6.port]).toEqual([PUBLIC_V6, 6, 80]);
  });

  it('allows extra ports only when configured', async () => {
    const g = createUrlGuard({ allowPrivateHosts: [], allowedPorts: [8443] });
    expect((await g.check(`https://${PUBLIC_V4}:8443/`)).port).toBe(8443);
    expect((await refusal(g.check(`https://${PUBLIC_V4}/`))).reason).toBe('port');
  });

  it('lets an allow-listed host:port through, normalised, and nothing else on that host', async () => {
    const g = createUrlGuard({ allowPrivateHosts: ['127.0.0.1:41234', '[::1]:41235'] });
    for (const url of ['http://127.0.0.1:41234/', 'http://127.1:41234/x', 'http://2130706433:41234/']) {
      expect((await g.check(url)).address).toBe('127.0.0.1');
    }
    expect((await g.check('http://[::1]:41235/')).address).toBe('::1');
    expect((await refusal(g.check('http://127.0.0.1:41235/'))).reason).toBe('port');
    expect((await refusal(g.check('http://127.0.0.1/'))).reason).toBe('address');
    expect((await refusal(g.check('http://127.0.0.2:41234/'))).reason).toBe('port');
    expect((await refusal(g.check('http://user@127.0.0.1:41234/'))).reason).toBe('userinfo');
  });

  it.each(['127.0.0.1', 'localhost', '127.0.0.1:0', '127.0.0.1:99999', 'http://127.0.0.1:80', '::1:80'])(
    'rejects the malformed allow-list entry %j at creation',
    (entry) => {
      expect(() => createUrlGuard({ allowPrivateHosts: [entry] })).toThrow(/allowPrivateHosts entry/);
    },
  );
});

describe('DNS answers', () => {
  const lookupOf =
    (...answers: string[]): LookupFn =>
    async () =>
      answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('refuses a name when ANY answer is not public', async () => {
    for (const answers of [
      [PUBLIC_V4, '127.0.0.1'],
      ['127.0.0.1', PUBLIC_V4],
      [PUBLIC_V4, PUBLIC_V6, 'fd00::1'],
      [PUBLIC_V6, '::ffff:169.254.169.254'],
    ]) {
      const g = createUrlGuard({ allowPrivateHosts: [], lookup: lookupOf(...answers) });
      const err = await refusal(g.check('http://rebind.example/'));
      expect(err.reason).toBe('address');
    }
  });

  it('resolves once per check, so a rebinding answer only affects a later check', async () => {
    const seen: string[] = [];
    const lookup: LookupFn = async (name) => {
      seen.push(name);
      return [{ address: seen.length === 1 ? PUBLIC_V4 : '127.0.0.1', family: 4 }];
    };
    const g = createUrlGuard({ allowPrivateHosts: [], lookup });
    const first = await g.check('http://rebind.example/');
    expect([first.address, seen]).toEqual([PUBLIC_V4, ['rebind.example']]);
    expect((await refusal(g.check('http://rebind.example/'))).reason).toBe('address');
    expect(seen).toHaveLength(2);
  });

  it('prefers the IPv4 answer and reports its family', async () => {
    const g = createUrlGuard({ allowPrivateHosts: [], lookup: lookupOf(PUBLIC_V6, PUBLIC_V4) });
    const t = await g.check('https://dual.example/');
    expect([t.address, t.family, t.port]).toEqual([PUBLIC_V4, 4, 443]);
  });

  it('reports resolution failures and empty answers as dns', async () => {
    const failing: LookupFn = async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    };
    const e1 = await refusal(
      createUrlGuard({ allowPrivateHosts: [], lookup: failing }).check('http://x.invalid/'),
    );
    expect([e1.reason, e1.detail]).toEqual(['dns', 'cannot resolve x.invalid: ENOTFOUND']);
    const e2 = await refusal(
      createUrlGuard({ allowPrivateHosts: [], lookup: lookupOf() }).check('http://x.example/'),
    );
    expect(e2.reason).toBe('dns');
  });

  // Regression (issue 20 §5): an internal name that exists was 'address' (400 "not allowed") and
  // one that does not was 'dns' (502 "could not resolve"), so a key holder could map internal DNS.
  it('refuses names that can only be internal the same way, resolvable or not, without a lookup', async () => {
    const seen: string[] = [];
    const resolving: LookupFn = async (h) => {
      seen.push(h);
      return [{ address: '10.0.0.5', family: 4 }];
    };
    const failing: LookupFn = async (h) => {
      seen.push(h);
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    };
    const names = [
      'intranet',
      'intranet.',
      'printer.local',
      'vault.internal',
      'nas.lan',
      'git.corp',
      'router.home.arpa',
      'NAS.LAN',
    ];
    for (const lookup of [resolving, failing]) {
      const g = createUrlGuard({ allowPrivateHosts: [], lookup });
      for (const name of names) {
        const e = await refusal(g.check(`http://${name}/`));
        expect([name, e.reason]).toEqual([name, 'address']);
      }
    }
    expect(seen).toEqual([]);
    // An allow-listed internal name is still looked up and used.
    const allowed = createUrlGuard({ allowPrivateHosts: ['fixture.internal:8080'], lookup: resolving });
    expect((await allowed.check('http://fixture.internal:8080/')).address).toBe('10.0.0.5');
    // Public names that merely look alike still resolve.
    const pub = createUrlGuard({ allowPrivateHosts: [], lookup: lookupOf(PUBLIC_V4) });
    expect((await pub.check('http://local.example/')).address).toBe(PUBLIC_V4);
    expect((await pub.check('http://corp.example.com/')).address).toBe(PUBLIC_V4);
  });

  it('refuses localhost as an address', async () => {
    expect((await refusal(guard().check('http://localhost/'))).reason).toBe('address');
  });
});

function guard() {
  return createUrlGuard({ allowPrivateHosts: [] });
}
