import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fixture site on 127.0.0.1 for `/og` (issue 30 §4): about twenty pages, each with one known
 * shape (tags missing, a relative image, tags written by script, redirects within and off the
 * site, a 500, a slow page, a 5 MB head, a head that never ends, charsets declared by header,
 * by meta tag or wrongly), and sitemaps. Each page's title is what its card must show. Counts
 * the requests per path, so a test can prove a cached answer read nothing.
 */
export interface SitePages {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `127.0.0.1:<port>` (for allowPrivateHosts). */
  hostPort: string;
  /** Requests seen for `path` (with its query). */
  hits(path: string): number;
  /** The User-Agents seen, in order. */
  agents(): string[];
  close(): Promise<void>;
}

/** The pages that yield a card, with the title the card shows. */
export const TITLED_PAGES: Record<string, string> = {
  '/': 'Fixture Blog Home',
  '/blog/post-1': 'Shipping cards at scale',
  '/blog/title-only': 'Only a title tag here',
  '/blog/twitter-only': 'Twitter tags only',
  '/blog/relative-image': 'Artwork from a relative path',
  '/blog/overrides': 'The override wins',
  '/blog/latin1-header': 'Café crème for two',
  '/blog/latin1-meta': 'Pâtisserie française',
  '/blog/wrong-charset': 'Déjà vu in a charset',
  '/blog/huge-head': 'Title before five megabytes',
  '/blog/endless-head': 'A head that never ends',
  '/redirect': 'Shipping cards at scale',
  '/search?q=seven': 'Results for seven',
  '/blog/unicode': 'Zürich und Köln',
  '/blog/meta-name': 'Headline from a meta name',
};

/** The pages that get the fallback card, with the reason the route gives. */
export const FALLBACK_PAGES: Record<string, string> = {
  '/blog/no-title': 'no-title',
  '/blog/script-tags': 'no-title',
  '/blog/script-override': 'no-title',
  '/error': 'http-500',
  '/missing': 'http-404',
  '/redirect-away': 'refused',
  '/image.png': 'not-html',
};

const head = (inner: string, lang = 'en') =>
  `<!doctype html><html lang="${lang}"><head><meta charset="utf-8">${inner}</head><body><p>body</p></body></html>`;
const og = (title: string, extra = '') =>
  head(
    `<title>${title} | Fixture</title><meta property="og:title" content="${title}"><meta property="og:description" content="A page of the fixture site"><meta property="og:site_name" content="Fixture Blog">${extra}`,
  );
const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC',
  'base64',
);

type Handler = (req: IncomingMessage, res: ServerResponse, base: string) => void;

const html =
  (body: string | Buffer, type = 'text/html; charset=utf-8'): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': type });
    res.end(body);
  };

