/**
 * The one SSRF policy: every outbound request (imageUrl, its redirects, later every Chromium
 * request via the filtering proxy) asks `check` first and connects ONLY to the address it returns.
 *
 * Threat model: a caller controls a URL (and can run DNS and web servers) and wants our process
 * to reach something only we can reach: loopback services, the cloud metadata endpoint
 * (169.254.169.254), the LAN, link-local or internal IPv6, or a non-HTTP service on an odd port.
 * Tricks we must survive: alternative IPv4 spellings (127.1, 2130706433, 0x7f000001, 0177.0.0.1;
 * WHATWG URL parsing normalises them, then we classify the parsed address, never the string),
 * IPv6 forms that embed IPv4 (mapped, compatible, NAT64, 6to4, Teredo), names that resolve to
 * several addresses with one private among them, DNS rebinding between our check and the
 * connect (we resolve once and the caller pins the socket to the checked address), redirects
 * (every hop is checked again), and credentials in the URL. Out of scope: what a public host
 * does with the request, and bandwidth/time limits (the fetcher enforces those).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIPv4, isIPv6 } from 'node:net';

export type RefusalReason = 'scheme' | 'userinfo' | 'port' | 'address' | 'dns' | 'invalid';

/** Why the guard said no. `message` and `detail` are for logs; clients get a generic message. */
export class UrlRefusedError extends Error {
  readonly reason: RefusalReason;
  readonly detail: string;

  constructor(reason: RefusalReason, detail: string) {
    super(`URL refused (${reason}): ${detail}`);
    this.name = 'UrlRefusedError';
    this.reason = reason;
    this.detail = detail;
  }
}

/** A URL that passed the policy, with the one address the caller must connect to. */
export interface CheckedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
  port: number;
}

export type LookupFn = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

export interface UrlGuardOptions {
  /** `host:port` pairs (as WHATWG URL writes the host) that may be private; empty by default. */
  allowPrivateHosts: readonly string[];
  /** Ports any public host may use; default 80 and 443. */
  allowedPorts?: readonly number[];
  /** Name resolution; injectable so tests can fake rebinding. */
  lookup?: LookupFn;
}

export interface UrlGuard {
  /** Resolves the URL's host once and returns the address to connect to, or throws UrlRefusedError. */
  check(url: string | URL): Promise<CheckedTarget>;
}

interface Rule {
  net: bigint;
  bits: number;
  name: string;
}

