import { errors } from 'playwright-core';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { STATUS } from '../../../src/http/errors.js';
import { type CaptureInput, capturePage } from '../../../src/render/screenshot/engine/page/capture.js';
import { BrowserCrashError } from '../../../src/render/screenshot/engine/page/capture-errors.js';
import { fakeLease, solidPng } from './fake-lease.js';

/**
 * capturePage without Chromium: a fake page and CDP session play what Chromium reports (a
 * document's request, answer and commit; a capture; a failure), so each branch of navigate →
 * settle → shoot → encode runs in milliseconds. test/http/render-url*.test.ts drive the same
 * code with real Chromium.
 */

const URL_ = 'https://site.test/';

const input = (ms = 2_000): CaptureInput => ({
  url: URL_,
  waitUntil: 'load',
  deadline: Date.now() + ms,
  timeoutMs: ms,
  maxHeight: 16_384,
});

async function pixels(png: Buffer) {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, first: [...data.subarray(0, 3)] };
}

/** What the client hears for a failed capture: status and message. */
async function failure(p: Promise<unknown>) {
  const err = await p.then(
    () => expect.fail('the capture succeeded'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  const appErr = err as AppError;
  return { status: STATUS[appErr.code], message: appErr.message };
}

describe('capturePage: navigate, settle, shoot, encode', () => {
  it('returns the visible viewport as a PNG of exactly its size, with the status and timings', async () => {
    const { lease, page, cdp } = fakeLease({ colour: [10, 120, 200] });
    // A retried capture counts once: its phases start again from 0.
    const timings = { queue: 7, navigate: 900 };
    const shot = await capturePage(lease, input(), timings);
    expect(await pixels(shot.image)).toEqual({ width: 320, height: 200, first: [10, 120, 200] });
    expect(shot.targetStatus).toBe(200);
    expect(shot.finalUrl).toBe(URL_);
    // Web fonts are awaited before the capture, over the same CDP session.
    expect(cdp.calls).toEqual(['Runtime.evaluate', 'Page.getLayoutMetrics', 'Page.captureScreenshot']);
    expect(page.loadStates).toEqual([]);
    // The request's own timings record, filled in place.
    expect(shot.timings).toBe(timings);
    expect(timings.queue).toBe(7);
    for (const phase of ['navigate', 'fonts', 'capture', 'encode'] as const) {
      expect(shot.timings[phase]).toBeGreaterThanOrEqual(0);
      expect(shot.timings[phase]).toBeLessThan(900);
    }
    // The document tracker let go of the page.
    for (const event of ['request', 'response', 'requestfailed', 'framenavigated'])
      expect(page.listenerCount(event), event).toBe(0);
  });

  it('brings a capture a pixel off (visual viewport rounding) back to the promised size', async () => {
    const { lease, cdp } = fakeLease({ colour: [200, 30, 30] });
    cdp.handlers['Page.captureScreenshot'] = async () => ({
      data: (await solidPng(321, 199, [200, 30, 30])).toString('base64'),
    });
    const shot = await capturePage(lease, input());
    expect(await pixels(shot.image)).toEqual({ width: 320, height: 200, first: [200, 30, 30] });
  });

  it('captures a zoomed-out phone page whole, at the device scale, with the emulation on its session', async () => {
    const viewport = { name: 'phone', width: 100, height: 150, scale: 2, mobile: true };
    const { lease, cdp } = fakeLease({ viewport, colour: [0, 160, 90] });
    // Laid out 200 px wide and shown at half size, as a page without a meta viewport.
    cdp.handlers['Page.getLayoutMetrics'] = async () => ({
      cssVisualViewport: { pageX: 0, pageY: 0, clientWidth: 200, clientHeight: 300, scale: 0.5 },
    });
    let emulated: Record<string, unknown> = {};
    cdp.handlers['Emulation.setDeviceMetricsOverride'] = async (params) => {
      emulated = params;
      return {};
    };
    const shot = await capturePage(lease, input());
    expect(await pixels(shot.image)).toEqual({ width: 200, height: 300, first: [0, 160, 90] });
    expect(cdp.calls.indexOf('Emulation.setDeviceMetricsOverride')).toBeLessThan(
      cdp.calls.indexOf('Page.captureScreenshot'),
    );
    expect(emulated).toMatchObject({ mobile: true, width: 100, height: 150, deviceScaleFactor: 2 });
  });
});

describe('capturePage: a page that moves after load', () => {
  it('follows a document committed during the font wait and captures it, with its own status', async () => {
    const { lease, page, cdp } = fakeLease();
    let moved = false;
    cdp.handlers['Runtime.evaluate'] = async () => {
      // location=… in an onload handler: the next document arrives while fonts are awaited.
      if (!moved) page.commit(`${URL_}next`, 201);
      moved = true;
      return {};
    };
    const shot = await capturePage(lease, input());
    expect(shot.finalUrl).toBe(`${URL_}next`);
    expect(shot.targetStatus).toBe(201);
    expect(page.loadStates).toEqual(['load']);
    expect(cdp.calls.filter((c) => c === 'Runtime.evaluate')).toHaveLength(2);
  });

  it('lets a capture that failed as its document went give way to the new document', async () => {
    const { lease, page, cdp } = fakeLease();
    const capture = cdp.handlers['Page.captureScreenshot']!;
    let tries = 0;
    cdp.handlers['Page.captureScreenshot'] = async (params) => {
      tries++;
      if (tries > 1) return capture(params);
      page.commit(`${URL_}after`);
      throw new Error('Protocol error (Page.captureScreenshot): Not attached to an active page');
    };
    const shot = await capturePage(lease, input());
    expect(tries).toBe(2);
    expect(shot.finalUrl).toBe(`${URL_}after`);
    expect(page.loadStates).toEqual(['load']);
    expect((await pixels(shot.image)).width).toBe(320);
  });

  it('answers 504 for a page that keeps replacing itself, naming how many documents', async () => {
    const { lease, page, cdp } = fakeLease();
    let n = 0;
    cdp.handlers['Runtime.evaluate'] = async () => {
      page.commit(`${URL_}${++n}`);
      return {};
    };
    expect(await failure(capturePage(lease, input()))).toEqual({
      status: 504,
      message: 'The page kept navigating after "load" (4 new documents) and could not be captured',
    });
    expect(cdp.calls).not.toContain('Page.captureScreenshot');
  });
});

describe('capturePage: a page that stalls', () => {
  it('captures a load cut at the download budget as it stands, after a short grace', async () => {
    const { lease, page, egress } = fakeLease();
    page.onGoto = (url) => {
      page.commit(url);
      // The proxy cut the page's connections: Chromium's load event never comes.
      setTimeout(() => egress.spendBudget(), 20);
      return new Promise(() => {});
    };
    const started = Date.now();
    const shot = await capturePage(lease, input());
    expect(Date.now() - started).toBeGreaterThanOrEqual(480);
    expect(shot.targetStatus).toBe(200);
    expect((await pixels(shot.image)).width).toBe(320);
  });

  it('answers 504 naming waitUntil and the time-out when the page never gets there', async () => {
    const { lease, page } = fakeLease();
    page.onGoto = (_url, { timeout }) =>
      new Promise((_resolve, reject) => {
        setTimeout(
          () => reject(new errors.TimeoutError(`page.goto: Timeout ${timeout}ms exceeded.`)),
          timeout,
        );
      });
    expect(await failure(capturePage(lease, input(300)))).toEqual({
      status: 504,
      message: 'The page did not reach "load" within 0.3 s',
    });
  });

  it('answers 504 when a script keeps the page too busy for any frame to be captured', async () => {
    const { lease, cdp } = fakeLease();
    cdp.handlers['Page.captureScreenshot'] = () => new Promise(() => {});
    expect(await failure(capturePage(lease, input(400)))).toEqual({
      status: 504,
      message:
        'The page reached "load" but could not be captured within 0.4 s (a script kept it busy, or loading used up the time)',
    });
  });
});

describe('capturePage: a page that errors', () => {
  it('answers a host that does not resolve like a refused address (400, generic)', async () => {
    const { lease, page } = fakeLease();
    page.onGoto = async (url) => {
      page.fail(url, 'net::ERR_NAME_NOT_RESOLVED');
      throw new Error(`page.goto: net::ERR_NAME_NOT_RESOLVED at ${url}`);
    };
    expect(await failure(capturePage(lease, input()))).toEqual({
      status: 400,
      message: 'url points to an address that is not allowed',
    });
  });

  it('answers 400 without the reason for an address the egress proxy refused', async () => {
    const refused = { kind: 'refused', reason: 'address', detail: '10.0.0.1 is private' } as const;
    const { lease, page } = fakeLease({ decisions: { 'site.test': refused } });
    page.onGoto = async (url) => {
      page.fail(url, 'net::ERR_TUNNEL_CONNECTION_FAILED');
      throw new Error(`page.goto: net::ERR_TUNNEL_CONNECTION_FAILED at ${url}`);
    };
    expect(await failure(capturePage(lease, input()))).toEqual({
      status: 400,
      message: 'url points to an address that is not allowed',
    });
  });

  it('captures an error status with an empty body as Chromium shows it, with that status', async () => {
    const { lease, page, cdp } = fakeLease({ colour: [255, 255, 255] });
    page.onGoto = async (url) => {
      page.commit(url, 404);
      page.current = 'chrome-error://chromewebdata/';
      throw new Error(`page.goto: net::ERR_HTTP_RESPONSE_CODE_FAILURE at ${url}`);
    };
    const shot = await capturePage(lease, input());
    expect(shot.targetStatus).toBe(404);
    expect(page.loadStates).toEqual(['load']);
    expect(cdp.calls).toContain('Page.captureScreenshot');
  });

  it("reports Chromium's own refusal to capture as a browser fault, for the caller to retry (never a 500)", async () => {
    const { lease, cdp } = fakeLease();
    cdp.handlers['Page.captureScreenshot'] = async () => {
      throw new Error(
        'cDPSession.send: Protocol error (Page.captureScreenshot): Unable to capture screenshot',
      );
    };
    const err = await capturePage(lease, input()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BrowserCrashError);
    expect((err as BrowserCrashError).scope).toBe('protocol');
    // A refusal with a cause of the caller's stays what it was: not retried as a fault.
    const bad = fakeLease();
    bad.cdp.handlers['Page.captureScreenshot'] = async () => {
      throw new Error(
        'cDPSession.send: Protocol error (Page.captureScreenshot): Cannot take screenshot with 0 width.',
      );
    };
    const other = await capturePage(bad.lease, input()).catch((e: unknown) => e);
    expect(other).not.toBeInstanceOf(BrowserCrashError);
  });

  it('reports a renderer that crashed mid-load as a page crash, for the caller to retry', async () => {
    const { lease, page, state } = fakeLease();
    page.onGoto = async () => {
      state.pageCrashed = true;
      throw new Error('page.goto: Page crashed');
    };
    const err = await capturePage(lease, input()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BrowserCrashError);
    expect((err as BrowserCrashError).scope).toBe('page');
    expect(page.listenerCount('response')).toBe(0);
  });
});
