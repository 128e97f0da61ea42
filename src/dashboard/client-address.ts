import { isIPv4, isIPv6 } from 'node:net';

/**
 * What per-address sign-in budgets are keyed by: an IPv4 address whole, an IPv6 address by its
 * /64. One subscriber or server is given at least a /64, so keying whole IPv6 addresses would
 * hand a guesser 2^64 fresh budgets. IPv4-mapped IPv6 (a dual-stack socket's view of an IPv4
 * client) counts as that IPv4 address.
 */
export function addressBucket(ip: string): string {
  const bare = ip.replace(/%.*$/, '');
  if (isIPv4(bare) || !isIPv6(bare)) return bare;
  const groups = ipv6Groups(bare);
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) {
    const [hi = 0, lo = 0] = groups.slice(6);
    return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail split). */
function ipv6Groups(ip: string): number[] {
  let s = ip;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (dotted) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted.slice(1).map(Number);
    s = `${s.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = s.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === undefined || tail === '' ? [] : tail.split(':');
  const gap = tail === undefined ? [] : Array<string>(8 - h.length - t.length).fill('0');
  return [...h, ...gap, ...t].map((g) => Number.parseInt(g, 16));
}
