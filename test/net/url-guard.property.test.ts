import { BlockList } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyAddress, createUrlGuard, UrlRefusedError } from '../../src/net/url-guard.js';

const V4_BLOCKED: Array<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

const V6_BLOCKED: Array<[string, number]> = [
  ['::', 96],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];

const v4ToString = (n: bigint) => [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 255n)).join('.');
const v4ToBig = (s: string) => s.split('.').reduce((a, p) => (a << 8n) | BigInt(p), 0n);
const v6Groups = (n: bigint) =>
  Array.from({ length: 8 }, (_, i) => Number((n >> BigInt(112 - 16 * i)) & 0xffffn));
const v6Full = (n: bigint) =>
  v6Groups(n)
    .map((g) => g.toString(16))
    .join(':');
function v6ToBig(s: string): bigint {
  // Test-side expansion via the WHATWG parser's canonical form, independent of the guard's parser.
  const canon = new URL(`http://[${s}]/`).hostname.slice(1, -1);
  const [head, tail] = canon.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = canon.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  return groups.reduce((a, g) => (a << 16n) | BigInt(`0x${g}`), 0n);
}

/** A uniformly random address inside `base/bits`. */
const inCidr = (width: 32 | 128, base: bigint, bits: number) =>
  fc.bigInt({ min: 0n, max: (1n << BigInt(width - bits)) - 1n }).map((host) => base | host);

const anyV4Cidr = fc.constantFrom(...V4_BLOCKED).chain(([b, bits]) => inCidr(32, v4ToBig(b), bits));
const anyV6Cidr = fc.constantFrom(...V6_BLOCKED).chain(([b, bits]) => inCidr(128, v6ToBig(b), bits));

const guard = createUrlGuard({
  allowPrivateHosts: [],
  lookup: async () => {
    throw new Error('IP literals must not be resolved');
  },
});

async function refusedReason(url: string): Promise<string> {
  try {
    await guard.check(url);
    return 'allowed';
  } catch (err) {
    return err instanceof UrlRefusedError ? err.reason : `unexpected ${String(err)}`;
  }
}

describe('property: blocked ranges', () => {
  it('refuses every IPv4 address inside a blocked CIDR, in every spelling URL parsing accepts', async () => {
    await fc.assert(
      fc.asyncProperty(
        anyV4Cidr,
        fc.constantFrom('dotted', 'decimal', 'hex', 'mapped'),
        async (n, spelling) => {
          const host = {
            dotted: v4ToString(n),
            decimal: n.toString(10),
            hex: `0x${n.toString(16)}`,
            mapped: `[::ffff:${v4ToString(n)}]`,
          }[spelling];
          expect(classifyAddress(v4ToString(n))).not.toBeNull();
          expect(await refusedReason(`http://${host}/`)).toBe('address');
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses every IPv6 address inside a blocked CIDR, written in full or compressed', async () => {
    await fc.assert(
      fc.asyncProperty(anyV6Cidr, async (n) => {
        expect(classifyAddress(v6Full(n))).not.toBeNull();
        expect(await refusedReason(`http://[${v6Full(n)}]/`)).toBe('address');
      }),
      { numRuns: 500 },
    );
  });

  it('refuses every IPv4 address embedded in IPv4-mapped, -compatible and NAT64 forms', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 0xffffffffn }),
        fc.constantFrom('::ffff:', '::', '64:ff9b::'),
        (n, p) => {
          expect(classifyAddress(`${p}${v4ToString(n)}`)).not.toBeNull();
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('property: agrees with node:net BlockList as a reference', () => {
  // Separate lists per family: BlockList matches IPv4 addresses against IPv4-mapped IPv6 rules.
  const ref4 = new BlockList();
  for (const [b, bits] of V4_BLOCKED) ref4.addSubnet(b, bits, 'ipv4');
  ref4.addAddress('255.255.255.255', 'ipv4');
  const ref6 = new BlockList();
  for (const [b, bits] of V6_BLOCKED) ref6.addSubnet(b, bits, 'ipv6');
  ref6.addSubnet('3fff::', 20, 'ipv6');
  ref6.addSubnet('::ffff:0:0:0', 96, 'ipv6');
  const globalUnicast = new BlockList();
  globalUnicast.addSubnet('2000::', 3, 'ipv6');

  it('classifies random IPv4 addresses the same way', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 0xffffffffn }), (n) => {
        const s = v4ToString(n);
        expect(classifyAddress(s) !== null).toBe(ref4.check(s, 'ipv4'));
      }),
      { numRuns: 2000 },
    );
  });

  it('classifies random IPv6 addresses the same way (biased towards interesting prefixes)', () => {
    const prefixes = fc.constantFrom(
      0n,
      0xffffn << 32n,
      0x64ff9bn << 96n,
      0x2001n << 112n,
      0x2002n << 112n,
      0xfen << 120n,
    );
    const addr = fc.oneof(
      fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }),
      fc.tuple(prefixes, fc.bigInt({ min: 0n, max: (1n << 64n) - 1n })).map(([p, h]) => p | h),
    );
    fc.assert(
      fc.property(addr, (n) => {
        const s = v6Full(n);
        const refBlocked = ref6.check(s, 'ipv6') || !globalUnicast.check(s, 'ipv6');
        expect(classifyAddress(s) !== null).toBe(refBlocked);
      }),
      { numRuns: 2000 },
    );
  });
});
