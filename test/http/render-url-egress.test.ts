// @module-tag chromium
import { createSocket } from 'node:dgram';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_FLAGS } from '../../src/render/screenshot/engine/browser/browser.js';
import { browserPoolOf } from '../../src/render/screenshot/module.js';
import { settings } from '../../src/settings.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { ATTACKS, type PageServer, startPageServer } from '../helpers/pages.js';
import { type CanaryServer, startCanaryServer } from '../helpers/servers.js';

/**
 * The egress suite (issue §3): every way a page can send Chromium somewhere, aimed at a canary
 * on a loopback port that is NOT allowed. The canary must see zero connections. A control app
 * that does allow the canaries runs the same vectors and must reach every one of them, which
 * proves each vector really fires (a vector that never sent anything would pass vacuously).
 */
type Vector = { name: string; query: (canary: string) => Record<string, string>; refused?: string };

let pages: PageServer;

const VECTORS: Vector[] = [
  {
    name: 'top-level URL',
    query: (c) => ({ url: `${c}/top` }),
    refused: 'url points to an address that is not allowed',
  },
  {
    name: '302 from an allowed page',
    query: (c) => ({ url: `${pages.url}/redirect?to=${encodeURIComponent(`${c}/hop`)}` }),
    refused: 'url redirected to an address that is not allowed',
  },
  {
    name: '302 to https',
    query: (c) => ({
      url: `${pages.url}/redirect?to=${encodeURIComponent(`${c.replace('http:', 'https:')}/hop`)}`,
    }),
    refused: 'url redirected to an address that is not allowed',
  },
  ...Object.keys(ATTACKS).map((name) => ({
    name,
    // networkidle: sub-resources, scripts and refreshes get their chance before the capture.
    query: (c: string) => ({
      url: `${pages.url}/attack/${name}?target=${encodeURIComponent(c)}`,
      waitUntil: 'networkidle',
    }),
  })),
  // Regression: with the default waitUntil (load), a page that sends itself to a refused
  // address while loading stopped its own load and the request waited for the whole deadline.
  ...['location', 'form'].map((name) => ({
    name: `${name} during load`,
    query: (c: string) => ({ url: `${pages.url}/attack/${name}?target=${encodeURIComponent(c)}&load` }),
  })),
  {
    name: 'img over https',
    query: (c) => ({
      url: `${pages.url}/attack/img?target=${encodeURIComponent(c.replace('http:', 'https:'))}`,
      waitUntil: 'networkidle',
    }),
  },
  {
    name: 'img via localhost',
    query: (c) => ({
      url: `${pages.url}/attack/img?target=${encodeURIComponent(c.replace('127.0.0.1', 'localhost'))}`,
      waitUntil: 'networkidle',
    }),
  },
  {
    name: 'img via 127.1',
    query: (c) => ({
      url: `${pages.url}/attack/img?target=${encodeURIComponent(c.replace('127.0.0.1', '127.1'))}`,
      waitUntil: 'networkidle',
    }),
  },
];

const canaries = new Map<string, CanaryServer>();

/**
 * Every vector runs at once from the one test account: more than the pro plan's share of the
 * screenshot queue (4 running, 8 waiting), so the account gets a share that holds them all.
 */
function roomyPlans(): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'cardshot-egress-plans-')), 'plans.json');
  writeFileSync(
    file,
    JSON.stringify({
      pro: {
        templates: '*',
        screenshots: { viewports: '*', concurrency: 3, queue: 64, options: '*' },
        rateLimit: { requests: 600, windowSeconds: 60 },
      },
    }),
  );
  return file;
}

/**
 * Every option that changes what runs in the page, on at once (issue 17): the scroll of a full
 * page, waiting for and capturing an element, hiding, dark mode, a device scale and another
 * encoder. None may open a way past the proxy.
 */
const ALL_OPTIONS = {
  fullPage: 'true',
  selector: 'body',
  waitForSelector: 'body',
  hideSelectors: 'iframe, img',
  darkMode: 'true',
  scale: '2',
  delay: '50',
  format: 'webp',
};

