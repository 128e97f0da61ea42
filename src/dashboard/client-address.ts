import { parseIPv6 } from '../net/url-guard.js';

/**
 * What per-address sign-in budgets are keyed by: an IPv4 address whole, an IPv6 address by its
 * /64. One subscriber or server is given at least a /64, so keying whole IPv6 addresses would
 * hand a guesser 2^64 fresh budgets. IPv4-mapped IPv6 (a dual-stack socket's view of an IPv4
 * client) counts as that IPv4 address.
 */
export function addressBucket(ip: string): string {
  const bare = ip.replace(/%.*$/, '');
  const v6 = parseIPv6(bare);
  if (v6 === null) return bare;
  if (v6 >> 32n === 0xffffn) return [24n, 16n, 8n, 0n].map((s) => (v6 >> s) & 0xffn).join('.');
  const prefix = [48n, 32n, 16n, 0n].map((s) => ((v6 >> (64n + s)) & 0xffffn).toString(16));
  return `${prefix.join(':')}::/64`;
}
