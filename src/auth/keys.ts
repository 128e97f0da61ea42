import { randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API key format: `cs_<environment>_<22 random base62 characters><6 base62 checksum characters>`.
 * 22 base62 characters carry 131 bits. The checksum is CRC32 of everything before it (as
 * GitHub's tokens do), so a truncated or mistyped key is refused without a database look-up,
 * and secret scanners can tell a real key from a look-alike.
 */
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 22;
const CHECKSUM_CHARS = 6;

/** Environment labels: lower-case letters and digits, so a key stays one double-clickable word. */
export const ENVIRONMENT = /^[a-z][a-z0-9]{0,15}$/;
const KEY = /^cs_([a-z][a-z0-9]{0,15})_([0-9A-Za-z]{22})([0-9A-Za-z]{6})$/;
const ID = /^(key|acc)_[0-9A-Za-z]{16}$/;

/** `n` uniformly random base62 characters from the CSPRNG. */
export function randomBase62(n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += BASE62[randomInt(62)];
  return out;
}

/** A new id with its type prefix: `key_…`, `acc_…` (16 base62 characters, ~95 bits). */
export function newId(prefix: 'key' | 'acc'): string {
  return `${prefix}_${randomBase62(16)}`;
}

/** True when `s` has the shape of an id with the given prefix. */
export function isId(s: string, prefix: 'key' | 'acc'): boolean {
  return ID.test(s) && s.startsWith(`${prefix}_`);
}

function checksum(body: string): string {
  let n = crc32(body) >>> 0;
  let out = '';
  for (let i = 0; i < CHECKSUM_CHARS; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** A new key for `environment`, with the parts that may be shown later (prefix, last 4). */
export function generateKey(environment: string): { key: string; prefix: string; last4: string } {
  if (!ENVIRONMENT.test(environment)) throw new Error(`invalid environment label: ${environment}`);
  const body = `cs_${environment}_${randomBase62(RANDOM_CHARS)}`;
  const key = body + checksum(body);
  return { key, prefix: visiblePrefix(key), last4: key.slice(-4) };
}

/** `cs_<env>_` plus four random characters: enough to recognise a key, far too little to use it. */
export function visiblePrefix(key: string): string {
  const at = key.indexOf('_', 3);
  return key.slice(0, at + 1 + 4);
}

export type KeyCheck = { ok: true; environment: string } | { ok: false; reason: 'malformed' | 'checksum' };

/** Checks format and checksum only (no database): the cheap first gate for every presented key. */
export function checkKeyFormat(key: string): KeyCheck {
  const m = KEY.exec(key);
  if (!m) return { ok: false, reason: 'malformed' };
  const body = key.slice(0, key.length - CHECKSUM_CHARS);
  if (checksum(body) !== m[3]) return { ok: false, reason: 'checksum' };
  return { ok: true, environment: m[1]! };
}
