import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedKey } from '../../src/accounts/manager.js';
import { createUrlGuard, type LookupFn } from '../../src/net/url-guard.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { expectError } from '../helpers/errors.js';

// Issue 26 §3: what a hostile key holder learns about the server's DNS from the answers.
let t: TestApp;
let hostile: CreatedKey;

/**
 * Split-horizon DNS as an attacker would map it: one name resolves to a private address, one
 * does not resolve; anything else is public.
 */
const lookup: LookupFn = async (name) => {
  if (name === 'db.corp-example.com') return [{ address: '10.20.30.40', family: 4 }];
  if (name === 'nope.corp-example.com') throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' });
  return [{ address: '93.184.215.14', family: 4 }];
};

beforeAll(async () => {
  t = await startTestApp({}, { screenshotGuard: createUrlGuard({ allowPrivateHosts: [], lookup }) });
  hostile = t.key;
});
afterAll(async () => {
  await t?.close();
});

// Regression: a host name that did not resolve answered 502 "Could not resolve", one resolving
// to a private address 400 "not allowed": the difference maps internal DNS.
describe('a name that does not resolve and one that resolves to a private address', () => {
  const NOT_ALLOWED = 'url points to an address that is not allowed';

  // Cached screenshots aside, a capture needs Chromium installed (not launched: refused before).
  it.skipIf(!chromiumAvailable())(
    'get one answer on GET /render/url, the reason only in the log',
    async () => {
      const shot = (host: string) =>
        t.inject({
          method: 'GET',
          url: `/render/url?url=${encodeURIComponent(`http://${host}/`)}`,
          headers: { 'x-api-key': hostile.key },
        });
      const missing = await shot('nope.corp-example.com');
      const internal = await shot('db.corp-example.com');
      await expectError(missing, 400, NOT_ALLOWED);
      await expectError(internal, 400, NOT_ALLOWED);
      expect(missing.headers['content-type']).toBe(internal.headers['content-type']);
      const logged = (id: unknown) => t.logs.find((l) => l.reqId === id && typeof l.detail === 'string');
      expect(logged(missing.headers['x-request-id'])?.detail).toBe(
        'dns: cannot resolve nope.corp-example.com: ENOTFOUND',
      );
      expect(logged(internal.headers['x-request-id'])?.detail).toBe(
        'address: db.corp-example.com -> 10.20.30.40 is 10.0.0.0/8 (private)',
      );
    },
  );

  it('get one answer for imageUrl', async () => {
    const art = (imageUrl: string) =>
      t.inject({
        method: 'POST',
        url: '/render/template',
        headers: { 'x-api-key': hostile.key },
        payload: { template: 'product', title: 'Artwork', imageUrl },
      });
    const missing = await art('http://no-such-host.invalid/a.png');
    const internal = await art('http://10.20.30.40/a.png');
    await expectError(missing, 422, 'imageUrl points to an address that is not allowed');
    await expectError(internal, 422, 'imageUrl points to an address that is not allowed');
  });
});
