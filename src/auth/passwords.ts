import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.js';

/**
 * Dashboard passwords: scrypt (RFC 7914) with a 16-byte random salt per password, stored as
 * `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (base64, no padding) so the cost can be raised later
 * without invalidating stored hashes. N = 2^15, r = 8 is OWASP's recommended minimum; it costs
 * 32 MiB and tens of milliseconds per check, on libuv's thread pool, off the event loop.
 */
const LN = 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{16,})\$([A-Za-z0-9+/]{32,})$/;

/** Length bounds: long enough to resist guessing, short enough that nobody can make us hash megabytes. */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

function derive(
  password: string,
  salt: Buffer,
  ln: number,
  r: number,
  p: number,
  len: number,
): Promise<Buffer> {
  const N = 2 ** ln;
  const opts: ScryptOptions = { N, r, p, maxmem: 256 * N * r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, len, opts, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');

/** Refuses passwords outside the policy with a message that says what to change. */
export function checkPasswordPolicy(password: string, email?: string): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN) {
    throw new AppError('bad_request', `Password must be at least ${PASSWORD_MIN} characters`);
  }
  if (length > PASSWORD_MAX) {
    throw new AppError('bad_request', `Password must be at most ${PASSWORD_MAX} characters`);
  }
  if (email && password.trim().toLowerCase() === email.trim().toLowerCase()) {
    throw new AppError('bad_request', 'Password must not be your email address');
  }
}

/** A new salted scrypt hash of `password`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, LN, R, P, KEY_LENGTH);
  return `$scrypt$ln=${LN},r=${R},p=${P}$${b64(salt)}$${b64(key)}`;
}

/** True when `password` matches `stored`; compared in constant time. A malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = FORMAT.exec(stored);
  if (!m) return false;
  const [ln, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (ln < 10 || ln > 20 || r < 1 || p < 1) return false;
  const expected = Buffer.from(m[5]!, 'base64');
  // Exactly the length we write: scrypt's output for a longer length starts with the same bytes,
  // so a hash with characters appended would otherwise still match now and then.
  if (expected.length !== KEY_LENGTH) return false;
  if ([...password].length > PASSWORD_MAX) return false;
  const actual = await derive(password, Buffer.from(m[4]!, 'base64'), ln, r, p, expected.length);
  return timingSafeEqual(actual, expected);
}

let decoy: Promise<string> | undefined;

/**
 * A hash of a random password, verified against when the email is unknown or has no password,
 * so a failed sign-in takes the same time whether or not the account exists.
 */
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(18).toString('base64url'));
  return decoy;
}
