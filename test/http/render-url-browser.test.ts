// @module-tag chromium
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  listProcesses,
  liveGroupMembers,
  residentBytes,
} from '../../src/render/screenshot/engine/browser/processes.js';
import { browserPoolOf } from '../../src/render/screenshot/module.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/errors.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';
import { pixelAt, pngSize } from '../helpers/png.js';
import { until } from '../helpers/wait.js';

// The browser pool under stress: a missing Chromium, a full queue, a page that never loads,
// a browser killed mid-request, recycling and shutdown, with the process table checked after.
let pages: PageServer;

beforeAll(async () => {
  pages = await startPageServer();
});
afterAll(async () => {
  await pages?.close();
});

const get = (t: TestApp, query: Record<string, string>) =>
  t.inject({ method: 'GET', url: `/render/url?${new URLSearchParams(query)}` });

/**
 * The status of a normal page right after a failure, on an app whose time-out is only 2 s: a
 * 504 is asked again (twice at most), as a loaded machine can need more than 2 s while the
 * browser cleans up the failed page. A browser left broken still fails every try (502/503).
 */
const statusAfterFailure = async (t: TestApp, url: string) => {
  let status = 0;
  for (let attempt = 0; attempt < 3 && status !== 200; attempt++) {
    status = (await get(t, { url: `${url}${attempt ? `&try=${attempt}` : ''}` })).statusCode;
    if (status !== 504) break;
  }
  return status;
};

/** Zombies whose parent is this process: the ones it would be our job to reap. */
const ownZombies = () => listProcesses().filter((p) => p.ppid === process.pid && p.state === 'Z');

const waitFor = (check: () => boolean) => until(check, 10_000);

/**
 * The options that run our own steps in a hostile page (issue 17): the full-page scroll, waits
 * for selectors, hiding, a device scale, dark mode, another encoder. A page must not turn any of
 * them into a hang, a 500 or a leak.
 */
const WITH_OPTIONS = {
  fullPage: 'true',
  waitForSelector: 'body',
  hideSelectors: 'iframe',
  darkMode: 'true',
  scale: '2',
  format: 'webp',
};

describe('without Chromium', () => {
  it('answers 503 with a clear message and keeps serving templates', async () => {
    const t = await startTestApp({ chromiumPath: '/nonexistent/chromium' });
    try {
      const res = await get(t, { url: 'https://example.com/' });
      await expectError(res, 503, 'Screenshots are not available on this server: Chromium is not installed');
      expect(res.headers['cache-control']).toBe('no-store');
      const card = await t.inject({
        method: 'GET',
        url: '/render/template?template=blog&title=Still%20here',
      });
      expect(card.statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('a page that downloads more than its budget', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ allowPrivateHosts: [pages.hostPort], screenshotMaxPageBytes: 1024 * 1024 });
  });
  afterAll(async () => t?.close());

  it('is captured as it stands when a sub-resource passes the budget', async () => {
    const res = await get(t, { url: `${pages.url}/heavy` });
    expect(res.statusCode).toBe(200);
    expect(pngSize(res.rawPayload)).toEqual({ width: 1200, height: 630 });
  });

  it('is captured as it stands, without waiting for the deadline, when the document itself passes it', async () => {
    const started = Date.now();
    const res = await get(t, { url: `${pages.url}/huge-doc` });
    expect(res.statusCode).toBe(200);
    expect(pngSize(res.rawPayload)).toEqual({ width: 1200, height: 630 });
    expect(Date.now() - started).toBeLessThan(10_000); // the deadline is 15 s
  });
});

describe('a Chromium that will not start', () => {
  it('answers 503 with Retry-After and does not try to launch on every request', async () => {
    const t = await startTestApp({ chromiumPath: '/bin/false', allowPrivateHosts: [pages.hostPort] });
    try {
      const first = await get(t, { url: `${pages.url}/split?nostart=1` });
      expect({ status: first.statusCode, body: first.json() }).toEqual({
        status: 503,
        body: { error: 'Screenshots are temporarily unavailable: the browser could not be started' },
      });
      expect(first.headers['retry-after']).toBe('5');
      const second = await get(t, { url: `${pages.url}/split?nostart=2` });
      expect(second.statusCode).toBe(503);
      expect(t.modules.screenshots.status().browser.launches).toBe(0);
      expect(t.logs.filter((l) => l.msg === 'browser launch failed')).toHaveLength(1);
    } finally {
      await t.close();
    }
  });
});

describe('a full queue', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      allowPrivateHosts: [pages.hostPort],
      screenshotConcurrency: 1,
      screenshotQueueSize: 0,
      screenshotSpareContexts: 0,
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('503 with Retry-After when every slot is busy and the queue is full', async () => {
    const arrived = pages.nextRequest('/hold');
    const slow = get(t, { url: `${pages.url}/hold?ms=1200&queue=1` });
    await arrived;
    const refused = await get(t, { url: `${pages.url}/split?queue=2` });
    await expectError(refused, 503, 'The screenshot renderer is busy; retry shortly');
    expect(refused.headers['retry-after']).toBe('1');
    expect((await slow).statusCode).toBe(200);
  });
});