function pages(): Record<string, Handler> {
  return {
    '/': html(og('Fixture Blog Home')),
    '/blog/post-1': html(og('Shipping cards at scale')),
    '/blog/title-only': html(head('<title>Only a title tag here</title>')),
    '/blog/twitter-only': html(head('<meta name="twitter:title" content="Twitter tags only">')),
    '/blog/relative-image': html(
      og('Artwork from a relative path', '<meta property="og:image" content="/img/art.png">'),
    ),
    '/blog/overrides': html(
      og(
        'The mapping loses',
        '<meta name="cardshot:title" content="The override wins"><meta name="cardshot:theme" content="none">',
      ),
    ),
    '/blog/latin1-header': html(
      Buffer.from(head('<title>Café crème for two</title>').replace('<meta charset="utf-8">', ''), 'latin1'),
      'text/html; charset=iso-8859-1',
    ),
    '/blog/latin1-meta': html(
      Buffer.from(
        head('<title>Pâtisserie française</title>').replace('charset="utf-8"', 'charset="windows-1252"'),
        'latin1',
      ),
      'text/html',
    ),
    // The header names a charset that does not exist: the meta tag's (UTF-8) is used instead.
    '/blog/wrong-charset': html(
      Buffer.from(head('<title>Déjà vu in a charset</title>'), 'utf8'),
      'text/html; charset=nonsense-charset',
    ),
    '/blog/huge-head': html(
      head(
        `<title>Title before five megabytes</title><script>/*${'x'.repeat(5 * 1024 * 1024)}*/</script><meta property="og:title" content="Past the first megabyte">`,
      ),
    ),
    '/blog/endless-head': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.write('<!doctype html><html><head><title>A head that never ends</title>');
      const chunk = `<!--${'y'.repeat(16 * 1024)}-->`;
      const timer = setInterval(() => {
        if (!res.write(chunk)) return;
      }, 1);
      res.on('close', () => clearInterval(timer));
    },
    '/redirect': (_req, res) => {
      res.writeHead(301, { location: '/blog/post-1' });
      res.end();
    },
    '/redirect-away': (_req, res) => {
      res.writeHead(302, { location: 'http://localhost:9/elsewhere' });
      res.end();
    },
    // og: in name= and twitter: in property=, upper-cased: crawlers read them all the same.
    '/blog/mixed-attributes': html(
      head(
        '<meta name="OG:Title" content="Mixed up attributes"><meta property="twitter:description" content="Read anyway">',
      ),
    ),
    // Sent on to the URL in `to` (another origin in the tests that keep a browser on the site).
    '/redirect-to': (req, res) => {
      res.writeHead(302, { location: new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '/' });
      res.end();
    },
    // A titled page whose script moves it to `to` as soon as it has loaded.
    '/script-to': (req, res) => {
      const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '/';
      const move = `<script>addEventListener('load', () => { location.href = ${JSON.stringify(to)}; });</script>`;
      html(og('Moved away by script', move))(req, res, '');
    },
    // Once loaded, asks for a web font that never arrives (the capture's wait for fonts, 3 s,
    // stands open) and moves itself to `to` (a new address each time) as fast as it can.
    '/moves-forever': (req, res) => {
      const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '/';
      const onLoad = `
        document.head.insertAdjacentHTML('beforeend', "<style>@font-face { font-family: Never; src: url(/never-font.woff2) format('woff2'); } p { font-family: Never, sans-serif; }</style>");
        document.fonts.load('16px Never');
        setInterval(() => { location.href = ${JSON.stringify(to)} + '?' + Math.random(); }, 0);`;
      html(og('Never still', `<script>addEventListener('load', () => {${onLoad}});</script>`))(req, res, '');
    },
    '/never-font.woff2': (req, res) => {
      res.writeHead(200, { 'content-type': 'font/woff2' });
      res.write('wOF2');
      req.on('close', () => res.destroy());
    },
    '/search': (req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams.get('q') ?? '';
      html(og(`Results for ${q}`))(req, res, '');
    },
    '/blog/unicode': html(og('Zürich und Köln')),
    '/blog/meta-name': html(
      head('<title>Not this one</title><meta name="headline" content="Headline from a meta name">'),
    ),
    '/blog/no-title': html(head('<meta name="description" content="No title at all">')),
    '/blog/script-tags': html(
      head(
        `<script>document.title = 'Written by script'; const m = document.createElement('meta'); m.setAttribute('property', 'og:title'); m.content = 'Written by script'; document.head.append(m);</script>`,
      ),
    ),
    // A framework's page: its script writes the title and a cardshot:title override, which wins.
    '/blog/script-override': html(
      head(
        `<script>document.title = 'Unwanted default heading'; const m = document.createElement('meta'); m.name = 'cardshot:title'; m.content = 'Steered by script'; document.head.append(m);</script>`,
      ),
    ),
    '/error': (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end(og('Server error page'));
    },
    '/missing': (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end(og('Not found page'));
    },
    '/slow': (_req, res) => {
      const t = setTimeout(() => html(og('Too slow to matter'))(_req, res, ''), 10_000);
      res.on('close', () => clearTimeout(t));
    },
    '/image.png': html(PNG_1X1, 'image/png'),
    '/img/art.png': html(PNG_1X1, 'image/png'),
    '/sitemap.xml': (_req, res, base) => {
      const locs = ['/', '/blog/post-1', '/blog/title-only', '/blog/no-title', 'http://elsewhere.example/x'];
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs
          .map((l) => `<url><loc>${l.startsWith('http') ? l : base + l}</loc></url>`)
          .join('')}</urlset>`,
      );
    },
    '/sitemap-index.xml': (_req, res, base) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${base}/sitemap.xml</loc></sitemap><sitemap><loc>${base}/sitemap-b.xml</loc></sitemap></sitemapindex>`,
      );
    },
    '/sitemap-b.xml': (_req, res, base) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        `<urlset><url><loc>${base}/blog/unicode</loc></url><url><loc>${base}/search?q=seven</loc></url></urlset>`,
      );
    },
  };
}

/** Starts the fixture site. */
export async function startSitePages(): Promise<SitePages> {
  const table = pages();
  const hits = new Map<string, number>();
  const agents: string[] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    hits.set(url, (hits.get(url) ?? 0) + 1);
    agents.push(String(req.headers['user-agent'] ?? ''));
    const handler = table[url.split('?', 1)[0] ?? '/'];
    if (!handler) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no such fixture page');
      return;
    }
    handler(req, res, base);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    hostPort: `127.0.0.1:${port}`,
    hits: (path) => hits.get(path) ?? 0,
    agents: () => [...agents],
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
