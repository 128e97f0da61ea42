import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';
import sharp from 'sharp';

/**
 * A realistic page for the screenshot benchmark, served on 127.0.0.1: a landing page with a web
 * font (Inter, woff2), six images (JPEG photos-like gradients and PNG logos), a stylesheet, and
 * a script that builds part of the page after DOMContentLoaded. Every variant of the query string
 * serves the same page, so distinct URLs give cache misses of identical work.
 *
 * Two more pages for the options benchmark: `/tall`, the same look 10,000 px tall (sections of
 * text and photos, every image eager so a plain full-page screenshot draws them too), and
 * `/photos`, a 1200×630 grid of four photo-like images (gradients with camera-like noise).
 */
export interface Site {
  url: string;
  hostPort: string;
  requests(): number;
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);

async function assets(): Promise<Record<string, { type: string; body: Buffer }>> {
  const font = (w: number) =>
    readFileSync(require.resolve(`@fontsource/inter/files/inter-latin-${w}-normal.woff2`));
  const photo = async (hue: number) => {
    const w = 600;
    const h = 400;
    const raw = Buffer.alloc(w * h * 3);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = (y * w + x) * 3;
        raw[i] = (hue + x / 3) % 256;
        raw[i + 1] = (y / 2 + ((x * y) % 37)) % 256;
        raw[i + 2] = (255 - hue + y / 3) % 256;
      }
    }
    return sharp(raw, { raw: { width: w, height: h, channels: 3 } })
      .jpeg({ quality: 80 })
      .toBuffer();
  };
  const logo = (c: string) =>
    sharp(
      Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="48"><rect rx="10" width="160" height="48" fill="${c}"/><circle cx="24" cy="24" r="12" fill="#fff"/></svg>`,
      ),
    )
      .png()
      .toBuffer();
  const out: Record<string, { type: string; body: Buffer }> = {
    '/inter-400.woff2': { type: 'font/woff2', body: font(400) },
    '/inter-800.woff2': { type: 'font/woff2', body: font(800) },
    '/style.css': { type: 'text/css', body: Buffer.from(CSS) },
    '/app.js': { type: 'text/javascript', body: Buffer.from(SCRIPT) },
  };
  for (let i = 0; i < 3; i++) out[`/photo-${i}.jpg`] = { type: 'image/jpeg', body: await photo(i * 80) };
  for (let i = 0; i < 4; i++) out[`/noisy-${i}.jpg`] = { type: 'image/jpeg', body: await noisyPhoto(i) };
  for (const [i, c] of ['#4f46e5', '#0ea5e9', '#f97316'].entries()) {
    out[`/logo-${i}.png`] = { type: 'image/png', body: await logo(c) };
  }
  return out;
}

/** A 600×315 photo-like JPEG: smooth gradients and per-pixel noise, as a camera gives. */
async function noisyPhoto(seed: number): Promise<Buffer> {
  const w = 600;
  const h = 315;
  const raw = Buffer.alloc(w * h * 3);
  let state = 1 + seed * 7919;
  const noise = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return (state % 40) - 20;
  };
  const clamp = (v: number) => Math.max(0, Math.min(255, Math.round(v)));
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      raw[i] = clamp(128 + 100 * Math.sin(x / (60 + seed * 9) + seed) + noise());
      raw[i + 1] = clamp(120 + 90 * Math.cos(y / 47 + x / 151) + noise());
      raw[i + 2] = clamp(110 + 80 * Math.sin((x + y) / (90 + seed * 13)) + noise());
    }
  }
  return sharp(raw, { raw: { width: w, height: h, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

const CSS = `@font-face{font-family:Inter;font-weight:400;src:url(/inter-400.woff2) format("woff2")}
@font-face{font-family:Inter;font-weight:800;src:url(/inter-800.woff2) format("woff2")}
*{box-sizing:border-box}body{margin:0;font-family:Inter,sans-serif;color:#0f172a;background:#f8fafc}
header{display:flex;align-items:center;gap:24px;padding:20px 48px;background:#fff;border-bottom:1px solid #e2e8f0}
header img{height:32px}nav a{margin-right:20px;color:#475569;text-decoration:none}
.hero{display:grid;grid-template-columns:1.1fr 1fr;gap:40px;padding:48px}
h1{font-weight:800;font-size:52px;line-height:1.05;margin:0 0 16px}p{font-size:19px;line-height:1.5;color:#334155}
.cta{display:inline-block;margin-top:12px;padding:14px 22px;border-radius:10px;background:#4f46e5;color:#fff;font-weight:800}
.hero img{width:100%;border-radius:16px;box-shadow:0 20px 40px rgba(15,23,42,.18)}
.cards{display:grid;grid-template-columns:repeat(3,1fr);gap:24px;padding:0 48px 48px}
.card{background:#fff;border-radius:14px;padding:16px;border:1px solid #e2e8f0}.card img{width:100%;border-radius:8px}`;

const SCRIPT = `document.addEventListener('DOMContentLoaded', () => {
  const cards = document.querySelector('.cards');
  const items = [['Fast', 'Warm browsers, spare contexts.'], ['Safe', 'Every request through one guard.'], ['Cached', 'ETags, max-age and s-maxage.']];
  items.forEach(([t, d], i) => {
    const el = document.createElement('div');
    el.className = 'card';
    el.innerHTML = '<img src="/photo-' + i + '.jpg" alt=""><h3>' + t + '</h3><p>' + d + '</p>';
    cards.appendChild(el);
  });
});`;

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Acme: ship faster</title><link rel="stylesheet" href="/style.css"><script src="/app.js" defer></script></head>
<body><header><img src="/logo-0.png" alt="Acme"><nav><a href="#">Product</a><a href="#">Pricing</a><a href="#">Docs</a></nav><img src="/logo-1.png" alt="" style="margin-left:auto"></header>
<section class="hero"><div><h1>Ship social cards and screenshots in milliseconds</h1><p>One self-hosted service for og:image cards and page screenshots, with a warm browser pool and a cache in front.</p><span class="cta">Start free</span> <img src="/logo-2.png" alt="" style="height:40px;width:auto;box-shadow:none;vertical-align:middle"></div>
<img src="/photo-0.jpg" alt=""></section><section class="cards"></section></body></html>`;

/** The landing page's look, 10,000 px tall: a header, then 17 sections of 580 px and a footer. */
const TALL = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Acme: the long read</title><link rel="stylesheet" href="/style.css"><style>section.s{display:grid;grid-template-columns:1fr 1fr;gap:40px;height:580px;box-sizing:border-box;padding:40px 48px;border-bottom:1px solid #e2e8f0}section.s img{width:100%;height:400px;object-fit:cover;border-radius:16px}footer{height:74px;background:#0f172a}</style></head>
<body><header style="height:66px"><img src="/logo-0.png" alt="Acme"><nav><a href="#">Product</a><a href="#">Pricing</a><a href="#">Docs</a></nav></header>
${Array.from({ length: 17 }, (_, i) => `<section class="s"><div><h1>Chapter ${i + 1}: shipping screenshots at scale</h1><p>One self-hosted service for og:image cards and page screenshots, with a warm browser pool and a cache in front. Every request the page makes goes through one guard.</p></div><img src="/photo-${i % 3}.jpg" alt=""></section>`).join('\n')}
<footer></footer></body></html>`;

/** Four photo-like images filling 1200×630: the page WebP and AVIF are made for. */
const PHOTOS = `<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0}div{display:grid;grid-template-columns:600px 600px;grid-template-rows:315px 315px}img{display:block;width:600px;height:315px}</style></head>
<body><div>${[0, 1, 2, 3].map((i) => `<img src="/noisy-${i}.jpg" alt="">`).join('')}</div></body></html>`;

/** Starts the benchmark site on 127.0.0.1:0. */
export async function startSite(): Promise<Site> {
  const files = await assets();
  let count = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    count++;
    const path = new URL(req.url ?? '/', 'http://site').pathname;
    const pages: Record<string, string> = { '/': PAGE, '/tall': TALL, '/photos': PHOTOS };
    const html = pages[path];
    const file =
      html !== undefined ? { type: 'text/html; charset=utf-8', body: Buffer.from(html) } : files[path];
    if (!file) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, {
      'content-type': file.type,
      'content-length': file.body.length,
      'cache-control': 'no-cache',
    });
    res.end(file.body);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    hostPort: `127.0.0.1:${port}`,
    requests: () => count,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
