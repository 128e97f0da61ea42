import { AppError } from '../../../errors.js';
import { type UrlGuard, UrlRefusedError } from '../../../net/url-guard.js';

/**
 * Refuses a private or unresolvable top-level URL before a browser is involved, with one answer
 * for both: "does not resolve" beside "not allowed" would tell a key holder which names exist in
 * the DNS we use, internal ones included (issue 26 §3). The reason is in the log only.
 */
export async function preflight(guard: UrlGuard, url: string): Promise<void> {
  try {
    await guard.check(url);
  } catch (err) {
    if (!(err instanceof UrlRefusedError)) throw err;
    throw new AppError('bad_request', 'url points to an address that is not allowed', {
      detail: `${err.reason}: ${err.detail}`,
    });
  }
}
