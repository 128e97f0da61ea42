import { EventEmitter } from 'node:events';
import sharp from 'sharp';
import type { EgressDecision } from '../../../src/net/proxy.js';
import type { Lease } from '../../../src/render/screenshot/engine/browser/lease.js';
import type { Viewport } from '../../../src/render/screenshot/viewports.js';

/** A main-frame request and its answer, as the document tracker and capturePage read them. */
export interface FakeResponse {
  url(): string;
  status(): number;
  headers(): Record<string, string>;
  request(): FakeRequest;
}

interface FakeRequest {
  url(): string;
  frame(): object;
  isNavigationRequest(): boolean;
  failure(): { errorText: string } | null;
}

/** A solid PNG, as Chromium's capture would send it. */
export function solidPng(width: number, height: number, rgb: [number, number, number]): Promise<Buffer> {
  const [r, g, b] = rgb;
  return sharp({ create: { width, height, channels: 4, background: { r, g, b, alpha: 1 } } })
    .png()
    .toBuffer();
}

/**
 * The Playwright page capturePage drives, without a browser: `goto` and `waitForLoadState` do
 * what the test says, and `commit` plays a main-frame move to a new document (request, answer,
 * commit) in the order Chromium reports it.
 */
export class FakePage extends EventEmitter {
  readonly main = { name: 'main' };
  current = 'about:blank';
  closed = false;
  /** The states waited for after the first navigation (each late document). */
  readonly loadStates: string[] = [];
  onGoto: (url: string, opts: { waitUntil: string; timeout: number }) => Promise<FakeResponse | null> =
    async (url) => this.commit(url);
  onLoadState: () => Promise<void> = async () => {};

  mainFrame() {
    return this.main;
  }

  url() {
    return this.current;
  }

  isClosed() {
    return this.closed;
  }

  goto(url: string, opts: { waitUntil: string; timeout: number }) {
    return this.onGoto(url, opts);
  }

  waitForLoadState(state: string) {
    this.loadStates.push(state);
    return this.onLoadState();
  }

  /** A move to a new document at `url` answered with `status`. */
  commit(url: string, status = 200, headers: Record<string, string> = {}): FakeResponse {
    const request = this.request(url);
    const response = { url: () => url, status: () => status, headers: () => headers, request: () => request };
    this.emit('request', request);
    this.emit('response', response);
    this.current = url;
    this.emit('framenavigated', this.main);
    return response;
  }

  /** A main-frame navigation request that fails with `errorText`. */
  fail(url: string, errorText: string): void {
    const request = { ...this.request(url), failure: () => ({ errorText }) };
    this.emit('request', request);
    this.emit('requestfailed', request);
  }

  private request(url: string): FakeRequest {
    return { url: () => url, frame: () => this.main, isNavigationRequest: () => true, failure: () => null };
  }
}

type Handler = (params: Record<string, unknown>) => Promise<unknown>;

/** The page's CDP session: each method answers by its handler; `calls` keeps the order. */
export class FakeCdp {
  readonly calls: string[] = [];
  readonly handlers: Record<string, Handler>;

  constructor(viewport: Viewport, colour: [number, number, number]) {
    this.handlers = {
      'Runtime.evaluate': async () => ({ result: { type: 'undefined' } }),
      'Emulation.setDeviceMetricsOverride': async () => ({}),
      'Page.getLayoutMetrics': async () => ({
        cssVisualViewport: {
          pageX: 0,
          pageY: 0,
          clientWidth: viewport.width,
          clientHeight: viewport.height,
          scale: 1,
        },
      }),
      // Chromium sends the clip at its scale: that is what sizes the PNG.
      'Page.captureScreenshot': async (params) => {
        const clip = params.clip as { width: number; height: number; scale: number };
        const png = await solidPng(
          Math.round(clip.width * clip.scale),
          Math.round(clip.height * clip.scale),
          colour,
        );
        return { data: png.toString('base64') };
      },
    };
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    this.calls.push(method);
    const handler = this.handlers[method];
    if (!handler) return Promise.reject(new Error(`unexpected CDP call ${method}`));
    return handler(params);
  }
}

/** The egress proxy session of a lease: decisions per host, and a budget the test can spend. */
export function fakeEgress(decisions: Record<string, EgressDecision> = {}) {
  let spend!: () => void;
  const budgetSpent = new Promise<void>((resolve) => {
    spend = resolve;
  });
  const egress = {
    token: 'egress-token',
    bytes: 0,
    overBudget: false,
    sealed: false,
    budgetSpent,
    redirectFor: () => undefined,
    decisionFor: (url: string | URL) =>
      decisions[new URL(url).host] ?? ({ kind: 'allowed', address: '127.0.0.1' } as const),
    seal() {
      egress.sealed = true;
    },
    spendBudget() {
      egress.overBudget = true;
      spend();
    },
  };
  return egress;
}

/** A lease over a fake page, CDP session and egress session; `pageCrashed` may be set by a test. */
export function fakeLease(
  opts: {
    viewport?: Viewport;
    colour?: [number, number, number];
    decisions?: Record<string, EgressDecision>;
  } = {},
) {
  const viewport = opts.viewport ?? { name: 'test', width: 320, height: 200, scale: 1, mobile: false };
  const page = new FakePage();
  const cdp = new FakeCdp(viewport, opts.colour ?? [10, 120, 200]);
  const egress = fakeEgress(opts.decisions);
  const state = {
    context: {},
    page,
    cdp,
    egress,
    viewport,
    browserLost: false,
    pageCrashed: false,
    gone: new Promise<never>(() => {}),
    timings: { launch: 0, context: 0 },
    release() {},
  };
  // Only the members capturePage reaches are here; the cast is the test's, not the code's.
  return { lease: state as unknown as Lease, state, page, cdp, egress };
}