describe('a request whose turn comes as its time runs out', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      allowPrivateHosts: [pages.hostPort],
      screenshotConcurrency: 1,
      screenshotTimeoutMs: 2000,
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  // Two requests at once for one slot: the second waits for the first, whose slot frees at
  // about the deadline both share. It used to start a capture anyway, with a few ms left, and
  // answer 504 "did not reach load" or "the browser is not ready" (Retry-After: 5).
  it('is told the renderer is busy (503, Retry-After: 2), not that the page or the browser failed', async () => {
    const answers = await Promise.all([
      get(t, { url: `${pages.url}/never?turn=1` }),
      get(t, { url: `${pages.url}/never?turn=2` }),
    ]);
    const seen = answers
      .map((r) => ({ status: r.statusCode, body: r.json(), retry: r.headers['retry-after'] }))
      .sort((a, b) => a.status - b.status);
    expect(seen).toEqual([
      { status: 503, body: { error: 'The screenshot renderer is busy; retry shortly' }, retry: '2' },
      { status: 504, body: { error: 'The page did not reach "load" within 2 s' }, retry: undefined },
    ]);
  });
});

describe('a client that hangs up', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp({
      allowPrivateHosts: [pages.hostPort],
      screenshotConcurrency: 1,
      screenshotTimeoutMs: 6000,
    });
    base = await t.listen();
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Asks for a screenshot over a real socket and hangs up once `ready` resolves. */
  const askThenHangUp = async (page: string, ready: Promise<unknown>) => {
    const req = request(`${base}/render/url?${new URLSearchParams({ url: page })}`, {
      headers: { 'x-api-key': t.key.key },
    });
    req.on('error', () => {});
    req.end();
    await ready;
    req.destroy();
  };
  const fetchShot = async (page: string) => {
    const started = Date.now();
    const res = await fetch(`${base}/render/url?${new URLSearchParams({ url: page })}`, {
      headers: { 'x-api-key': t.key.key },
    });
    await res.arrayBuffer();
    return { status: res.status, ms: Date.now() - started };
  };

  // The only slot was held by a capture nobody would read, until its 6 s time-out.
  it('frees its browser slot at once: the next request does not wait for the abandoned capture', async () => {
    await askThenHangUp(`${pages.url}/never?gone=1`, pages.nextRequest('/never'));
    const next = await fetchShot(`${pages.url}/split?after-hang-up`);
    expect(next.status).toBe(200);
    expect(next.ms).toBeLessThan(3000);
    // The abandoned request has its access line, with status 499.
    const line = t.logs.find((l) => l.msg === 'request' && String(l.url).includes('gone%3D1'));
    expect(line).toMatchObject({ status: 499, route: '/render/url', method: 'GET' });
  });

  it('does not stop a capture another client is still waiting for', async () => {
    const url = `${pages.url}/never?shared=1`;
    const before = pages.hits('/never');
    const arrived = pages.nextRequest('/never');
    const staying = fetchShot(url);
    await arrived;
    // The second client joins the same capture, then leaves.
    await askThenHangUp(url, new Promise((r) => setTimeout(r, 300)));
    const stayed = await staying;
    // The capture ran on to the page's time-out for the client that stayed, and it was one
    // capture: the second client joined it rather than queueing its own.
    expect(stayed.status).toBe(504);
    expect(stayed.ms).toBeGreaterThan(5000);
    expect(pages.hits('/never') - before).toBe(1);
  });
});

