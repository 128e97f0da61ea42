// @module-tag chromium
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveGroupMembers } from '../../../src/render/screenshot/engine/browser/processes.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { type PageServer, startPageServer } from '../../helpers/pages.js';
import { pngSize } from '../../helpers/png.js';

// The fault table's "Chromium SIGSTOPped mid-capture" row (docs/reliability.md): a browser
// that is frozen, not dead, still looks connected. Captures must end at their deadline with a
// documented 5xx (never hang), cards must not notice, /readyz must say so, and once the
// browser runs again (or is replaced) captures must succeed without a restart.
let pages: PageServer;
let t: TestApp;

beforeAll(async () => {
  pages = await startPageServer();
  t = await startTestApp({ allowPrivateHosts: [pages.hostPort], screenshotTimeoutMs: 3000 });
});
afterAll(async () => {
  await t?.close();
  await pages?.close();
});

const get = (query: Record<string, string>) =>
  t.inject({ method: 'GET', url: `/render/url?${new URLSearchParams(query)}` });

describe('Chromium stopped (SIGSTOP) in the middle of a capture', () => {
  it('the capture ends at its deadline with 503/504, cards keep answering, readiness degrades, and SIGCONT recovers', async () => {
    expect((await get({ url: `${pages.url}/split?warm` })).statusCode).toBe(200);
    const pid = t.modules.screenshots.status().browser.pid!;
    const group = liveGroupMembers(pid).map((p) => p.pid);
    const arrived = pages.nextRequest('/hold');
    const started = Date.now();
    const pending = get({ url: `${pages.url}/hold?ms=500&stopped=1` });
    await arrived;
    const signal = (sig: NodeJS.Signals) => {
      for (const p of group) {
        try {
          process.kill(p, sig);
        } catch {
          // A renderer that ended meanwhile (its page closed, or the pool replaced the browser).
        }
      }
    };
    signal('SIGSTOP');
    try {
      // Cards are drawn in this process, not by Chromium: unaffected.
      const card = await t.inject({
        method: 'GET',
        url: '/render/template?template=blog&title=Still%20drawing',
      });
      expect(card.statusCode).toBe(200);
      const ready = await t.inject({ method: 'GET', url: '/readyz', auth: false });
      const browser = (ready.json() as { checks: Record<string, { status: string; detail?: string }> }).checks
        .browser;
      expect(browser?.status).toBe('fail');
      expect(browser?.detail).toMatch(/is stopped|processes are stopped/);

      const res = await pending;
      const elapsed = Date.now() - started;
      expect([503, 504]).toContain(res.statusCode);
      expect(Object.keys(res.json())).toEqual(['error']);
      expect(res.headers['cache-control']).toBe('no-store');
      // At its deadline (3 s) plus slack for a loaded machine, not after a hang.
      expect(elapsed).toBeLessThan(12_000);
    } finally {
      signal('SIGCONT');
    }
    // Running again (or replaced by the pool): the next captures answer 200.
    const deadline = Date.now() + 30_000;
    let res = await get({ url: `${pages.url}/split?after-stop=0` });
    for (let i = 1; res.statusCode !== 200 && Date.now() < deadline; i++) {
      res = await get({ url: `${pages.url}/split?after-stop=${i}` });
    }
    expect(res.statusCode).toBe(200);
    expect(pngSize(res.rawPayload)).toEqual({ width: 1200, height: 630 });
  }, 60_000);
});
