// @module-tag chromium
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressProxy, type EgressProxy } from '../../../src/net/proxy.js';
import { createUrlGuard } from '../../../src/net/url-guard.js';
import type { Lease } from '../../../src/render/screenshot/engine/browser/lease.js';
import { type BrowserPool, createBrowserPool } from '../../../src/render/screenshot/engine/browser/pool.js';
import { CHROMIUM, chromiumAvailable } from '../../helpers/browser.js';
import { capturedLogger } from '../../helpers/logs.js';
import { DESKTOP } from '../../helpers/proxied-browser.js';
import { type SitePages, startSitePages } from '../../helpers/site-pages.js';

/**
 * A page whose capture is over must not reach anyone afterwards: a closing page can still start
 * a navigation after its interception is gone (a site page moving itself off the site, seen in
 * og-browser.test.ts), so the pool seals the context's proxy session before closing it.
 */
const run = chromiumAvailable();
let site: SitePages;
let proxy: EgressProxy;
let pool: BrowserPool;

beforeAll(async () => {
  if (!run) return;
  site = await startSitePages();
  proxy = createEgressProxy({ guard: createUrlGuard({ allowPrivateHosts: [site.hostPort] }) });
  pool = createBrowserPool({
    executablePath: CHROMIUM,
    sandbox: 'auto',
    chromiumUser: 'cardshot-chromium',
    proxy,
    spareContexts: 0,
    recycleAfter: 100,
    defaultViewport: DESKTOP,
    maxPageMemoryBytes: 0,
    log: capturedLogger().log,
  });
}, 30_000);

afterAll(async () => {
  await pool?.close();
  await proxy?.close();
  await site?.close();
});

/** A plain-http GET through a lease's proxy session, as its page would send it; the status or the error. */
function throughProxy(egress: Lease['egress'], target: string): Promise<number | string> {
  const auth = `Basic ${Buffer.from(`${egress.username}:${egress.password}`).toString('base64')}`;
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: Number(new URL(egress.server).port),
        path: target,
        headers: { 'proxy-authorization': auth },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? String(err)));
    req.end();
  });
}

describe.runIf(run)('releasing a lease', () => {
  it('lets nothing its page asks for go out from then on, while the context is still closing', {
    timeout: 30_000,
  }, async () => {
    const lease = await pool.acquire(DESKTOP);
    await lease.page.goto(`${site.url}/blog/post-1`);
    expect(await throughProxy(lease.egress, `${site.url}/blog/meta-name`)).toBe(200);
    lease.release();
    // Closing the context takes a while; a request in that time (one Chromium held paused and
    // lets go, one a closing page starts) gets the proxy's own answer, or no listener at all.
    expect([204, 'ECONNREFUSED', 'ECONNRESET']).toContain(
      await throughProxy(lease.egress, `${site.url}/blog/title-only`),
    );
    expect(site.hits('/blog/post-1')).toBe(1);
    expect(site.hits('/blog/meta-name')).toBe(1);
    expect(site.hits('/blog/title-only')).toBe(0);
  });
});
