import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { TestApp } from './app.js';
import { pdfPage } from './pdf-pages.js';

/**
 * Pages one account sends to hurt the others (issue 26 §2), generated here, on 127.0.0.1:0:
 *
 * - `/flood?in=main|iframe|worker`: logs 200 strings of 100 KB per macrotask, for ever, from the
 *   page itself, from an about:blank iframe it makes (a fresh `console` of its own), or from a
 *   dedicated worker. `/flood-worker.js` is that worker.
 * - `/victim`: a flat green page: the other account's plain capture.
 * - `/tall?h=N`: a 1200 px wide page N px tall of coloured noise (costly to encode), green in its
 *   first 630 px' top-left corner so a cut capture can be told apart.
 * - `/pdf/pages?n=10000` and the other PDF fixtures of pdf-pages.ts: a page that prints 10,000 pages.
 * - `/spin?workers=N`: keeps its main thread busy (40 ms tasks back to back, so it still answers
 *   the browser) and starts N dedicated workers that spin for ever (`/spin-worker.js`).
 */
export interface HostileServer {
  url: string;
  hostPort: string;
  close(): Promise<void>;
}

const LOG_PER_TASK = 200;
const LOG_BYTES = 100_000;

const FLOOD_LOOP = `
const big = 'x'.repeat(${LOG_BYTES});
function flood(c) {
  const tick = () => { for (let i = 0; i < ${LOG_PER_TASK}; i++) c.log(big + i); setTimeout(tick, 0); };
  tick();
}`;

const page = (body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0}</style></head><body>${body}</body></html>`;

function floodPage(where: string): string {
  const start =
    where === 'iframe'
      ? `const f = document.createElement('iframe'); document.body.append(f); flood(f.contentWindow.console);`
      : where === 'worker'
        ? `new Worker('/flood-worker.js');`
        : 'flood(console);';
  return page(`<p>flooding</p><script>${FLOOD_LOOP}\n${start}</script>`);
}

function spinPage(workers: number): string {
  return page(`<p>spinning</p><script>
for (let i = 0; i < ${workers}; i++) new Worker('/spin-worker.js');
const spin = () => { const end = performance.now() + 40; while (performance.now() < end); setTimeout(spin, 0); };
spin();
</script>`);
}

function tallPage(height: number): string {
  // One 1200×512 tile of noise, repeated down the page: costly to encode, cheap to draw.
  return page(`<canvas id="c" width="1200" height="${height}" style="display:block"></canvas><script>
const c = document.getElementById('c').getContext('2d');
const tile = c.createImageData(1200, 512);
let s = 12345;
for (let i = 0; i < tile.data.length; i += 4) {
  s = (s * 1103515245 + 12345) >>> 0;
  tile.data[i] = s & 255; tile.data[i + 1] = (s >> 8) & 255; tile.data[i + 2] = (s >> 16) & 255; tile.data[i + 3] = 255;
}
for (let y = 0; y < ${height}; y += 512) c.putImageData(tile, 0, y);
c.fillStyle = '#00ff00'; c.fillRect(0, 0, 100, 100);
</script>`);
}

/** Starts the hostile page server. */
export async function startHostileServer(): Promise<HostileServer> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://fixture');
    const send = (body: string, type = 'text/html; charset=utf-8') => {
      res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    if (u.pathname === '/flood') return send(floodPage(u.searchParams.get('in') ?? 'main'));
    if (u.pathname === '/flood-worker.js') return send(`${FLOOD_LOOP}\nflood(console);`, 'text/javascript');
    if (u.pathname === '/victim') return send(page('<div style="height:100vh;background:#00ff00"></div>'));
    // Once loaded, sets location every few milliseconds to an address that never answers: each
    // move is replaced by the next, so none ends and the page never stops moving.
    if (u.pathname === '/moves') {
      return send(
        page(
          `<p>moving</p><script>addEventListener('load', () => setInterval(() => { location.href = '/hang?' + Math.random(); }, 0));</script>`,
        ),
      );
    }
    if (u.pathname === '/hang') return;
    // Once loaded, changes its own address within the document 50 times a task, by
    // history.pushState or by location.hash: no request, but each change crosses to the browser.
    if (u.pathname === '/history') {
      const change =
        u.searchParams.get('how') === 'hash'
          ? `location.hash = String(Math.random())`
          : `history.pushState(null, '', '?' + Math.random())`;
      return send(
        page(
          `<p>changing</p><script>addEventListener('load', () => setInterval(() => { for (let i = 0; i < 50; i++) ${change}; }, 0));</script>`,
        ),
      );
    }
    if (u.pathname === '/spin') return send(spinPage(Number(u.searchParams.get('workers') ?? 0)));
    if (u.pathname === '/spin-worker.js') return send('for (;;) {}', 'text/javascript');
    if (u.pathname === '/tall') return send(tallPage(Number(u.searchParams.get('h') ?? 11_109)));
    if (pdfPage(u, (body) => send(body))) return;
    res.writeHead(404).end();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A GET /render/url as the holder of `key`, through the app without a socket. */
export function shotAs(t: TestApp, key: string, query: Record<string, string>) {
  return t.inject({
    method: 'GET',
    url: `/render/url?${new URLSearchParams(query)}`,
    headers: { 'x-api-key': key },
  });
}

/** A new account on `plan` (named `name`, with a unique email) and its first key. */
export async function keyOnPlan(t: TestApp, plan: string, name: string): Promise<string> {
  const { accounts } = t.modules.accounts;
  const account = await accounts.createAccount({ name, email: `${name}-${Date.now()}@example.com`, plan });
  return (await accounts.createKey({ accountId: account.id, name, environment: 'test' })).key;
}

/** A POST /render/url with a JSON body as the holder of `key` (credentials may only go there). */
export function postAs(t: TestApp, key: string, body: Record<string, unknown>) {
  return t.inject({
    method: 'POST',
    url: '/render/url',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}
