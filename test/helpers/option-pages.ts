import sharp from 'sharp';

/**
 * Fixture pages for the screenshot options (issue 17), served by the page server (pages.ts).
 * Colours are flat so tests can read pixels:
 *
 * - /opt/lazy: 4000 px tall, white, with a native `loading=lazy` image (red, at 1500 px) and an
 *   IntersectionObserver image (green, at 3200 px) that only gets its src once scrolled to;
 *   the first image's request is counted as /solid/ff0000.png.
 * - /opt/element: `#card` 300×200 at (100, 900), red left half and blue right half; `#empty`
 *   (0×0); `#tall` 100×30000 at the bottom; `.late` (green) appears 300 ms after load, hidden
 *   `#never` never shows.
 * - /opt/scheme: white in light mode, black under prefers-color-scheme: dark.
 * - /opt/hide: blue page, a red fixed banner over the top 200 px (`#banner`) and a red ad block
 *   (`.ad`, 200 px tall) that pushes the blue `#after` block down while shown.
 * - /opt/dpr: green at a device pixel ratio of 2 or more, red below.
 * - /opt/photo: a 1200×630 photo-like image (gradients and noise), for format sizes.
 * - /opt/endless: a page that grows by 2000 px whenever its end comes into view.
 * - /opt/turns: red, then green 400 ms after load (for `delay`).
 * - /opt/counter: red on odd visits, blue on even ones (a page that changes between captures).
 * - /solid/<hex>.png?w=&h=: a solid PNG (default 400×300).
 */
const page = (body: string, head = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>options</title>${head}<style>html,body{margin:0}</style></head><body>${body}</body></html>`;

const LAZY = page(
  `<div style="height:1500px"></div>
<img id="native" src="/solid/ff0000.png?w=400&h=300" loading="lazy" width="400" height="300" style="display:block">
<div style="height:1400px"></div>
<img id="observed" data-src="/solid/00ff00.png?w=400&h=300" width="400" height="300" style="display:block;background:#000">
<div style="height:500px"></div>`,
  `<style>body{background:#fff}</style><script>
addEventListener('DOMContentLoaded', () => {
  const img = document.getElementById('observed');
  new IntersectionObserver((entries, io) => {
    for (const e of entries) if (e.isIntersecting) { img.src = img.dataset.src; io.disconnect(); }
  }).observe(img);
});
</script>`,
);

const ELEMENT = page(
  `<div id="card" style="position:absolute;left:100px;top:900px;width:300px;height:200px;display:flex"><div style="flex:1;background:#ff0000"></div><div style="flex:1;background:#0000ff"></div></div>
<div id="empty" style="position:absolute;left:10px;top:10px;width:0;height:0"></div>
<div id="never" style="position:absolute;left:10px;top:10px;width:50px;height:50px;visibility:hidden;background:#000"></div>
<div id="tall" style="position:absolute;left:0;top:1200px;width:100px;height:30000px;background:#00ff00"></div>`,
  `<style>body{background:#fff}</style><script>
addEventListener('load', () => setTimeout(() => {
  const d = document.createElement('div');
  d.className = 'late';
  d.style.cssText = 'position:absolute;left:500px;top:50px;width:60px;height:40px;background:#00ff00';
  document.body.appendChild(d);
}, 300));
</script>`,
);

const SCHEME = page(
  '<p style="margin:0;height:100vh"></p>',
  '<style>body{background:#ffffff} @media (prefers-color-scheme: dark) { body { background:#000000 } }</style>',
);

const HIDE = page(
  `<div id="banner" style="position:fixed;left:0;top:0;right:0;height:200px;background:#ff0000;z-index:9"></div>
<div class="ad" style="height:200px;background:#ff0000"></div>
<div id="after" style="height:2000px;background:#0000ff"></div>`,
  '<style>body{background:#0000ff}</style>',
);

const DPR = page(
  '<div id="dpr" style="height:100vh"></div>',
  '<style>#dpr{background:#ff0000} @media (min-resolution: 2dppx) { #dpr { background:#00ff00 } }</style>',
);

const ENDLESS = page(
  '<div id="feed" style="background:linear-gradient(#ff0000,#0000ff)"></div><div id="end" style="height:10px"></div>',
  `<script>
addEventListener('DOMContentLoaded', () => {
  const feed = document.getElementById('feed');
  let h = 2000; feed.style.height = h + 'px';
  new IntersectionObserver(() => { h += 2000; feed.style.height = h + 'px'; }).observe(document.getElementById('end'));
});
</script>`,
);

const TURNS = page(
  '<div style="height:100vh"></div>',
  `<style>body{background:#ff0000}</style><script>addEventListener('load', () => setTimeout(() => { document.body.style.background = '#00ff00'; }, 400))</script>`,
);

let photo: Buffer | undefined;
let counterVisits = 0;

/** A photo-like 1200×630 JPEG: smooth colour gradients with per-pixel noise, as a camera gives. */
export async function photoJpeg(): Promise<Buffer> {
  if (photo) return photo;
  const w = 1200;
  const h = 630;
  const raw = Buffer.alloc(w * h * 3);
  let seed = 42;
  const noise = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return (seed % 48) - 24;
  };
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      const clamp = (v: number) => Math.max(0, Math.min(255, Math.round(v)));
      raw[i] = clamp(120 + 100 * Math.sin(x / 97) + noise());
      raw[i + 1] = clamp(110 + 90 * Math.cos(y / 71 + x / 203) + noise());
      raw[i + 2] = clamp(100 + 80 * Math.sin((x + y) / 131) + noise());
    }
  }
  photo = await sharp(raw, { raw: { width: w, height: h, channels: 3 } })
    .jpeg({ quality: 92 })
    .toBuffer();
  return photo;
}

const PHOTO = page('<img src="/opt/photo.jpg" width="1200" height="630" style="display:block">');

/** A solid-colour PNG for `/solid/<hex>.png`. */
function solid(hex: string, w: number, h: number): Promise<Buffer> {
  return sharp({ create: { width: w, height: h, channels: 3, background: `#${hex}` } })
    .png()
    .toBuffer();
}

/**
 * Answers an option fixture path, or returns false when `path` is not one. `send` is the page
 * server's own responder.
 */
export function optionPage(
  u: URL,
  send: (body: string | Buffer, type?: string, status?: number) => void,
): boolean {
  const pages: Record<string, string> = {
    '/opt/lazy': LAZY,
    '/opt/element': ELEMENT,
    '/opt/scheme': SCHEME,
    '/opt/hide': HIDE,
    '/opt/dpr': DPR,
    '/opt/photo': PHOTO,
    '/opt/endless': ENDLESS,
    '/opt/turns': TURNS,
  };
  if (u.pathname === '/opt/counter') {
    counterVisits++;
    send(page('', `<style>body{background:${counterVisits % 2 === 1 ? '#ff0000' : '#0000ff'}}</style>`));
    return true;
  }
  const html = pages[u.pathname];
  if (html) {
    send(html);
    return true;
  }
  if (u.pathname === '/opt/photo.jpg') {
    void photoJpeg().then((b) => send(b, 'image/jpeg'));
    return true;
  }
  const m = /^\/solid\/([0-9a-f]{6})\.png$/.exec(u.pathname);
  if (m) {
    const w = Number(u.searchParams.get('w') ?? 400);
    const h = Number(u.searchParams.get('h') ?? 300);
    void solid(m[1]!, w, h).then((b) => send(b, 'image/png'));
    return true;
  }
  return false;
}