describe('a short time-out', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ allowPrivateHosts: [pages.hostPort], screenshotTimeoutMs: 2000 });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('504 naming waitUntil and the time-out when the page never finishes loading', async () => {
    const started = Date.now();
    const res = await get(t, { url: `${pages.url}/never` });
    expect(res.json()).toEqual({ error: 'The page did not reach "load" within 2 s' });
    expect(res.statusCode).toBe(504);
    expect(res.headers['cache-control']).toBe('no-store');
    // The 2 s deadline, not the default 15 s (with room for a busy machine).
    expect(Date.now() - started).toBeLessThan(6000);
    const idle = await get(t, { url: `${pages.url}/never?idle`, waitUntil: 'networkidle' });
    expect(idle.json()).toEqual({ error: 'The page did not reach "networkidle" within 2 s' });
    // The hung page's context is gone and the next request is served normally.
    expect(await statusAfterFailure(t, `${pages.url}/split?after-timeout`)).toBe(200);
  });

  it('504 for a page whose script never returns, and the browser stays usable', async () => {
    const res = await get(t, { url: `${pages.url}/spin` });
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 504,
      body: { error: 'The page did not reach "load" within 2 s' },
    });
    expect(await statusAfterFailure(t, `${pages.url}/split?after-spin`)).toBe(200);
  });
});

describe('pages that move to another document after load', () => {
  let t: TestApp;
  // For the tests that expect a capture: the bug they guard against gave a 504 after the whole
  // time-out (or a 500), which 10 s still shows, while 4 s was too short for a mobile capture on
  // a loaded CI machine (a 504 there, in a full run at twice the usual time).
  let roomy: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ allowPrivateHosts: [pages.hostPort], screenshotTimeoutMs: 4000 });
    roomy = await startTestApp({ allowPrivateHosts: [pages.hostPort], screenshotTimeoutMs: 10_000 });
  });
  afterAll(async () => {
    await t?.close();
    await roomy?.close();
  });

  /** Green: captured before it moved; red | blue: the /split page it moved to. */
  const shows = async (png: Buffer) => {
    const left = (await pixelAt(png, 100, 100)).slice(0, 3).join(',');
    const right = (await pixelAt(png, 1100, 100)).slice(0, 3).join(',');
    if (left === '0,255,0' && right === '0,255,0') return 'the first page';
    if (left === '255,0,0' && right === '0,0,255') return 'the page it moved to';
    return `something else (${left} | ${right})`;
  };

  // Chromium leaves a capture unanswered when the document goes while it is taken: this gave a
  // 504 ("did not reach load") after the whole time-out, or a 500, about one time in three.
  it('is captured (200) whenever it moves: by script right after load, later, or by meta refresh', async () => {
    const cases = [
      ...['0', '10', '30', '60'].flatMap((after) =>
        ['og', 'mobile'].map((viewport) => ({
          url: `${pages.url}/moves?after=${after}&v=${viewport}`,
          viewport,
        })),
      ),
      { url: `${pages.url}/moves-meta?v=og`, viewport: 'og' },
      { url: `${pages.url}/moves-meta?v=mobile`, viewport: 'mobile' },
    ];
    for (const { url, viewport } of cases) {
      const res = await get(roomy, { url, viewport });
      expect({ url, viewport, status: res.statusCode }).toEqual({ url, viewport, status: 200 });
      if (viewport === 'og')
        expect(await shows(res.rawPayload)).toMatch(/^the (first page|page it moved to)$/);
    }
  }, 90_000); // ten captures one after another: 3 s each on a loaded node is not a failure

  // The options' steps run in an isolated world that goes with the document: they give way to
  // the new document like the capture does.
  it('is captured (200) with every option on whenever it moves, its steps run again on the new document', async () => {
    for (const url of ['0', '10', '60'].map((after) => `${pages.url}/moves?after=${after}&options`)) {
      const res = await get(roomy, { url, ...WITH_OPTIONS, format: 'png', selector: 'body' });
      expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
      // At scale 2: green (the first page) or the split page it moved to, never anything else.
      const left = (await pixelAt(res.rawPayload, 200, 200)).slice(0, 3).join(',');
      expect({ url, left }).toEqual({ url, left: expect.stringMatching(/^(0,255,0|255,0,0)$/) });
    }
  }, 60_000);

  it('504 naming the cause for a page that reloads itself for ever, then serves the next', async () => {
    const started = Date.now();
    const res = await get(t, { url: `${pages.url}/reloads` });
    // Captured between two reloads, or given up on after a few new documents: never a 500.
    if (res.statusCode !== 200) {
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 504,
        body: {
          error: expect.stringMatching(
            /^The page kept navigating after "load" \(\d+ new documents\) and could not be captured$/,
          ),
        },
      });
    }
    expect(Date.now() - started).toBeLessThan(8000);
    expect(await statusAfterFailure(t, `${pages.url}/split?after-reloads`)).toBe(200);
  });

  it('504 saying the page loaded but stayed busy, for a script that blocks it right after load', async () => {
    const res = await get(t, { url: `${pages.url}/spin-after-load` });
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 504,
      body: {
        error:
          'The page reached "load" but could not be captured within 4 s (a script kept it busy, or loading used up the time)',
      },
    });
    expect(await statusAfterFailure(t, `${pages.url}/split?after-spin-load`)).toBe(200);
  });

  it('504 too, with every option on: a blocked page cannot hang the full-page scroll or a selector wait', async () => {
    const started = Date.now();
    const res = await get(t, { url: `${pages.url}/spin-after-load?options`, ...WITH_OPTIONS, selector: 'p' });
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 504,
      body: {
        error:
          'The page reached "load" but could not be captured within 4 s (a script kept it busy, or loading used up the time)',
      },
    });
    expect(Date.now() - started).toBeLessThan(8000);
    expect(await statusAfterFailure(t, `${pages.url}/split?after-spin-options`)).toBe(200);
  });
});

