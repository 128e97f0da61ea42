import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  createServer as createHttp,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';

/**
 * A fixture site on 127.0.0.1 for the unfurl check: one page per known problem, served over
 * http, with its images over https (a self-signed certificate, test/fixtures/tls, that the
 * check is given as its only CA), so the clean page is clean for every network. Each page's
 * path names its problem; `clean` has none.
 */
export interface UnfurlSite {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `https://127.0.0.1:<port>`: the images. */
  secureUrl: string;
  /** Both `127.0.0.1:<port>` pairs, for allowPrivateHosts. */
  hostPorts: string[];
  /** The certificate the https server presents. */
  ca: string;
  /** Requests seen per path, and the User-Agents each came with. */
  hits(path: string): number;
  agents(path: string): string[];
  close(): Promise<void>;
}

const TLS_DIR = path.join(import.meta.dirname, '..', 'fixtures', 'tls');
/** 5 MB of inline script at the top of a head: the tags after it are past what any crawler reads. */
const FILLER = `<script>/*${'x'.repeat(5 * 1024 * 1024)}*/</script>\n`;

/** The tags every page starts from; a page drops or changes some. */
interface Tags {
  title?: string | null;
  ogTitle?: string | null;
  description?: string | null;
  ogDescription?: string | null;
  ogImage?: string | null;
  twitterCard?: string | null;
  charset?: string;
  headFiller?: string;
}

function page(t: Tags): string {
  const tag = (name: string, attr: 'property' | 'name', value: string | null | undefined) =>
    value == null ? '' : `<meta ${attr}="${name}" content="${value}">\n`;
  return `<!doctype html>
<html lang="en"><head>
<meta charset="${t.charset ?? 'utf-8'}">
${t.headFiller ?? ''}${t.title === null ? '' : `<title>${t.title ?? 'Launch week | Fixture'}</title>`}
${tag('description', 'name', t.description === undefined ? 'Five new card designs, dark mode and a faster renderer.' : t.description)}${tag('og:title', 'property', t.ogTitle === undefined ? 'Launch week: five new templates' : t.ogTitle)}${tag('og:description', 'property', t.ogDescription === undefined ? 'Five new card designs, dark mode and a faster renderer.' : t.ogDescription)}${tag('og:site_name', 'property', 'Fixture Blog')}${tag('og:image', 'property', t.ogImage)}${tag('twitter:card', 'name', t.twitterCard === undefined ? 'summary_large_image' : t.twitterCard)}<meta name="theme-color" content="#5865f2">
<link rel="canonical" href="/clean">
</head><body><h1>Launch week</h1></body></html>`;
}

