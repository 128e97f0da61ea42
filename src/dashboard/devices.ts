import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { ServerSecrets } from '../auth/secret.js';
import type { Clock } from '../lib/clock.js';

/**
 * Device cookies (OWASP, "Slow down online guessing attacks with device cookies"). The sign-in
 * budget shared by all client addresses exists to cap a guesser who spreads out, but anyone
 * who knows an email can use it up and lock the owner out. A browser that once signed in as an
 * email carries a signed token naming it, and its attempts for that email skip the shared
 * budget; they keep their per-address budgets and get one of their own, so a stolen cookie is
 * worth no more than one address.
 */
export interface DeviceCookies {
  /** A new cookie value for a browser that has just signed in as `email`. */
  issue(email: string): string;
  /** The device id of `value` when it was issued for `email` and has not expired, else null. */
  verify(email: string, value: string | undefined): string | null;
  /** How long a device cookie is honoured, in seconds (also its Max-Age). */
  readonly maxAgeSeconds: number;
}

/** A year: long enough that an owner who signs in now and then always has one. */
const MAX_AGE_MS = 365 * 86_400_000;
/** id (128 random bits) . issued-at (ms, base 36) . HMAC (hex). */
const VALUE = /^([A-Za-z0-9_-]{22})\.([0-9a-z]{1,12})\.([0-9a-f]{64})$/;

/** Device cookies signed with the server secret: nothing is stored, every node checks them. */
export function createDeviceCookies(secrets: Pick<ServerSecrets, 'hashToken'>, clock: Clock): DeviceCookies {
  // The token-hash key with its own prefix: its other inputs (session ids, invite and form
  // tokens) never start with it, and its outputs are never shown to anyone else.
  const mac = (id: string, issuedAt: string, email: string) =>
    secrets.hashToken(`dashboard-device/v1:${id}:${issuedAt}:${email}`);

  return {
    maxAgeSeconds: MAX_AGE_MS / 1000,

    issue(email) {
      const id = randomBytes(16).toString('base64url');
      const issuedAt = clock.now().toString(36);
      return `${id}.${issuedAt}.${mac(id, issuedAt, email)}`;
    },

    verify(email, value) {
      const m = value === undefined ? null : VALUE.exec(value);
      if (!m) return null;
      const [, id = '', issuedAt = '', presented = ''] = m;
      const age = clock.now() - Number.parseInt(issuedAt, 36);
      const expected = Buffer.from(mac(id, issuedAt, email));
      const ok = timingSafeEqual(Buffer.from(presented), expected);
      return ok && age >= -60_000 && age < MAX_AGE_MS ? id : null;
    },
  };
}