describe('spare contexts for another viewport', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ allowPrivateHosts: [pages.hostPort] });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('settle on the viewport asked for: the next mobile request finds a spare ready', async () => {
    const browser = () => t.modules.screenshots.status().browser;
    const first = await get(t, { url: `${pages.url}/split?og` });
    // One CI run answered 500 here (not reproduced in 12 runs since): say why if it comes back.
    const why = () => `${first.body} ${JSON.stringify(t.logs.filter((l) => Number(l.level) >= 40))}`;
    expect(first.statusCode, why()).toBe(200);
    await waitFor(() => browser().spares === 2);
    expect((await get(t, { url: `${pages.url}/split?m1`, viewport: 'mobile' })).statusCode).toBe(200);
    // The evicted og spares used to refill themselves by evicting the new mobile ones, for ever.
    // Settled means two spares for a whole second: the count passes 2 on the way (one mobile
    // spare made, the second og one not yet evicted), and a slow machine can take longer than
    // a fixed pause to make the second mobile spare. Churn for ever never holds still that long.
    let since = Date.now();
    await waitFor(() => {
      if (browser().spares !== 2) since = Date.now();
      return Date.now() - since >= 1000;
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(browser().spares).toBe(2);
    const next = await get(t, { url: `${pages.url}/split?m2`, viewport: 'mobile' });
    expect(next.statusCode).toBe(200);
    expect(next.headers['server-timing']).toMatch(/context;dur=0\.0/);
  });
});

describe('a page that fills memory outside the JavaScript heap', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      allowPrivateHosts: [pages.hostPort],
      screenshotMaxPageMemoryBytes: 300 * 2 ** 20,
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('has its renderer ended past the limit: 502 as for a crashed tab, and the next request is served', async () => {
    // 2 GB of filled typed arrays: the 512 MiB heap cap does not see them; without the guard the
    // page was captured showing "held 2048 MB".
    const res = await get(t, { url: `${pages.url}/hog-buffers` });
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 502,
      body: { error: 'The page crashed its browser tab (it may use too much memory)' },
    });
    expect(
      t.logs.filter((l) => l.msg === 'a page used more memory than allowed: its renderer was ended').length,
    ).toBeGreaterThan(0);
    expect((await get(t, { url: `${pages.url}/split?after-buffers` })).statusCode).toBe(200);
  });

  it('is ended the same way with every option on (a full page at scale 2 adds nothing it can hide behind)', async () => {
    const res = await get(t, { url: `${pages.url}/hog-buffers?options`, ...WITH_OPTIONS });
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 502,
      body: { error: 'The page crashed its browser tab (it may use too much memory)' },
    });
    expect(
      (await get(t, { url: `${pages.url}/split?after-buffers-options`, ...WITH_OPTIONS })).statusCode,
    ).toBe(200);
  });
});