/** Starts the site. */
export async function startUnfurlSite(): Promise<UnfurlSite> {
  const cert = readFileSync(path.join(TLS_DIR, 'cert.pem'), 'utf8');
  const key = readFileSync(path.join(TLS_DIR, 'key.pem'), 'utf8');
  const images = await makeImages();
  const hits = new Map<string, string[]>();
  const hanging = new Set<ServerResponse>();
  let secure = '';
  let plain = '';

  let pageCache: Record<string, Tags> | undefined;
  const pages = (): Record<string, Tags> =>
    (pageCache ??= {
      '/clean': { ogImage: `${secure}/img/card.png` },
      '/no-image': {},
      '/relative-image': { ogImage: '/img/card.png' },
      '/http-image': { ogImage: `${plain}/img/card.png` },
      '/tiny-image': { ogImage: `${secure}/img/tiny.png` },
      '/huge-image': { ogImage: `${secure}/img/huge.png` },
      '/svg-image': { ogImage: `${secure}/img/card.svg` },
      '/broken-image': { ogImage: `${secure}/img/missing.png` },
      '/no-description': { ogImage: `${secure}/img/card.png`, description: null, ogDescription: null },
      '/no-twitter-card': { ogImage: `${secure}/img/card.png`, twitterCard: null },
      '/summary-card': { ogImage: `${secure}/img/card.png`, twitterCard: 'summary' },
      '/private-to-x': { ogImage: `${secure}/img/card.png` },
      '/no-linkedin': { ogImage: `${secure}/img/card.png` },
      '/big-head': {
        ogImage: `${secure}/img/card.png`,
        headFiller: FILLER,
      },
    });

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(p, [...(hits.get(p) ?? []), String(req.headers['user-agent'] ?? '')]);
    const html = (status: number, body: string | Buffer, type = 'text/html; charset=utf-8') => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    if (p === '/robots.txt')
      return html(
        200,
        'User-agent: Twitterbot\nDisallow: /private-to-x\n\nUser-agent: *\nAllow: /\n',
        'text/plain',
      );
    if (p === '/missing') return html(404, page({}));
    if (p === '/redirect') return redirect(res, 301, '/redirect-2');
    if (p === '/redirect-2') return redirect(res, 302, '/clean');
    if (p === '/to-private') return redirect(res, 302, 'http://127.0.0.1:1/');
    if (p === '/no-linkedin' && /LinkedInBot/.test(String(req.headers['user-agent'])))
      return html(403, 'Forbidden', 'text/plain');
    if (p === '/windows-1252') {
      const text = page({
        charset: 'windows-1252',
        ogImage: `${secure}/img/card.png`,
        ogTitle: 'Café “déjà vu” – naïve',
      });
      // é, à, ï are the same bytes in Latin-1 and windows-1252; the curly quotes and the en dash
      // are 0x93, 0x94 and 0x96 in windows-1252 only.
      const cp1252 = text.replace('“', '\x93').replace('”', '\x94').replace('–', '\x96');
      return html(200, Buffer.from(cp1252, 'latin1'), 'text/html');
    }
    if (p === '/never-ends') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.write('<!doctype html><html><head><title>Never ends</title>\n');
      hanging.add(res);
      return;
    }
    const img = images[p];
    if (img) return html(200, img.body, img.type);
    const t = pages()[p];
    if (t) return html(200, page(t));
    return html(404, 'not found', 'text/plain');
  };

  const http = createHttp(handle);
  const https = createHttps({ cert, key }, handle);
  await Promise.all([listen(http), listen(https)]);
  const httpPort = (http.address() as AddressInfo).port;
  const httpsPort = (https.address() as AddressInfo).port;
  plain = `http://127.0.0.1:${httpPort}`;
  secure = `https://127.0.0.1:${httpsPort}`;
  return {
    url: plain,
    secureUrl: secure,
    hostPorts: [`127.0.0.1:${httpPort}`, `127.0.0.1:${httpsPort}`],
    ca: cert,
    hits: (p) => hits.get(p)?.length ?? 0,
    agents: (p) => hits.get(p) ?? [],
    async close() {
      for (const res of hanging) res.destroy();
      http.closeAllConnections();
      https.closeAllConnections();
      await Promise.all([close(http), close(https)]);
    },
  };
}

function redirect(res: ServerResponse, status: number, to: string): void {
  res.writeHead(status, { location: to, 'content-length': 0 });
  res.end();
}

async function makeImages(): Promise<Record<string, { body: Buffer; type: string }>> {
  const solid = (width: number, height: number) =>
    sharp({ create: { width, height, channels: 3, background: { r: 40, g: 90, b: 200 } } })
      .png()
      .toBuffer();
  // Noise does not compress: about 6 MB of PNG, over X's, LinkedIn's and Slack's 5 MB.
  const noise = randomBytes(2000 * 1050 * 3);
  const huge = await sharp(noise, { raw: { width: 2000, height: 1050, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
  return {
    '/img/card.png': { body: await solid(1200, 630), type: 'image/png' },
    '/img/tiny.png': { body: await solid(60, 40), type: 'image/png' },
    '/img/huge.png': { body: huge, type: 'image/png' },
    '/img/card.svg': {
      body: Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="630"><rect width="100%" height="100%"/></svg>',
      ),
      type: 'image/svg+xml',
    },
  };
}

function listen(server: Server | ReturnType<typeof createHttps>): Promise<void> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
}

function close(server: Server | ReturnType<typeof createHttps>): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
