/**
 * Signed, expiring links to a job's results, so a webhook receiver (or a browser) can fetch an
 * item or the zip without an API key. The signature covers the path and the expiry and nothing
 * else; it is made with a sub-key of the server secret that no API key's signing secret can
 * equal (key ids are `key_…`), so a link cannot be forged from a signed card URL or the reverse.
 */

import type { ServerSecrets } from '../auth/secret.js';
import { signature, signatureMatches } from '../auth/signing.js';

/** The query parameters of a result link (not the card routes' kid/exp/sig: those mean an API key). */
export const LINK_PARAMS = ['expires', 'signature'] as const;
const EXPIRES = /^\d{1,12}$/;
const SIG = /^[A-Za-z0-9_-]{43}$/;

export interface ResultLinks {
  /** `path?expires=…&signature=…`, valid until `expiresAt` (unix ms, rounded down to the second). */
  sign(path: string, expiresAt: number): string;
  /** Whether `query` signs `path` and has not expired at `now` (unix ms). */
  verify(path: string, query: Record<string, unknown>, now: number): boolean;
}

/** Links signed with the server secret's sub-key for job results. */
export function createResultLinks(secrets: Pick<ServerSecrets, 'signingSecret'>): ResultLinks {
  const secret = secrets.signingSecret('jobs:results');
  const sign = (path: string, expires: number) => signature(secret, `GET\n${path}\n${expires}`);
  return {
    sign(path, expiresAt) {
      const expires = Math.floor(expiresAt / 1000);
      return `${path}?expires=${expires}&signature=${sign(path, expires)}`;
    },
    verify(path, query, now) {
      const { expires, signature: sig } = query;
      if (typeof expires !== 'string' || typeof sig !== 'string') return false;
      if (!EXPIRES.test(expires) || !SIG.test(sig)) return false;
      if (Number(expires) * 1000 <= now) return false;
      return signatureMatches(sig, sign(path, Number(expires)));
    },
  };
}

/** Whether a request carries a result link's signature (rather than an API key). */
export function carriesLink(query: Record<string, unknown>): boolean {
  return query.signature !== undefined || query.expires !== undefined;
}