describe("a page whose Blobs fill the browser's own process", () => {
  let t: TestApp;
  beforeAll(async () => {
    // The default limits (1 GiB a renderer, 1 GiB a browser process); a deadline long enough that
    // the page's 20 s load is waited for, as a slow machine needs.
    t = await startTestApp({ allowPrivateHosts: [pages.hostPort], screenshotTimeoutMs: 45_000 });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('has its pages ended past the browser limit: 502, no Chromium process over 1.6 GiB, then 200', async () => {
    const pool = browserPoolOf(t.modules.screenshots);
    expect((await get(t, { url: `${pages.url}/split?before-blobs` })).statusCode).toBe(200);
    // Every Chromium process and this one, sampled while the capture runs.
    let chromiumPeak = 0;
    const nodeBase = process.memoryUsage.rss();
    let nodePeak = nodeBase;
    const sampler = setInterval(() => {
      for (const p of pool.processes()) chromiumPeak = Math.max(chromiumPeak, residentBytes(p.pid));
      nodePeak = Math.max(nodePeak, process.memoryUsage.rss());
    }, 100);
    let res: Awaited<ReturnType<typeof get>>;
    try {
      res = await get(t, { url: `${pages.url}/hog-blobs` });
    } finally {
      clearInterval(sampler);
    }
    process.stderr.write(
      `blob page: Chromium peak ${Math.round(chromiumPeak / 2 ** 20)} MiB, node growth ${Math.round((nodePeak - nodeBase) / 2 ** 20)} MiB\n`,
    );
    // Without the check: 200 after 20 s, the browser process at 2.1 GB. Its pages are ended
    // first (the log below); on a loaded machine the browser may not give the memory back within
    // the 3 s grace and is replaced, which the capture sees as its browser crashing.
    const type = String(res.headers['content-type']);
    expect({ status: res.statusCode, body: type.includes('json') ? res.json() : type }).toEqual({
      status: 502,
      body: {
        error: expect.stringMatching(
          /^(The page crashed its browser tab \(it may use too much memory\)|The browser crashed while rendering the page; retry later)$/,
        ),
      },
    });
    expect(chromiumPeak / 2 ** 30).toBeLessThan(1.6);
    expect((nodePeak - nodeBase) / 2 ** 20).toBeLessThan(400);
    expect(
      t.logs.filter(
        (l) => l.msg === 'the browser used more memory than allowed: the pages in flight were ended',
      ).length,
    ).toBeGreaterThan(0);
    expect((await get(t, { url: `${pages.url}/split?after-blobs` })).statusCode).toBe(200);
  }, 60_000);
});

describe('crashes, recycling and shutdown', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ allowPrivateHosts: [pages.hostPort], browserRecycleAfter: 12 });
  });
  afterAll(async () => {
    await t?.close();
  });
  const browser = () => t.modules.screenshots.status().browser;
  const processes = () => browserPoolOf(t.modules.screenshots).processes();

  it('keeps the process count flat over many captures', async () => {
    expect((await get(t, { url: `${pages.url}/split?warm` })).statusCode).toBe(200);
    await waitFor(() => browser().spares === 2);
    await new Promise((r) => setTimeout(r, 300));
    const before = processes().length;
    for (let i = 0; i < 8; i++) {
      expect((await get(t, { url: `${pages.url}/split?flat=${i}` })).statusCode).toBe(200);
    }
    await waitFor(() => browser().spares === 2);
    await new Promise((r) => setTimeout(r, 300));
    expect(processes().length).toBe(before);
    expect(ownZombies()).toEqual([]);
  });

  it('retries once on a fresh browser when the browser is killed mid-request', async () => {
    const old = browser();
    expect(old.pid).toBeGreaterThan(0);
    const arrived = pages.nextRequest('/hold');
    const pending = get(t, { url: `${pages.url}/hold?ms=800&crash=1` });
    await arrived;
    process.kill(old.pid!, 'SIGKILL');
    const res = await pending;
    expect(res.statusCode).toBe(200);
    expect(pngSize(res.rawPayload)).toEqual({ width: 1200, height: 630 });
    expect(t.logs.some((l) => l.msg === 'browser crashed during a capture; retrying once')).toBe(true);
    expect(browser().generation).toBeGreaterThan(old.generation);
    // Nothing of the killed browser keeps running.
    await waitFor(() => liveGroupMembers(old.pid!).length === 0);
  });

  it('answers 502 when the browser dies on the retry too, and serves the next request', async () => {
    const first = pages.nextRequest('/hold');
    const pending = get(t, { url: `${pages.url}/hold?ms=800&crash=2` });
    await first;
    const killed = [browser().pid!];
    const second = pages.nextRequest('/hold');
    process.kill(killed[0]!, 'SIGKILL');
    await second;
    killed.push(browser().pid!);
    expect(killed[1]).not.toBe(killed[0]);
    process.kill(killed[1]!, 'SIGKILL');
    const res = await pending;
    expect(res.json()).toEqual({ error: 'The browser crashed while rendering the page; retry later' });
    expect(res.statusCode).toBe(502);
    expect(res.headers['cache-control']).toBe('no-store');

    const next = await get(t, { url: `${pages.url}/split?after-crash` });
    expect(next.statusCode).toBe(200);
    for (const pid of killed) await waitFor(() => liveGroupMembers(pid).length === 0);
    expect(ownZombies()).toEqual([]);
  });

  it('502 for a page that eats memory until its tab crashes (retried once), then serves the next', async () => {
    const res = await get(t, { url: `${pages.url}/hog` });
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 502,
      body: { error: 'The page crashed its browser tab (it may use too much memory)' },
    });
    expect((await get(t, { url: `${pages.url}/split?after-hog` })).statusCode).toBe(200);
  });

  it('replaces the browser after browserRecycleAfter captures and ends the old one', async () => {
    const old = browser();
    for (let i = old.jobs; i <= 12; i++) {
      expect((await get(t, { url: `${pages.url}/split?recycle=${i}` })).statusCode).toBe(200);
    }
    expect(browser().generation).toBeGreaterThan(old.generation);
    await waitFor(() => liveGroupMembers(old.pid!).length === 0);
    expect(t.logs.some((l) => l.msg === 'recycling browser')).toBe(true);
  });

  it('starts the replacement of a recycled browser before the next request, which pays no launch', async () => {
    const old = browser();
    for (let i = old.jobs; i < 12; i++) {
      expect((await get(t, { url: `${pages.url}/split?again=${i}` })).statusCode).toBe(200);
    }
    // The 12th capture retired its browser; with no request in between, a new one comes up with a spare.
    await waitFor(() => browser().generation > old.generation && browser().spares > 0);
    const next = await get(t, { url: `${pages.url}/split?after-recycle` });
    expect(next.statusCode).toBe(200);
    expect(next.headers['server-timing']).not.toMatch(/launch;/);
    expect(next.headers['server-timing']).toMatch(/context;dur=0[.,;]/);
  });

  it('leaves no Chromium process behind on close, and a clean close logs no warning', async () => {
    // Closed right after a capture: its context is closing and its replacement spare is being made.
    expect((await get(t, { url: `${pages.url}/split?last` })).statusCode).toBe(200);
    const pid = browser().pid!;
    expect(liveGroupMembers(pid).length).toBeGreaterThan(0);
    const mark = t.logs.length;
    await t.close();
    expect(liveGroupMembers(pid)).toEqual([]);
    expect(ownZombies()).toEqual([]);
    // Spares and contexts ending with their browser once logged warnings with Chromium's whole launch command.
    expect(t.logs.slice(mark).filter((l) => Number(l.level) >= 40)).toEqual([]);
  });
});
