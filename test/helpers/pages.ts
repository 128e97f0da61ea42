import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';
import { optionPage } from './option-pages.js';
import { pdfPage } from './pdf-pages.js';
import { readerPage } from './reader-pages.js';

/**
 * HTML fixture pages for screenshot tests, on 127.0.0.1:0. Colours are flat so tests can assert
 * pixels: `/split` is red on the left half and blue on the right half of any viewport.
 *
 * Routes: /split, /split-mobile (same, with a device-width meta viewport), /wide (a 960 px
 * desktop layout without a meta viewport: red then blue halves), /late (turns green
 * only after a request that finishes 1.5 s after load: visible with networkidle, not load),
 * /never (an image that never finishes: load never fires), /spin (a script that never returns),
 * /spin-after-load (the same, a task after the load event), /moves?after=N (green, then N ms
 * after load sent to /split by script), /moves-meta (the same by a meta refresh), /reloads
 * (reloads itself 20 ms after every load),
 * /hog (allocates memory until the tab crashes), /hog-buffers (2 GB of typed arrays, outside the JS heap, held 2 s), /hog-blobs (3 GB of Blobs, kept by the browser process), /hold?ms=N (answers after N ms),
 * /status/<code> (an HTML page with that status), /empty/<code> (that status, no body),
 * /download (an attachment), /dialog (alert, confirm, prompt on load), /popup (window.open on
 * load), /remember (blue on a first visit, red when cookies or storage survived), /tall (100,000 px high), /noise (a few MB of PNG: seeded noise, a red 20 px square top left), /font (text in a web font served after 500 ms, font-display:
 * block), /attack/<vector>?target=<url> (a page that aims one request at target),
 * /redirect?to=<url> (302). The screenshot options' pages are under /opt/ (option-pages.ts), format=pdf's under /pdf/ (pdf-pages.ts), locale, timezone, media and css under /reader/ (reader-pages.ts).
 */
export interface PageServer {
  url: string;
  port: number;
  hostPort: string;
  /** Requests seen per path (query excluded). */
  hits(path: string): number;
  /** Resolves when the next request for `path` arrives. */
  nextRequest(path: string): Promise<void>;
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);
const FONT = readFileSync(require.resolve('@fontsource/inter/files/inter-latin-900-normal.woff2'));

