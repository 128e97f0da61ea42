import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as zxcvbnCommon from '@zxcvbn-ts/language-common';
import { AppError } from '../errors.js';
import { graphemes } from '../lib/graphemes.js';

/**
 * Dashboard passwords: scrypt (RFC 7914) with a 16-byte random salt per password, stored as
 * `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (base64, no padding) so the cost can be raised later
 * without invalidating stored hashes. N = 2^15, r = 8 is OWASP's recommended minimum; it costs
 * 32 MiB and tens of milliseconds per check, on libuv's thread pool, off the event loop.
 */
const LN = 15;
/**
 * The costs verifyPassword accepts. Below LN only for tests: `createModules({ passwordCost })`
 * refuses outside NODE_ENV=test, so the service always hashes at LN (2^10 takes ~1 ms).
 */
export const MIN_LN = 10;
const MAX_LN = 20;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{16,})\$([A-Za-z0-9+/]{32,})$/;

/**
 * Length bounds, counted on the NFKC form (what is hashed): long enough to resist guessing, short
 * enough that nobody can make us hash megabytes. The minimum counts characters as a person
 * sees them (grapheme clusters): in code points, five letters with an accent NFKC cannot
 * compose (`x\u0301`), or three family emoji (seven code points each), would pass for ten. The
 * maximum counts code points, since one grapheme can carry any number of combining marks.
 */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

/**
 * The longest input verifyPassword hashes, in code points. A password the policy accepted may be
 * typed in another normalisation form, and one code point decomposes into at most 4 (U+1F82);
 * passwords set before the policy counted the NFKC form were at most 200 code points as typed.
 */
const VERIFY_MAX = PASSWORD_MAX * 4;

/** Nothing a person could see: spaces, invisible format characters (zero-width space) and controls. */
const BLANK = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cc}]*$/u;

/**
 * NFKC_Casefold, near enough: compatibility forms (full-width letters), case (`ß` folds to
 * `ss` through upper case) and invisible characters do not make a password differ from the email.
 */
function fold(s: string): string {
  return s
    .normalize('NFKC')
    .replace(/\p{Default_Ignorable_Code_Point}/gu, '')
    .toUpperCase()
    .toLowerCase()
    .normalize('NFKC')
    .trim();
}

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

/**
 * Refuses passwords outside the policy with a message that says what to change. Every way a
 * password is set (invite link, dashboard, `accounts set-password`) goes through here.
 */
export function checkPasswordPolicy(password: string, email?: string): void {
  // The NFKC form is what derive() hashes, so that is what is measured and compared.
  const normalised = password.normalize('NFKC');
  // The cheap bound first, so an oversized input is never segmented.
  if ([...normalised].length > PASSWORD_MAX) {
    throw new AppError('bad_request', `Password must be at most ${PASSWORD_MAX} characters`);
  }
  if (graphemes(normalised).length < PASSWORD_MIN) {
    throw new AppError('bad_request', `Password must be at least ${PASSWORD_MIN} characters`);
  }
  if (BLANK.test(normalised)) {
    throw new AppError('bad_request', 'Password must not be only spaces');
  }
  if (email && fold(normalised) === fold(email)) {
    throw new AppError('bad_request', 'Password must not be your email address');
  }
  const guess = strength().check(normalised, email ? [email, email.split('@')[0]!] : []);
  if (guess.score < MIN_SCORE) {
    const why = WHY[guess.feedback.warning ?? ''] ?? 'it is too close to common passwords';
    throw new AppError(
      'bad_request',
      `Password is too easy to guess: ${why}. Use a few unrelated words, or more characters`,
    );
  }
}

/**
 * Guessability, from zxcvbn-ts with its common-password, name and word lists (bundled in the
 * package: nothing is fetched at run time). Score 3 of 4 is "safely unguessable: moderate
 * protection from offline slow-hash scenario" (about 10^8 guesses), which scrypt hashes are.
 */
const MIN_SCORE = 3;
let estimator: ZxcvbnFactory | undefined;
function strength(): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({
    dictionary: { ...zxcvbnCommon.dictionary },
    graphs: zxcvbnCommon.adjacencyGraphs,
  });
  return estimator;
}

/** zxcvbn's warning keys, in words. */
const WHY: Record<string, string> = {
  straightRow: 'it is a row of keys',
  keyPattern: 'it is a keyboard pattern',
  simpleRepeat: 'it repeats characters',
  extendedRepeat: 'it repeats a pattern',
  sequences: 'it is a sequence such as abc or 123',
  recentYears: 'it contains a recent year',
  dates: 'it contains a date',
  topTen: 'it is one of the most common passwords',
  topHundred: 'it is a very common password',
  common: 'it is a common password',
  similarToCommon: 'it is close to a common password',
  wordByItself: 'single words are easy to guess',
  namesByThemselves: 'names are easy to guess',
  commonNames: 'common names are easy to guess',
  userInputs: 'it contains your email address',
  pwned: 'it appeared in a data breach',
};

/** A new salted scrypt hash of `password`, at cost 2^`ln` (LN unless a test asks for less). */
export async function hashPassword(password: string, ln = LN): Promise<string> {
  if (!Number.isInteger(ln) || ln < MIN_LN || ln > MAX_LN) throw new RangeError(`scrypt cost ln=${ln}`);
  const salt = randomBytes(16);
  const key = await derive(password, salt, ln, R, P, KEY_LENGTH);
  return `$scrypt$ln=${ln},r=${R},p=${P}$${b64(salt)}$${b64(key)}`;
}

/** True when `password` matches `stored`; compared in constant time. A malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = FORMAT.exec(stored);
  if (!m) return false;
  const [ln, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (ln < MIN_LN || ln > MAX_LN || r < 1 || p < 1) return false;
  const expected = Buffer.from(m[5]!, 'base64');
  // Exactly the length we write: scrypt's output for a longer length starts with the same bytes,
  // so a hash with characters appended would otherwise still match now and then.
  if (expected.length !== KEY_LENGTH) return false;
  if ([...password].length > VERIFY_MAX) return false;
  const actual = await derive(password, Buffer.from(m[4]!, 'base64'), ln, r, p, expected.length);
  return timingSafeEqual(actual, expected);
}

const decoys = new Map<number, Promise<string>>();

/**
 * A hash of a random password, verified against when the email is unknown or has no password,
 * so a failed sign-in takes the same time whether or not the account exists: at the same cost
 * as the real hashes.
 */
export function decoyHash(ln = LN): Promise<string> {
  let decoy = decoys.get(ln);
  if (!decoy) {
    decoy = hashPassword(randomBytes(18).toString('base64url'), ln);
    decoys.set(ln, decoy);
  }
  return decoy;
}
