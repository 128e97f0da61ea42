import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { Lease } from '../../../src/render/screenshot/engine/browser/lease.js';
import {
  attachRequestGate,
  type HeaderRule,
} from '../../../src/render/screenshot/engine/page/request-gate.js';

/** The capture's CDP session: Fetch events the test plays, and every command sent, in order. */
class GateCdp extends EventEmitter {
  readonly sent: Array<{ method: string; params: Record<string, unknown> }> = [];
  send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    this.sent.push({ method, params });
    if (method === 'Page.getFrameTree') return Promise.resolve({ frameTree: { frame: { id: 'MAIN' } } });
    return Promise.resolve({});
  }
  /** Chromium pausing a request at its Request stage. */
  pause(requestId: string, url: string, resourceType = 'Document', frameId = 'MAIN') {
    this.emit('Fetch.requestPaused', {
      requestId,
      request: { url, headers: { accept: '*/*' } },
      frameId,
      resourceType,
    });
  }
  /** What the gate told Chromium about `requestId`. */
  verdict(requestId: string) {
    return this.sent.find((s) => s.params.requestId === requestId);
  }
}

/** A lease over `cdp` whose page and egress session record, in order, what was done to them. */
function leaseOver(cdp: GateCdp) {
  const done: string[] = [];
  const main = { name: 'main frame' };
  const page = Object.assign(new EventEmitter(), {
    closed: 0,
    close: async () => {
      page.closed++;
      done.push('page closed');
    },
    mainFrame: () => main,
    /** Chromium announcing a navigation as it starts (Playwright's `request` event). */
    navigates(url: string, frame: object = main) {
      page.emit('request', { isNavigationRequest: () => true, frame: () => frame, url: () => url });
    },
  });
  const egress = { seal: () => void done.push('egress sealed') };
  return { lease: { cdp, page, egress } as unknown as Lease, page, done };
}
const SITE = 'https://blog.example.com';

describe('request gate (a site page read in the browser, credentials)', () => {
  it('stops main-frame documents off the site, redirect hops included; lets the rest go on', async () => {
    const cdp = new GateCdp();
    const { lease, page, done } = leaseOver(cdp);
    const gate = await attachRequestGate(lease, { stayOn: [SITE, 'https://www.example.com'] });
    // Only documents are paused when no header is added.
    expect(cdp.sent.find((s) => s.method === 'Fetch.enable')?.params).toEqual({
      patterns: [{ urlPattern: '*', requestStage: 'Request', resourceType: 'Document' }],
    });
    cdp.pause('1', `${SITE}/post`);
    cdp.pause('2', 'https://www.example.com/post');
    cdp.pause('3', 'https://evil.example.net/frame', 'Document', 'CHILD');
    expect(gate.left).toBeUndefined();
    expect(page.closed).toBe(0);
    cdp.pause('4', 'https://evil.example.net/landing');
    cdp.pause('5', 'http://blog.example.com/post');
    expect(cdp.verdict('1')).toEqual({ method: 'Fetch.continueRequest', params: { requestId: '1' } });
    expect(cdp.verdict('2')?.method).toBe('Fetch.continueRequest');
    // An iframe may show another site; only the page itself must stay.
    expect(cdp.verdict('3')?.method).toBe('Fetch.continueRequest');
    expect(cdp.verdict('4')).toEqual({
      method: 'Fetch.failRequest',
      params: { requestId: '4', errorReason: 'Aborted' },
    });
    // Another scheme is another origin.
    expect(cdp.verdict('5')?.method).toBe('Fetch.failRequest');
    expect(gate.left).toBe('https://evil.example.net/landing');
    // The capture is refused from the first one on: its page is closed, once, after its proxy
    // session is sealed (closing lets a request held paused go on).
    expect(page.closed).toBe(1);
    expect(done).toEqual(['egress sealed', 'page closed']);
    // Once the capture is over the gate stays on, and no document loads, on the site or off it:
    // taking the interception off would let one held paused go on.
    gate.detach();
    expect(cdp.listenerCount('Fetch.requestPaused')).toBe(1);
    expect(cdp.sent.some((s) => s.method === 'Fetch.disable')).toBe(false);
    cdp.pause('6', `${SITE}/late`);
    expect(cdp.verdict('6')?.method).toBe('Fetch.failRequest');
    expect(gate.left).toBe('https://evil.example.net/landing');
    expect(page.closed).toBe(1);
  });

  it('ends the capture at the start of a move off the site, before anything is paused', async () => {
    const cdp = new GateCdp();
    const { lease, page, done } = leaseOver(cdp);
    const gate = await attachRequestGate(lease, { stayOn: [SITE] });
    page.navigates(`${SITE}/next`);
    page.navigates('https://evil.example.net/', { name: 'an iframe' });
    expect(gate.left).toBeUndefined();
    // A page moving every few ms has each move replaced by the next before any is paused.
    page.navigates('https://evil.example.net/landing?1');
    page.navigates('https://evil.example.net/landing?2');
    expect(gate.left).toBe('https://evil.example.net/landing?1');
    expect(done).toEqual(['egress sealed', 'page closed']);
    expect(cdp.sent.filter((s) => s.params.requestId !== undefined)).toEqual([]);
  });

  it('takes header rules alone off when the capture is over', async () => {
    const cdp = new GateCdp();
    const { lease, done } = leaseOver(cdp);
    const gate = await attachRequestGate(lease, { headers: () => undefined });
    cdp.pause('1', 'https://anywhere.example.net/', 'Document');
    expect(cdp.verdict('1')?.method).toBe('Fetch.continueRequest');
    gate.detach();
    expect(cdp.listenerCount('Fetch.requestPaused')).toBe(0);
    expect(cdp.sent.at(-1)?.method).toBe('Fetch.disable');
    expect(done).toEqual([]);
  });

  it("adds the credentials' headers and keeps the site, on one interception", async () => {
    const cdp = new GateCdp();
    const headers: HeaderRule = (url, current) =>
      url.startsWith(SITE)
        ? [
            ...Object.entries(current).map(([name, value]) => ({ name, value })),
            { name: 'x-token', value: 't' },
          ]
        : undefined;
    const gate = await attachRequestGate(leaseOver(cdp).lease, { headers, stayOn: [SITE] });
    expect(cdp.sent.filter((s) => s.method === 'Fetch.enable')).toEqual([
      { method: 'Fetch.enable', params: { patterns: [{ urlPattern: '*', requestStage: 'Request' }] } },
    ]);
    cdp.pause('1', `${SITE}/app.css`, 'Stylesheet');
    cdp.pause('2', 'https://cdn.example.org/app.js', 'Script');
    cdp.pause('3', 'https://cdn.example.org/', 'Document');
    expect(cdp.verdict('1')?.params).toEqual({
      requestId: '1',
      headers: [
        { name: 'accept', value: '*/*' },
        { name: 'x-token', value: 't' },
      ],
    });
    expect(cdp.verdict('2')?.params).toEqual({ requestId: '2' });
    expect(cdp.verdict('3')?.method).toBe('Fetch.failRequest');
    // Each paused request was answered once.
    expect(cdp.sent.filter((s) => s.params.requestId !== undefined)).toHaveLength(3);
    gate.detach();
  });

  it('intercepts nothing when there is nothing to judge', async () => {
    const cdp = new GateCdp();
    const gate = await attachRequestGate(leaseOver(cdp).lease, {});
    expect(cdp.sent).toEqual([]);
    expect(cdp.listenerCount('Fetch.requestPaused')).toBe(0);
    gate.detach();
  });
});
