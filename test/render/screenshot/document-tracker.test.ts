import { EventEmitter } from 'node:events';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { EGRESS_HEADER } from '../../../src/net/proxy-headers.js';
import { trackDocument } from '../../../src/render/screenshot/engine/page/document.js';

const TOKEN = 'tok';

/** A page's main frame and its navigation events, without a browser. */
function fakePage() {
  const emitter = new EventEmitter();
  const main = { name: 'main' };
  const child = { name: 'iframe' };
  const page = Object.assign(emitter, { mainFrame: () => main }) as unknown as Page;
  const request = (url: string, frame = main, nav = true) => ({
    url: () => url,
    frame: () => frame,
    isNavigationRequest: () => nav,
    failure: () => ({ errorText: 'net::ERR_ABORTED' }),
  });
  const response = (req: ReturnType<typeof request>, status = 200, headers: Record<string, string> = {}) => ({
    request: () => req,
    status: () => status,
    headers: () => headers,
  });
  return {
    page,
    emitter,
    /** A full move to a new document: request, answer, commit. */
    navigate(url: string, status = 200) {
      const req = request(url);
      const res = response(req, status);
      emitter.emit('request', req);
      emitter.emit('response', res);
      emitter.emit('framenavigated', main);
      return res;
    },
    request,
    response,
    main,
    child,
  };
}

const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(() => {
    done = true;
  });
  await new Promise((r) => setImmediate(r));
  return done;
};

describe('the document tracker', () => {
  it('counts a commit only after a main-frame navigation request, and keeps its answer', () => {
    const f = fakePage();
    const doc = trackDocument(f.page, TOKEN);
    const res = f.navigate('https://a.test/');
    expect(doc.commits).toBe(1);
    expect(doc.committedResponse).toBe(res);
    expect(doc.lastResponse).toBe(res);
    expect(doc.documentRequested).toBe(false);
    // pushState and #hash: a commit event without a request.
    f.emitter.emit('framenavigated', f.main);
    expect(doc.commits).toBe(1);
    // An iframe's navigation is not the page's.
    f.emitter.emit('request', f.request('https://b.test/', f.child));
    f.emitter.emit('framenavigated', f.child);
    expect(doc.commits).toBe(1);
    expect(doc.documentRequested).toBe(false);
  });

  it("keeps the proxy's refusals apart from the site's answers and forgets their request", async () => {
    const f = fakePage();
    const doc = trackDocument(f.page, TOKEN);
    const site = f.navigate('https://a.test/');
    const req = f.request('http://10.0.0.1/');
    f.emitter.emit('request', req);
    expect(doc.documentRequested).toBe(true);
    expect(await settled(doc.proxyAnswered)).toBe(false);
    f.emitter.emit('response', f.response(req, 204, { [EGRESS_HEADER]: TOKEN }));
    expect(await settled(doc.proxyAnswered)).toBe(true);
    expect(doc.lastResponse).toBe(site);
    expect(doc.documentRequested).toBe(false);
    // A pushState afterwards is no commit.
    f.emitter.emit('framenavigated', f.main);
    expect(doc.commits).toBe(1);
  });

  it('forgets a request the site answered 204 or 205, but keeps the answer as the last one', () => {
    const f = fakePage();
    const doc = trackDocument(f.page, TOKEN);
    const first = f.navigate('https://a.test/');
    const req = f.request('https://a.test/empty');
    f.emitter.emit('request', req);
    const empty = f.response(req, 205);
    f.emitter.emit('response', empty);
    expect(doc.documentRequested).toBe(false);
    expect(doc.lastResponse).toBe(empty);
    expect(doc.committedResponse).toBe(first);
  });

  it('marks a move ended without a document only after the first commit', async () => {
    const f = fakePage();
    const doc = trackDocument(f.page, TOKEN);
    const early = f.request('https://a.test/');
    f.emitter.emit('request', early);
    f.emitter.emit('requestfailed', early);
    expect(doc.lastFailed).toEqual({ url: 'https://a.test/', error: 'net::ERR_ABORTED' });
    expect(await settled(doc.moveEnded)).toBe(false);
    f.navigate('https://a.test/');
    const download = f.request('https://a.test/file.zip');
    f.emitter.emit('request', download);
    f.emitter.emit('requestfailed', download);
    expect(await settled(doc.moveEnded)).toBe(true);
    expect(doc.lastFailed?.url).toBe('https://a.test/file.zip');
    expect(doc.documentRequested).toBe(false);
  });

  it('resolves nextCommit at the next new document only', async () => {
    const f = fakePage();
    const doc = trackDocument(f.page, TOKEN);
    f.navigate('https://a.test/');
    const next = doc.nextCommit();
    f.emitter.emit('framenavigated', f.main);
    expect(await settled(next)).toBe(false);
    f.navigate('https://a.test/again');
    expect(await settled(next)).toBe(true);
    expect(doc.commits).toBe(2);
  });

  it('stops listening when detached', () => {
    const f = fakePage();
    const doc = trackDocument(f.page, TOKEN);
    doc.detach();
    f.navigate('https://a.test/');
    expect(doc.commits).toBe(0);
    expect(f.emitter.listenerCount('request')).toBe(0);
    expect(f.emitter.listenerCount('framenavigated')).toBe(0);
  });
});
