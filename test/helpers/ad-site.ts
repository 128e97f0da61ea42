import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import sharp from 'sharp';

/**
 * A news site with ads, trackers and consent banners, for blockAds and blockCookieBanners, served
 * on 127.0.0.1 under real host names (the page's Host header picks the site). Chromium reaches it
 * through the egress proxy, whose URL guard resolves every one of these names to 127.0.0.1 (see
 * `guardFor`). The ad hosts and paths are ones the bundled lists block; none of them is on
 * Chromium's HSTS preload list (those would be upgraded to https, which this server does not speak).
 *
 * Colours are flat so tests read pixels: the page is white, its own content blue (#0000ff), every
 * ad red (#ff0000), every cookie banner green (#00ff00).
 *
 * Pages (on www.news.test): /article (ads of every kind, one of them in the site's own frame), /clean (the same page with nothing an
 * ad list blocks), /strict (an ad slot styled by the site's stylesheet, under a CSP that forbids
 * inline styles), /consent/onetrust, /consent/cookiebot (faithful minimal consent managers
 * whose "reject" buttons report to /consent-record?<which>), /consent/generic (a plain cookie
 * notice no consent manager runs), /own-images?n=100 (n of its own images), /slow-ads?n=40&delay=300 (n ad images from ad hosts, each
 * answered after `delay` ms, beside the page's own content).
 */
export const SITE = 'www.news.test';

/** Ad and tracker hosts the fixture serves, each with the path the lists block. */
export const AD_REQUESTS = [
  // ||pagead2.googlesyndication.com^ (AdGuard Base)
  { host: 'pagead2.googlesyndication.com', path: '/pagead/imgad' },
  // ||amazon-adsystem.com^ (AdGuard Base): a script that would paint a red box
  { host: 'c.amazon-adsystem.com', path: '/aax2/apstag.js' },
  // ||pubmatic.com^ : an ad frame
  { host: 'ads.pubmatic.com', path: '/AdServer/frame' },
  // ||scorecardresearch.com^ (Tracking Protection): a tracker
  { host: 'sb.scorecardresearch.com', path: '/beacon.js' },
  // /ads/banners/*$image (AdGuard Base, a path rule on the site's own host)
  { host: SITE, path: '/ads/banners/leaderboard.png' },
] as const;

/** The page's own resources, which blocking must leave alone. */
export const OWN_REQUESTS = [
  { host: SITE, path: '/static/photo.png' },
  { host: SITE, path: '/static/app.js' },
  { host: SITE, path: '/frame' },
] as const;

/** Hosts whose slow ad images /slow-ads spreads over (all blocked by AdGuard Base). */
const SLOW_AD_HOSTS = [
  'pagead2.googlesyndication.com',
  'c.amazon-adsystem.com',
  'ads.pubmatic.com',
  'ib.adnxs.com',
];

export const ALL_HOSTS = [...new Set([SITE, ...AD_REQUESTS.map((r) => r.host), ...SLOW_AD_HOSTS])];

const RED = '#ff0000';
const GREEN = '#00ff00';
const BLUE = '#0000ff';