/**
 * Issue 29's options on at once: a PDF with every print option, shown in another locale and time
 * zone, with reduced motion, screen media and a stylesheet of its own (loading an image of the
 * page's origin). A PDF prints what the page fetched; none of it may pass the proxy either.
 */
const PDF_OPTIONS = {
  format: 'pdf',
  paper: 'letter',
  landscape: 'true',
  margin: '1cm',
  printBackground: 'false',
  pageRanges: '1',
  media: 'screen',
  locale: 'de-DE',
  timezone: 'Asia/Tokyo',
  reducedMotion: 'true',
  css: 'body { outline: 1px solid red } iframe { min-height: 50px }',
  waitForSelector: 'body',
  hideSelectors: '.none',
  delay: '50',
};

/** The image options issue 29 added, on an image: an area of the viewport, print media, CSS. */
const READER_OPTIONS = {
  clip: '0,0,600,300',
  media: 'print',
  locale: 'fr-FR',
  timezone: 'America/New_York',
  reducedMotion: 'true',
  css: 'img, iframe { outline: 2px solid blue }',
  format: 'jpeg',
};

async function runAll(t: TestApp, options: Record<string, string> = {}) {
  const before = new Map([...canaries].map(([name, c]) => [name, c.connections]));
  const responses = await Promise.all(
    VECTORS.map((v) =>
      t.inject({
        method: 'GET',
        url: `/render/url?${new URLSearchParams({ ...v.query(canaries.get(v.name)!.url), ...options })}`,
      }),
    ),
  );
  // Counted after a pause, so an attempt made late (while the context closes) is not missed.
  await new Promise((r) => setTimeout(r, 300));
  return VECTORS.map((v, i) => ({
    v,
    res: responses[i]!,
    connections: canaries.get(v.name)!.connections - before.get(v.name)!,
  }));
}

beforeAll(async () => {
  pages = await startPageServer();
  for (const v of VECTORS) canaries.set(v.name, await startCanaryServer());
});
afterAll(async () => {
  await pages?.close();
  await Promise.all([...canaries.values()].map((c) => c.close()));
});