// Ranges that are not public unicast (IANA special-purpose registries, RFC 6890 and updates).
const V4_RULES = rules(32, [
  ['0.0.0.0/8', 'this network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local (cloud metadata)'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['255.255.255.255/32', 'broadcast'],
]);

// Anything outside 2000::/3 is refused anyway (see classifyAddress); the entries below 2000::
// are listed so the log names the range.
const V6_RULES = rules(128, [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::ffff:0:0/96', 'IPv4-mapped'],
  ['::/96', 'IPv4-compatible'],
  ['::ffff:0:0:0/96', 'IPv4-translated'],
  ['64:ff9b::/96', 'NAT64'],
  ['64:ff9b:1::/48', 'local NAT64'],
  ['100::/64', 'discard-only'],
  // Teredo, benchmarking, ORCHID, AMT, AS112 ...: protocol space, and Teredo embeds IPv4.
  ['2001::/23', 'IETF protocol assignments'],
  ['2001:db8::/32', 'documentation'],
  // 6to4 embeds an IPv4 address that a relay would reach on our behalf.
  ['2002::/16', '6to4'],
  ['3fff::/20', 'documentation'],
  ['fc00::/7', 'unique local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
]);

const GLOBAL_UNICAST_V6 = rules(128, [['2000::/3', 'global unicast']])[0]!;

/**
 * Why `address` (an IP literal, no brackets) is not public unicast, or null when it is.
 * Unparseable input counts as not public.
 */
export function classifyAddress(address: string): string | null {
  const v4 = parseIPv4(address);
  if (v4 !== null) return matchRule(V4_RULES, v4, 32) ?? null;
  const v6 = parseIPv6(address);
  if (v6 === null) return 'not an IP address';
  const hit = matchRule(V6_RULES, v6, 128);
  if (hit) return hit;
  if (!inRule(GLOBAL_UNICAST_V6, v6, 128)) return 'outside 2000::/3 (not global unicast)';
  return null;
}

/** Creates the URL guard; throws at once on a malformed allow-list entry (a config mistake). */
export function createUrlGuard(opts: UrlGuardOptions): UrlGuard {
  const allowed = new Set(opts.allowPrivateHosts.map(normaliseHostPort));
  const ports = new Set(opts.allowedPorts ?? [80, 443]);
  const lookup = opts.lookup ?? defaultLookup;

  return {
    async check(input) {
      const url = parseHttpUrl(input);
      const port = effectivePort(url);
      // The allow-list is keyed by the normalised host, so 127.1 and 2130706433 match 127.0.0.1.
      const allowListed = allowed.has(`${url.hostname}:${port}`);
      if (!allowListed && !ports.has(port)) {
        throw new UrlRefusedError('port', `port ${port} is not allowed for ${url.hostname}`);
      }

      const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
      const answers = await resolveOnce(host, allowListed, lookup);
      if (!allowListed) refuseNonPublic(host, answers);
      // Prefer IPv4: we pin one address and do no happy-eyeballs fallback, and IPv4 is the one
      // most hosts can route.
      const chosen = answers.find((a) => a.family === 4) ?? answers[0]!;
      return { url, address: chosen.address, family: chosen.family, port };
    },
  };
}

type Answers = Array<{ address: string; family: 4 | 6 }>;

/** The first rules, in order: an absolute URL, http or https, no credentials. */
function parseHttpUrl(input: string | URL): URL {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch {
    throw new UrlRefusedError('invalid', 'not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UrlRefusedError('scheme', `scheme ${url.protocol} is not http or https`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UrlRefusedError('userinfo', 'URL carries credentials');
  }
  return url;
}

function effectivePort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** An IP literal answers for itself; a name is refused if internal, else looked up exactly once. */
async function resolveOnce(host: string, allowListed: boolean, lookup: LookupFn): Promise<Answers> {
  if (isIPv4(host)) return [{ address: host, family: 4 }];
  if (isIPv6(host)) return [{ address: host, family: 6 }];
  // A name that can only exist on a private network is refused before it is looked up, the
  // same way whether or not it resolves: otherwise "not allowed" for one that exists and
  // "could not resolve" for one that does not would let a key holder map internal DNS (and
  // the lookup's timing would tell the same story).
  const internal = allowListed ? null : internalName(host);
  if (internal) throw new UrlRefusedError('address', `${host} is ${internal}`);
  // Resolved exactly once per check: the caller connects to what we return, so a second
  // answer from a rebinding DNS server is never consulted.
  let answers: Answers;
  try {
    answers = await lookup(host);
  } catch (err) {
    throw new UrlRefusedError('dns', `cannot resolve ${host}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
  if (answers.length === 0) throw new UrlRefusedError('dns', `no addresses for ${host}`);
  return answers;
}

/** ANY private answer refuses: otherwise whichever address we (or a retry) picked could be the internal one. */
function refuseNonPublic(host: string, answers: Answers): void {
  for (const a of answers) {
    const why = classifyAddress(a.address);
    if (why) throw new UrlRefusedError('address', `${host} -> ${a.address} is ${why}`);
  }
}

/** Suffixes that name hosts on a private network only (RFC 6762, RFC 8375, ICANN's .internal, common use). */
const INTERNAL_SUFFIXES = ['.local', '.internal', '.lan', '.corp', '.home.arpa', '.localhost'];

/**
 * Why `host` (a WHATWG-normalised name, not an IP literal) can only be an internal name, or null.
 * Single labels (`intranet`, `localhost`) are resolved through search domains, so they are internal too.
 */
export function internalName(host: string): string | null {
  const name = host.toLowerCase().replace(/\.+$/, '');
  if (!name.includes('.')) return 'a single-label (internal) name';
  const suffix = INTERNAL_SUFFIXES.find((s) => name.endsWith(s));
  return suffix ? `an internal name (${suffix})` : null;
}

async function defaultLookup(hostname: string): Promise<Array<{ address: string; family: 4 | 6 }>> {
  const found = await dnsLookup(hostname, { all: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

/** "Host:Port" as configured → "host:port" as the guard compares it (WHATWG-normalised host). */
function normaliseHostPort(entry: string): string {
  const m = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(entry.trim());
  const port = m ? Number(m[2]) : Number.NaN;
  if (!m || port < 1 || port > 65535) {
    throw new Error(`allowPrivateHosts entry ${JSON.stringify(entry)} must be host:port`);
  }
  try {
    return `${new URL(`http://${m[1]}/`).hostname}:${port}`;
  } catch {
    throw new Error(`allowPrivateHosts entry ${JSON.stringify(entry)} has an invalid host`);
  }
}

function rules(width: 32 | 128, list: Array<[string, string]>): Rule[] {
  return list.map(([cidr, name]) => {
    const [addr, bits] = cidr.split('/') as [string, string];
    const net = width === 32 ? parseIPv4(addr) : parseIPv6(addr);
    if (net === null) throw new Error(`bad CIDR ${cidr}`);
    return { net, bits: Number(bits), name: `${cidr} (${name})` };
  });
}

function inRule(rule: Rule, addr: bigint, width: number): boolean {
  const shift = BigInt(width - rule.bits);
  return addr >> shift === rule.net >> shift;
}

function matchRule(list: Rule[], addr: bigint, width: number): string | undefined {
  return list.find((r) => inRule(r, addr, width))?.name;
}

/** Strict dotted quad (what URL parsing and DNS produce) → 32-bit value. */
function parseIPv4(s: string): bigint | null {
  if (!isIPv4(s)) return null;
  return s.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

/** IPv6 text (with `::` and an optional dotted tail) → 128-bit value; zone ids are refused. */
export function parseIPv6(s: string): bigint | null {
  if (s.includes('%') || !isIPv6(s)) return null;
  let text = s;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const v4 = parseIPv4(last);
    if (v4 === null) return null;
    tail.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
    // Keep the colon when it is part of a `::` so the split below still sees the gap.
    text = text.slice(0, text[lastColon - 1] === ':' ? lastColon + 1 : lastColon);
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const toGroups = (h: string | undefined) => (h ? h.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const head = toGroups(halves[0]);
  const rest = [...toGroups(halves[1]), ...tail];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...rest];
  if (groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return null;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}