const html = (body: string, head = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>fixture</title>${head}<style>html,body{margin:0;height:100%}</style></head><body>${body}</body></html>`;

/** A desktop page (no meta viewport): 960 px wide, red then blue halves, which a phone zooms out to fit. */
const WIDE = `<div style="display:flex;width:960px;height:2000px"><div style="flex:1;background:#ff0000"></div><div style="flex:1;background:#0000ff"></div></div>`;

/** A fluid page (no fixed width) without a meta viewport: phones lay it out 980 px wide. */
const FLUID = `<div style="display:flex;height:100vh"><div style="flex:1;background:#ff0000"></div><div style="flex:1;background:#0000ff"></div></div>`;

const SPLIT = `<div style="position:fixed;inset:0 50% 0 0;background:#ff0000"></div><div style="position:fixed;inset:0 0 0 50%;background:#0000ff"></div>`;

/**
 * WebRTC aimed at a UDP port on loopback: a STUN and a TURN server there, so ICE gathering sends
 * datagrams to it unless the browser keeps WebRTC off UDP outside its proxy. The page lists the
 * candidates it gathered in its title, for a test to read.
 */
export function webrtcPage(port: number): string {
  return html(
    '<p>rtc</p>',
    `<script>
const pc = new RTCPeerConnection({ iceServers: [
  { urls: 'stun:127.0.0.1:${port}' },
  { urls: 'turn:127.0.0.1:${port}?transport=udp', username: 'u', credential: 'p' },
] });
pc.createDataChannel('x');
pc.onicecandidate = (e) => { if (e.candidate) document.title += ' ' + e.candidate.candidate; };
pc.createOffer().then((o) => pc.setLocalDescription(o));
</script>`,
  );
}

/** The attack vectors of the egress suite: each page aims exactly one kind of request at `target`. */
export const ATTACKS: Record<string, (target: string) => string> = {
  img: (t) => html(`<img src="${t}/img.png" width="10" height="10">`),
  iframe: (t) => html(`<iframe src="${t}/frame"></iframe>`),
  fetch: (t) => html(`<script>fetch(${JSON.stringify(`${t}/fetch`)}).catch(() => {})</script>`),
  websocket: (t) =>
    html(
      `<script>try { new WebSocket(${JSON.stringify(`${t.replace(/^http/, 'ws')}/ws`)}) } catch (e) {}</script>`,
    ),
  'meta-refresh': (t) => html('<p>moving</p>', `<meta http-equiv="refresh" content="0;url=${t}/meta">`),
  location: (t) => html(`<script>location.href = ${JSON.stringify(`${t}/location`)}</script>`),
  form: (t) =>
    html(
      `<form method="post" action="${t}/form"><input name="a" value="1"></form><script>document.forms[0].submit()</script>`,
    ),
};

/** Starts the page server. */
export async function startPageServer(): Promise<PageServer> {
  const counts = new Map<string, number>();
  const waiters = new Map<string, Array<() => void>>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://fixture');
    const path = u.pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    for (const w of waiters.get(path)?.splice(0) ?? []) w();
    const send = (body: string | Buffer, type = 'text/html; charset=utf-8', status = 200) => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    const [, first, second] = path.split('/');

    if (path === '/split') return send(html(SPLIT));
    if (path === '/wide') return send(html(WIDE));
    if (path === '/fluid') return send(html(FLUID));
    if (path === '/webrtc') return send(webrtcPage(Number(u.searchParams.get('port'))));
    if (path === '/split-mobile') {
      return send(html(SPLIT, '<meta name="viewport" content="width=device-width, initial-scale=1">'));
    }
    if (path === '/late') {
      return send(
        html(
          '<p>waiting</p>',
          `<script>addEventListener('load', () => setTimeout(() => fetch('/late-data').then(() => { document.body.style.background = '#00ff00' }), 0))</script>`,
        ),
      );
    }
    if (path === '/late-data') return later(1500, () => send('{}', 'application/json'));
    if (path === '/never') return send(html('<img src="/never-image">'));
    if (path === '/never-image') {
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.write(Buffer.from([0x89, 0x50]));
    }
    if (path === '/hold') {
      return later(Number(u.searchParams.get('ms') ?? 1000), () => send(html(SPLIT)));
    }
    if (first === 'status') return send(html(`<h1>Status ${second}</h1>`), undefined, Number(second));
    if (first === 'empty') {
      res.writeHead(Number(second), { 'content-length': '0' });
      return res.end();
    }
    if (path === '/to-download') {
      // Sends itself to a download while still parsing: the download ends that navigation and
      // the page's own load with it.
      return send(html(`${SPLIT}<script>location.href = '/download'</script>`));
    }
    if (path === '/download') {
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-disposition': 'attachment; filename="report.bin"',
      });
      return res.end('binary');
    }
    if (path === '/dialog') {
      return send(
        html(
          SPLIT,
          `<script>addEventListener('load', () => { alert('hi'); confirm('sure?'); prompt('name?'); })</script>`,
        ),
      );
    }
    if (path === '/popup') {
      return send(
        html(SPLIT, `<script>addEventListener('load', () => window.open('/split?popup=1'))</script>`),
      );
    }
    if (path === '/remember') {
      // Blue for a first visit; red if any cookie or storage from an earlier visit is still there.
      return send(
        html(
          '',
          `<script>const seen = document.cookie.includes('seen=1') || localStorage.getItem('seen') === '1';
document.documentElement.style.background = seen ? '#ff0000' : '#0000ff';
document.cookie = 'seen=1; max-age=3600'; localStorage.setItem('seen', '1');</script>`,
        ),
      );
    }
    if (path === '/moves') {
      // Green, then N ms after load (default 0) off to /split: location=… in an onload handler.
      const after = Number(u.searchParams.get('after') ?? 0);
      return send(
        html(
          '<p>moving</p>',
          `<style>body{background:#00ff00}</style><script>addEventListener('load', () => setTimeout(() => { location.href = '/split?moved' }, ${after}))</script>`,
        ),
      );
    }
    if (path === '/moves-meta') {
      return send(
        html(
          '<p>moving</p>',
          '<style>body{background:#00ff00}</style><meta http-equiv="refresh" content="0;url=/split?meta">',
        ),
      );
    }
    if (path === '/reloads') {
      // Reloads itself 20 ms after every load, for ever.
      return send(
        html(
          '<p>again</p>',
          `<script>addEventListener('load', () => setTimeout(() => location.reload(), 20))</script>`,
        ),
      );
    }
    if (path === '/spin-after-load') {
      // Reaches load, then (a task later) blocks its main thread for good.
      return send(
        html(
          '<p>spinning</p>',
          `<script>addEventListener('load', () => setTimeout(() => { for (;;) {} }, 0))</script>`,
        ),
      );
    }
    if (path === '/spin') {
      // Blocks the renderer's main thread for good: load never fires, evaluate never returns.
      return send(html('<p>spinning</p><script>for (;;) {}</script>'));
    }
    if (path === '/shared-worker') {
      return send(
        html(
          `<p>shared</p><script>if (window.SharedWorker) { const w = new SharedWorker('/shared-worker.js'); w.port.start(); } else { document.body.style.background = '#00ff00'; }</script>`,
        ),
      );
    }
    if (path === '/shared-worker.js') {
      return send('onconnect = (e) => e.ports[0].postMessage("hi");', 'text/javascript');
    }
    if (path === '/hog-buffers') {
      // 8 × 256 MB typed arrays, filled: memory outside the JavaScript heap and its cap. Held
      // for 2 s before the page may load, so a capture cannot end before the guard has looked
      // (a fast capture once did, and answered 200, in a CI run): without the guard the page is
      // captured showing "held 2048 MB" after those 2 s.
      return send(
        html(
          '<p>hog</p>',
          `<script>const held = []; for (let i = 0; i < 8; i++) { const a = new Uint8Array(256 * 1024 * 1024); a.fill(1); held.push(a); } document.title = 'held ' + held.length * 256 + ' MB'; const until = performance.now() + 2000; while (performance.now() < until);</script>`,
        ),
      );
    }
    if (path === '/hog-blobs') {
      // 30 × 100 MB Blobs, one every few ms: their data moves into the BROWSER process (the tab
      // stays small); an image that answers after 20 s keeps the page loading meanwhile.
      return send(
        html(
          '<p>blobs</p><img src="/hold?ms=20000" width="1" height="1">',
          `<script>window.keep = []; (async () => { for (let i = 0; i < 30; i++) { const a = new Uint8Array(100 * 1024 * 1024); a.fill(i); keep.push(new Blob([a])); await new Promise((r) => setTimeout(r, 10)); } document.title = 'held ' + keep.length * 100 + ' MB'; })();</script>`,
        ),
      );
    }
    if (path === '/hog') {
      // Allocates until the tab's JS heap cap kills the renderer.
      return send(
        html('<script>const a = []; for (;;) a.push(new Array(1e6).fill(Math.random()));</script>'),
      );
    }
    if (path === '/heavy') {
      // The split page plus an image far larger than a small download budget.
      return send(html(`${SPLIT}<img src="/huge-image" width="10" height="10">`));
    }
    if (path === '/huge-image' || path === '/huge-doc') {
      // 4 MiB declared and streamed in 64 KiB chunks (a document: an HTML comment that never ends).
      const total = 4 * 1024 * 1024;
      const type = path === '/huge-doc' ? 'text/html' : 'image/png';
      res.writeHead(200, { 'content-type': type, 'content-length': total });
      res.on('error', () => {});
      const head = path === '/huge-doc' ? Buffer.from('<!doctype html><p>big</p><!--') : Buffer.alloc(0);
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let sent = 0;
      const pump = (): void => {
        while (sent < total) {
          const part =
            sent === 0 && head.length > 0 ? Buffer.concat([head, chunk.subarray(head.length)]) : chunk;
          sent += part.length;
          if (!res.write(part)) return void res.once('drain', pump);
        }
        res.end();
      };
      return pump();
    }
    if (path === '/tall') {
      return send(
        html('<div style="height:100000px;background:linear-gradient(#ff0000 0 50%,#0000ff 50%)"></div>'),
      );
    }
    if (path === '/noise') {
      // Pixels a PNG cannot compress (a seeded generator: the same every time), with a red
      // 20 px square at the top left: a screenshot of a few MB from a small page.
      const script =
        "const c=document.querySelector('canvas');c.width=innerWidth;c.height=innerHeight;const x=c.getContext('2d');const d=x.createImageData(c.width,c.height);let s=42;for(let i=0;i<d.data.length;i++){s=(Math.imul(s,1103515245)+12345)>>>0;d.data[i]=i%4===3?255:s>>>24;}x.putImageData(d,0,0);x.fillStyle='#ff0000';x.fillRect(0,0,20,20);";
      return send(
        html(
          '<canvas style="display:block"></canvas>',
          `<style>body{margin:0}</style><script>addEventListener('DOMContentLoaded',()=>{${script}})</script>`,
        ),
      );
    }
    if (path === '/font') {
      const face = `@font-face{font-family:Slow;src:url(/slow-font.woff2) format("woff2");font-display:block}`;
      return send(
        html(
          '<p style="font:900 400px/1 Slow;margin:0;color:#000">HH</p>',
          `<style>${face} body{background:#fff}</style>`,
        ),
      );
    }
    if (path === '/slow-font.woff2') return later(500, () => send(FONT, 'font/woff2'));
    if (first === 'attack' && second && ATTACKS[second]) {
      return send(ATTACKS[second]!(u.searchParams.get('target') ?? ''));
    }
    if (path === '/redirect') {
      res.writeHead(302, { location: u.searchParams.get('to') ?? '/' });
      return res.end();
    }
    if (optionPage(u, send)) return;
    if (pdfPage(u, send)) return;
    if (readerPage(u, req, res)) return;
    send('not found', 'text/plain', 404);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hostPort: `127.0.0.1:${port}`,
    hits: (path) => counts.get(path) ?? 0,
    nextRequest: (path) =>
      new Promise<void>((resolve) => {
        waiters.set(path, [...(waiters.get(path) ?? []), resolve]);
      }),
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