describe('Chromium egress: a canary on a loopback port that is not allowed', () => {
  let t: TestApp;
  beforeAll(async () => {
    // All vectors run at once; a long deadline keeps a slow shared machine from turning queue
    // waits into 503s, which would say nothing about egress.
    t = await startTestApp({
      allowPrivateHosts: [pages.hostPort],
      screenshotConcurrency: 3,
      screenshotTimeoutMs: 60_000,
      plansFile: roomyPlans(),
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    ['', {}, 'image/png'],
    [' with every option on', ALL_OPTIONS, 'image/webp'],
    [' as a PDF with every print and reader option', PDF_OPTIONS, 'application/pdf'],
    [' with clip, media, locale, timezone, css', READER_OPTIONS, 'image/jpeg'],
  ])(
    'sees zero connections from any vector%s; refused top-level URLs get 400, pages with refused parts 200',
    {
      timeout: 90_000,
    },
    async (_name, options, type) => {
      const logsBefore = t.logs.length;
      const results = await runAll(t, options);
      for (const { v, res, connections } of results) {
        expect({ vector: v.name, connections }).toEqual({ vector: v.name, connections: 0 });
        if (v.refused) {
          expect({ vector: v.name, status: res.statusCode, body: res.json() }).toEqual({
            vector: v.name,
            status: 400,
            body: { error: v.refused },
          });
        } else {
          expect({
            vector: v.name,
            status: res.statusCode,
            body: res.statusCode === 200 ? '' : res.body,
          }).toEqual({
            vector: v.name,
            status: 200,
            body: '',
          });
          expect(res.headers['content-type']).toBe(type);
          // The page did try: the proxy refused its request, and the log says so.
          const pageUrl = new URL(v.query(canaries.get(v.name)!.url).url!).href;
          // Only this run's lines: the same pages ran once already in this app.
          const logged = t.logs
            .slice(logsBefore)
            .find((l) => l.msg === 'page requests refused' && l.url === pageUrl);
          expect({ vector: v.name, logged: Number(logged?.count ?? 0) > 0 }).toEqual({
            vector: v.name,
            logged: true,
          });
        }
      }
    },
  );
});

describe('control: the same vectors with the canaries allowed', () => {
  let t: TestApp;
  beforeAll(async () => {
    const canaryHosts = [...canaries.values()].flatMap((c) => [`127.0.0.1:${c.port}`, `localhost:${c.port}`]);
    t = await startTestApp({
      allowPrivateHosts: [pages.hostPort, ...canaryHosts],
      screenshotConcurrency: 3,
      screenshotTimeoutMs: 60_000,
      plansFile: roomyPlans(),
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    ['', {}],
    [' with every option on', ALL_OPTIONS],
    [' as a PDF with every print and reader option', PDF_OPTIONS],
  ])(
    'reaches every canary%s, so each vector above really sends a request',
    { timeout: 90_000 },
    async (_name, options) => {
      const results = await runAll(t, options);
      for (const { v, connections, res } of results) {
        const outcome = { vector: v.name, reached: connections > 0, status: res.statusCode, body: '' };
        if (!outcome.reached) outcome.body = res.body.slice(0, 200);
        expect(outcome).toMatchObject({ vector: v.name, reached: true });
      }
    },
  );
});

describe('WebRTC: no UDP leaves the browser outside its proxy', () => {
  /** A UDP socket on a loopback port nobody allowed, counting the datagrams it receives. */
  async function udpCanary() {
    const socket = createSocket('udp4');
    let datagrams = 0;
    socket.on('message', () => datagrams++);
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return { port: socket.address().port, count: () => datagrams, close: () => socket.close() };
  }

  it('a page aiming STUN and TURN at a UDP canary sends it nothing (Cardshot)', {
    timeout: 60_000,
  }, async () => {
    const canary = await udpCanary();
    const t = await startTestApp({ allowPrivateHosts: [pages.hostPort] });
    try {
      const res = await t.inject({
        method: 'GET',
        url: `/render/url?${new URLSearchParams({ url: `${pages.url}/webrtc?port=${canary.port}`, waitUntil: 'networkidle' })}`,
      });
      expect(res.statusCode).toBe(200);
      await new Promise((r) => setTimeout(r, 500));
      expect(canary.count()).toBe(0);
    } finally {
      await t.close();
      canary.close();
    }
  });

  it('control: the same page in the same browser without the WebRTC policy does reach the canary', {
    timeout: 60_000,
  }, async () => {
    // Proves the page above really gathers over UDP on this Chromium, so zero is not vacuous.
    const canary = await udpCanary();
    const browser = await chromium.launch({
      executablePath: String(settings.chromiumPath.default),
      args: CHROMIUM_FLAGS.filter((f) => !f.includes('webrtc')),
    });
    try {
      const page = await browser.newPage();
      await page.goto(`${pages.url}/webrtc?port=${canary.port}`, { waitUntil: 'networkidle' });
      await new Promise((r) => setTimeout(r, 500));
      expect(canary.count()).toBeGreaterThan(0);
    } finally {
      await browser.close();
      canary.close();
    }
  });
});

describe('the egress proxy takes only its own browser contexts', () => {
  /** A plain HTTP client (any local process) asking the proxy at `server` for `target`. */
  async function plainClient(server: string, target: string, auth?: string) {
    const { request } = await import('node:http');
    const u = new URL(server);
    return new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: u.hostname,
          port: Number(u.port),
          path: target,
          headers: auth ? { 'proxy-authorization': auth } : {},
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  it('answers 407 to a client without credentials while captures through it still work', {
    timeout: 60_000,
  }, async () => {
    const t = await startTestApp({ allowPrivateHosts: [pages.hostPort] });
    try {
      const shot = () =>
        t.inject({
          method: 'GET',
          url: `/render/url?${new URLSearchParams({ url: `${pages.url}/split?creds` })}`,
        });
      expect((await shot()).statusCode).toBe(200);
      const pool = browserPoolOf(t.modules.screenshots);
      const lease = await pool.acquire(t.modules.screenshots.viewports.get('og')!);
      try {
        const target = `${pages.url}/split`;
        expect(await plainClient(lease.egress.server, target)).toBe(407);
        const guess = `Basic ${Buffer.from('cardshot:cardshot').toString('base64')}`;
        expect(await plainClient(lease.egress.server, target, guess)).toBe(407);
        // The context itself gets through: the page loads.
        const res = await lease.page.goto(target);
        expect(res?.status()).toBe(200);
      } finally {
        lease.release();
      }
    } finally {
      await t.close();
    }
  });

  it('a context sends its credentials up front: one challenge (made ahead), none while pages load', {
    timeout: 60_000,
  }, async () => {
    const t = await startTestApp({ allowPrivateHosts: [pages.hostPort] });
    try {
      const pool = browserPoolOf(t.modules.screenshots);
      const lease = await pool.acquire(t.modules.screenshots.viewports.get('og')!);
      try {
        // The warm-up's challenge, answered before the context was handed out.
        expect(lease.egress.challenged).toBe(1);
        const before = lease.egress.received;
        // A page, an image, a frame and a fetch: four more requests, each with credentials.
        for (const vector of ['img', 'iframe', 'fetch']) {
          const res = await lease.page.goto(
            `${pages.url}/attack/${vector}?target=${encodeURIComponent(pages.url)}`,
          );
          expect(res?.status()).toBe(200);
        }
        await lease.page.waitForTimeout(300);
        expect(lease.egress.received).toBeGreaterThanOrEqual(before + 6);
        expect(lease.egress.challenged).toBe(1);
      } finally {
        lease.release();
      }
    } finally {
      await t.close();
    }
  });

  it("a page cannot reach another context's proxy listener: its own proxy refuses loopback", {
    timeout: 60_000,
  }, async () => {
    const t = await startTestApp({ allowPrivateHosts: [pages.hostPort] });
    try {
      const pool = browserPoolOf(t.modules.screenshots);
      const og = t.modules.screenshots.viewports.get('og')!;
      const attacker = await pool.acquire(og);
      const victim = await pool.acquire(og);
      try {
        expect(victim.egress.server).not.toBe(attacker.egress.server);
        const port = new URL(victim.egress.server).port;
        const seen = victim.egress.received;
        const loopbacks = [victim.egress.server, `http://localhost:${port}`, `https://127.0.0.1:${port}`];
        for (const target of loopbacks) {
          for (const vector of ['img', 'iframe', 'fetch']) {
            const res = await attacker.page.goto(
              `${pages.url}/attack/${vector}?target=${encodeURIComponent(target)}`,
            );
            expect(res?.status()).toBe(200);
          }
        }
        // Straight at the listener from the page's script too, in the forms a proxy would take.
        const outcomes = await attacker.page.evaluate(async (server) => {
          const tries = [`${server}/`, `${server}/http://127.0.0.1:1/`];
          return Promise.all(
            tries.map((u) =>
              fetch(u).then(
                (r) => r.status,
                () => 'failed',
              ),
            ),
          );
        }, victim.egress.server);
        // Refused by the attacker's own proxy (its empty 204 answer) or failed: nothing got through.
        for (const o of outcomes) expect([204, 'failed']).toContain(o);
        await attacker.page.waitForTimeout(300);
        expect(victim.egress.received).toBe(seen);
        expect(victim.egress.bytes).toBe(0);
        const refusedTargets = attacker.egress.refused.map((r) => r.target);
        expect(refusedTargets).toContain(`127.0.0.1:${port}`);
        expect(refusedTargets).toContain(`localhost:${port}`);
      } finally {
        attacker.release();
        victim.release();
      }
    } finally {
      await t.close();
    }
  });
});
