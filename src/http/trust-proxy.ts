import { isIP } from 'node:net';

/**
 * How far X-Forwarded-For (and -Proto, -Host) is believed. Each proxy appends the address it
 * received from, so only the right-most entries were written by proxies we run: believing the
 * whole header (Fastify's `trustProxy: true`) lets a client choose its own address by sending
 * one, which the sign-in limits are keyed by.
 */
export type ProxyTrust =
  | { kind: 'none' }
  /** The nearest `hops` peers are proxies: the address that many entries from the right is the client. */
  | { kind: 'hops'; hops: number }
  /** Peers with these addresses (or in these CIDR ranges) are proxies; the first other one is the client. */
  | { kind: 'addresses'; list: readonly string[] };

const MAX_HOPS = 10;
const OFF = new Set(['false', 'no', 'off', '0', '']);
/** The old boolean setting: `true` now means the nearest proxy only, never every hop. */
const ON = new Set(['true', 'yes', 'on']);

const EXPECTED = `must be false, a number of proxy hops from 1 to ${MAX_HOPS}, or a comma-separated list of proxy IP addresses or CIDR ranges`;

/** Reads a CARDSHOT_TRUST_PROXY value; throws an Error saying what is wrong with it. */
export function readTrustProxy(value: string): ProxyTrust {
  const v = value.trim().toLowerCase();
  if (OFF.has(v)) return { kind: 'none' };
  if (ON.has(v)) return { kind: 'hops', hops: 1 };
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops > MAX_HOPS) throw new Error(`${EXPECTED} (got "${value}")`);
    return { kind: 'hops', hops };
  }
  const list = v
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
  for (const entry of list) {
    const problem = rangeProblem(entry);
    if (problem) throw new Error(`${EXPECTED} (got "${value}": "${entry}" ${problem})`);
  }
  return { kind: 'addresses', list: Object.freeze(list) };
}

/** Why a CARDSHOT_TRUST_PROXY value is unusable, or undefined (the schema's check). */
export function trustProxyProblem(value: string): string | undefined {
  try {
    readTrustProxy(value);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

function rangeProblem(entry: string): string | undefined {
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined || address.includes('%')) {
    return 'is not an IP address or CIDR range';
  }
  if (prefix === undefined) return undefined;
  const bits = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) {
    return `has a prefix length outside 0 to ${bits}`;
  }
  // /0 is every address: the old `true`, which let any client choose the address it is seen as.
  if (Number(prefix) === 0) return 'covers every address (list the proxies themselves)';
  return undefined;
}