const page = (body: string, head = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>news</title><style>html,body{margin:0;background:#fff}</style>${head}</head><body>${body}</body></html>`;

/** Content at the top left (blue), ads below it; a 800×600 viewport shows all of it. */
function article(port: number, withAds: boolean): string {
  const at = (host: string, path: string) => `http://${host}:${port}${path}`;
  const ads = withAds
    ? `<img id="ad-img" src="${at('pagead2.googlesyndication.com', '/pagead/imgad?id=1')}" width="300" height="100" style="position:absolute;left:0;top:120px">
<img id="ad-path" src="${at(SITE, '/ads/banners/leaderboard.png')}" width="300" height="100" style="position:absolute;left:400px;top:120px">
<iframe id="ad-frame" src="${at('ads.pubmatic.com', '/AdServer/frame')}" width="300" height="100" style="position:absolute;left:0;top:240px;border:0"></iframe>
<script src="${at('c.amazon-adsystem.com', '/aax2/apstag.js')}"></script>
<script src="${at('sb.scorecardresearch.com', '/beacon.js')}"></script>
<div id="ad_banner" style="position:absolute;left:400px;top:240px;width:300px;height:100px;background:${RED}"></div>
<ins class="adsbygoogle" data-ad-client="ca-pub-1234" data-ad-slot="5678" style="display:block;position:absolute;left:0;top:360px;width:300px;height:100px;background:${RED}"></ins>
<div class="banner-ad" style="position:absolute;left:400px;top:360px;width:300px;height:100px;background:${RED}"></div>
<iframe id="own-frame" src="/frame" width="300" height="100" style="position:absolute;left:400px;top:480px;border:0"></iframe>`
    : '';
  return page(
    `<img id="photo" src="/static/photo.png" width="300" height="100" style="position:absolute;left:0;top:0">
<div id="content" style="position:absolute;left:400px;top:0;width:300px;height:100px;background:${BLUE}"></div>
<script src="/static/app.js"></script>${ads}`,
  );
}

/** OneTrust's banner as its SDK writes it (ids and handler classes autoconsent's rule looks for). */
const ONETRUST = page(
  `<div id="content" style="height:300px;background:${BLUE}"></div>
<div id="onetrust-consent-sdk"><div class="onetrust-pc-dark-filter" style="position:fixed;inset:0;background:rgba(0,0,0,.5);z-index:10"></div>
<div id="onetrust-banner-sdk" class="otFlat" role="region" aria-label="Cookie banner" style="position:fixed;left:0;right:0;bottom:0;height:200px;background:${GREEN};z-index:11">
<div id="onetrust-policy"><p id="onetrust-policy-text">We use cookies to improve your experience.</p></div>
<div id="onetrust-button-group"><button id="onetrust-pc-btn-handler">Cookie Settings</button>
<button id="onetrust-reject-all-handler">Reject All</button><button id="onetrust-accept-btn-handler">Accept All Cookies</button></div></div></div>
<script>
const record = (what) => fetch('/consent-record?' + what);
const close = () => { document.getElementById('onetrust-banner-sdk').style.display = 'none'; document.querySelector('.onetrust-pc-dark-filter').style.display = 'none'; };
document.getElementById('onetrust-reject-all-handler').addEventListener('click', () => { record('onetrust-reject'); window.OnetrustActiveGroups = ',C0001,'; close(); });
document.getElementById('onetrust-accept-btn-handler').addEventListener('click', () => { record('onetrust-accept'); close(); });
window.OnetrustActiveGroups = ',C0001,C0002,C0003,C0004,';
</script>`,
);

/** Cookiebot's dialog and its `window.Cookiebot` API, which autoconsent's rule detects by script. */
const COOKIEBOT = page(
  `<div id="content" style="height:300px;background:${BLUE}"></div>
<div id="CybotCookiebotDialog" name="CybotCookiebotDialog" role="dialog" style="position:fixed;left:0;right:0;bottom:0;height:200px;background:${GREEN};z-index:10">
<div id="CybotCookiebotDialogBodyContentText">This website uses cookies.</div>
<button id="CybotCookiebotDialogBodyLevelButtonLevelOptinDeclineAll">Deny</button>
<button id="CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll">Allow all</button></div>
<script>
const dialog = document.getElementById('CybotCookiebotDialog');
window.Cookiebot = { hasResponse: false, declined: false, consented: false, dialog: { visible: true },
  hide() { dialog.style.display = 'none'; this.dialog.visible = false; },
  withdraw() { fetch('/consent-record?cookiebot-withdraw'); this.declined = true; this.hasResponse = true; } };
document.getElementById('CybotCookiebotDialogBodyLevelButtonLevelOptinDeclineAll').addEventListener('click', () => {
  fetch('/consent-record?cookiebot-decline'); Cookiebot.declined = true; Cookiebot.hasResponse = true; Cookiebot.hide(); });
document.getElementById('CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll').addEventListener('click', () => {
  fetch('/consent-record?cookiebot-allow'); Cookiebot.consented = true; Cookiebot.hasResponse = true; Cookiebot.hide(); });
</script>`,
);

/** A cookie notice of the site's own making: no consent manager, no buttons, only the list hides it. */
const GENERIC = page(
  `<div id="content" style="height:300px;background:${BLUE}"></div>
<div class="cookie-notice" style="position:fixed;left:0;right:0;bottom:0;height:150px;background:${GREEN}">This site stores cookies on your device. <a href="/privacy">Privacy policy</a></div>`,
);

/** The article's first rows styled only from its own stylesheet, under a CSP that forbids inline styles. */
const STRICT = `<!doctype html><html><head><meta charset="utf-8"><title>news</title><link rel="stylesheet" href="/static/site.css"></head>
<body><img class="photo" src="/static/photo.png"><div id="ad_banner"></div></body></html>`;
const STRICT_CSS = `html,body{margin:0;background:#fff} .photo{position:absolute;left:0;top:0;width:300px;height:100px}
#ad_banner{position:absolute;left:0;top:120px;width:300px;height:100px;background:${RED}}`;
const STRICT_CSP = "default-src 'self'; style-src 'self'; script-src 'self'";

/** `n` of the page's own images (distinct URLs, nothing an ad list blocks): what interception costs. */
function ownImages(n: number): string {
  const imgs = Array.from(
    { length: n },
    (_, i) => `<img src="/static/photo.png?i=${i}" width="30" height="10">`,
  );
  return page(`<div id="content" style="height:200px;background:${BLUE}"></div><div>${imgs.join('')}</div>`);
}

function slowAds(port: number, n: number, delay: number): string {
  const imgs = Array.from({ length: n }, (_, i) => {
    const host = SLOW_AD_HOSTS[i % SLOW_AD_HOSTS.length]!;
    const path = host === 'pagead2.googlesyndication.com' ? '/pagead/imgad' : '/ad/banner.png';
    return `<img src="http://${host}:${port}${path}?slot=${i}&delay=${delay}" width="60" height="40">`;
  });
  return page(`<div id="content" style="height:200px;background:${BLUE}"></div><img src="/static/photo.png" width="300" height="100">
<div>${imgs.join('')}</div>`);
}

export interface AdSite {
  port: number;
  /** `http://www.news.test:<port>` + path. */
  url(path: string): string;
  /** Requests seen for `path` (query excluded) on `host`. */
  hits(host: string, path: string): number;
  /** Every request seen, as `host path?query`. */
  readonly log: string[];
  close(): Promise<void>;
}

/** Starts the site on 127.0.0.1:0. */
export async function startAdSite(): Promise<AdSite> {
  const png = (color: string, width = 300, height = 100) =>
    sharp({ create: { width, height, channels: 3, background: color } })
      .png()
      .toBuffer();
  const [redPng, bluePng] = await Promise.all([png(RED), png(BLUE)]);
  const log: string[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const u = new URL(req.url ?? '/', 'http://x');
    log.push(`${host} ${u.pathname}${u.search}`);
    const send = (body: string | Buffer, type: string, headers: Record<string, string> = {}) => {
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store', ...headers });
      res.end(body);
    };
    const delay = Number(u.searchParams.get('delay') ?? 0);
    if (host !== SITE) {
      const answer = () => {
        if (u.pathname.endsWith('.js')) {
          // An ad script paints a red box over the page's content if it is allowed to run.
          return send(
            `document.addEventListener('DOMContentLoaded', () => { const d = document.createElement('div'); d.style.cssText = 'position:fixed;left:400px;top:0;width:300px;height:100px;background:${RED};z-index:5'; document.body.append(d); });`,
            'text/javascript',
          );
        }
        if (u.pathname.startsWith('/AdServer/'))
          return send(page('', `<style>html{background:${RED}}</style>`), 'text/html');
        return send(redPng, 'image/png');
      };
      if (delay > 0) {
        const t = setTimeout(() => {
          timers.delete(t);
          answer();
        }, delay);
        return void timers.add(t);
      }
      return answer();
    }
    const port = (server.address() as AddressInfo).port;
    const routes: Record<string, () => void> = {
      '/article': () => send(article(port, true), 'text/html'),
      '/clean': () => send(article(port, false), 'text/html'),
      // The site's own frame (a widget), with an ad slot at its top and its content below.
      '/frame': () =>
        send(
          page(
            `<div id="ad_banner" style="height:50px;background:${RED}"></div><div style="height:50px;background:${BLUE}"></div>`,
          ),
          'text/html',
        ),
      '/strict': () => send(STRICT, 'text/html', { 'content-security-policy': STRICT_CSP }),
      '/static/site.css': () => send(STRICT_CSS, 'text/css'),
      '/consent/onetrust': () => send(ONETRUST, 'text/html'),
      '/consent/cookiebot': () => send(COOKIEBOT, 'text/html'),
      '/consent/generic': () => send(GENERIC, 'text/html'),
      '/slow-ads': () =>
        send(
          slowAds(port, Number(u.searchParams.get('n') ?? 40), Number(u.searchParams.get('delay') ?? 300)),
          'text/html',
        ),
      '/own-images': () => send(ownImages(Number(u.searchParams.get('n') ?? 100)), 'text/html'),
      '/static/photo.png': () => send(bluePng, 'image/png'),
      '/static/app.js': () => send('window.appLoaded = true;', 'text/javascript'),
      '/ads/banners/leaderboard.png': () => send(redPng, 'image/png'),
      '/consent-record': () => send('{}', 'application/json'),
    };
    const route = routes[u.pathname];
    if (route) return route();
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path) => `http://${SITE}:${port}${path}`,
    hits: (host, path) =>
      log.filter((l) => l === `${host} ${path}` || l.startsWith(`${host} ${path}?`)).length,
    log,
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
