import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUrlGuard } from '../../src/net/url-guard.js';
import { createHeadReader, type HeadRead } from '../../src/sites/head/reader.js';

// The page head reader against a real server on 127.0.0.1: it stops at </head> without waiting
// for the rest, reads at most 1 MB, decodes by header, meta tag or bytes, records each redirect
// and checks each hop with the guard.

let server: Server;
let base: string;
const open = new Set<ServerResponse>();

const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/stalls-after-head': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.write(
      '<html lang="fr"><head><title>Bonjour</title><meta property="og:title" content="Salut"></head><body>',
    );
    open.add(res); // the body never ends
  },
  '/shift-jis': (_req, res) => {
    const head = Buffer.from('<html><head><meta charset="shift_jis"><title>', 'latin1');
    const title = Buffer.from([0x93, 0xfa, 0x96, 0x7b]); // 日本 in Shift_JIS
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(Buffer.concat([head, title, Buffer.from('</title></head>', 'latin1')]));
  },
  '/header-wins': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' });
    res.end(Buffer.from('<head><meta charset="utf-8"><title>caf\xe9</title></head>', 'latin1'));
  },
  '/undeclared-1252': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(Buffer.from('<head><title>\x93quoted\x94</title></head>', 'latin1'));
  },
  '/three-megabytes': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<html><head><style>${'a{}'.repeat(1024 * 1024)}</style><title>late</title></head>`);
  },
  '/tags': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><HTML LANG=en><HEAD>
<!-- <meta property="og:title" content="commented out"> -->
<script>document.write('</head><meta property="og:title" content="from a script">')</script>
<META CONTENT='Tom &amp; Jerry' PROPERTY=og:title>
<meta name="og:image" content="https://example.com/a.png">
<meta property="twitter:card" content="summary_large_image">
<meta name=description content="  spaced
  out  ">
<link rel="icon" href="/favicon.ico" sizes="32x32"><link rel="apple-touch-icon" href="/touch.png">
<link rel=canonical href="https://example.com/tags">
<meta name="theme-color" content="#ff0000"><meta name="robots" content="NOINDEX">
</HEAD><body><meta property="og:description" content="in the body"></body></HTML>`);
  },
  '/hop/1': (_req, res) => redirect(res, '/hop/2'),
  '/hop/2': (_req, res) => redirect(res, '/tags'),
  '/to-private': (_req, res) => redirect(res, 'http://10.0.0.1/'),
  '/loop': (_req, res) => redirect(res, '/loop'),
};

function redirect(res: ServerResponse, to: string): void {
  res.writeHead(302, { location: to, 'content-length': 0 });
  res.end();
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const route = routes[new URL(req.url ?? '/', 'http://x').pathname];
    if (route) return route(req, res);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of open) res.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const reader = () =>
  createHeadReader({
    guard: createUrlGuard({ allowPrivateHosts: [new URL(base).host] }),
    timeoutMs: 3000,
    maxBytes: 1024 * 1024,
    maxRedirects: 5,
  });
const ok = (r: HeadRead) => {
  if (!r.ok) throw new Error(`read failed: ${r.failure} ${r.detail}`);
  return r;
};

describe('page head reader', () => {
  it('stops at </head> instead of waiting for a body that never ends', async () => {
    const started = performance.now();
    const r = ok(await reader().read(`${base}/stalls-after-head`, 'TestBot/1'));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(r.meta).toMatchObject({ title: 'Bonjour', lang: 'fr', og: { 'og:title': 'Salut' } });
    expect(r.headTruncated).toBe(false);
  });

  it('decodes by the meta charset, the header before it, and windows-1252 for invalid UTF-8', async () => {
    const sjis = ok(await reader().read(`${base}/shift-jis`, 'TestBot/1'));
    expect([sjis.charset, sjis.meta.title]).toEqual(['shift_jis', '日本']);
    const header = ok(await reader().read(`${base}/header-wins`, 'TestBot/1'));
    expect([header.charset, header.meta.title]).toEqual(['windows-1252', 'café']);
    const guessed = ok(await reader().read(`${base}/undeclared-1252`, 'TestBot/1'));
    expect([guessed.charset, guessed.meta.title]).toEqual(['windows-1252', '“quoted”']);
  });

  it('reads at most 1 MB and says the head went on', async () => {
    const r = ok(await reader().read(`${base}/three-megabytes`, 'TestBot/1'));
    expect(r.bytes).toBe(1024 * 1024);
    expect(r.headTruncated).toBe(true);
    expect(r.meta.title).toBeNull();
  });

  it('reads tags as a parser does: case, quoting, entities, comments and scripts', async () => {
    const r = ok(await reader().read(`${base}/tags`, 'TestBot/1'));
    expect(r.meta).toEqual({
      title: null,
      description: 'spaced out',
      og: { 'og:title': 'Tom & Jerry', 'og:image': 'https://example.com/a.png' },
      twitter: { 'twitter:card': 'summary_large_image' },
      canonical: 'https://example.com/tags',
      icons: [
        { rel: 'icon', href: '/favicon.ico', sizes: '32x32', type: null },
        { rel: 'apple-touch-icon', href: '/touch.png', sizes: null, type: null },
      ],
      themeColor: '#ff0000',
      lang: 'en',
      robots: 'noindex',
    });
  });

  it('follows redirects by hand, recording each hop, and sends the given User-Agent', async () => {
    const r = ok(await reader().read(`${base}/hop/1`, 'TestBot/1'));
    expect(r.chain).toEqual([
      { url: `${base}/hop/1`, status: 302 },
      { url: `${base}/hop/2`, status: 302 },
      { url: `${base}/tags`, status: 200 },
    ]);
    expect(r.finalUrl).toBe(`${base}/tags`);
  });

  it('checks every hop with the guard and stops after 5 redirects', async () => {
    const refused = await reader().read(`${base}/to-private`, 'TestBot/1');
    expect(refused).toMatchObject({
      ok: false,
      failure: 'refused',
      chain: [{ url: `${base}/to-private`, status: 302 }],
    });
    const loop = await reader().read(`${base}/loop`, 'TestBot/1');
    expect(loop).toMatchObject({ ok: false, failure: 'too_many_redirects' });
    expect(loop.chain).toHaveLength(6);
  });
});
